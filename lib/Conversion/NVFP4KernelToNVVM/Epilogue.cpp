//===- Epilogue.cpp - nvfp4k lowering: the epilogue -------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::nvfp4k;
using namespace mlir::nvfp4k::lowering;

namespace {

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

struct AlphaLowering : OpConversionPattern<AlphaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AlphaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    // Element `index` (null: 0) of the f32 array at `address`. No kernel
    // writes its decode scales or alpha: invariant loads, which LLVM may
    // share between the outputs of a thread (row-scaled operands load per
    // output) across the epilogue's stores.
    auto factor = [&](Value address, Value index) -> Value {
      if (!address)
        return Value();
      if (address.getType().isF32()) // the value, computed in the kernel
        return address;
      if (!index)
        index = cIndex(b, 0);
      Value ptr = globalAddress(b, address,
                                arith::MulIOp::create(b, index, cIndex(b, 4)));
      return LLVM::LoadOp::create(b, b.getF32Type(), ptr, /*alignment=*/4,
                                  /*isVolatile=*/false,
                                  /*isNonTemporal=*/false,
                                  /*isInvariant=*/true);
    };
    Value group = adaptor.getGroup();
    Value aDecode = factor(adaptor.getADecode(),
                           op.getADecodePerGroup() ? group : adaptor.getRow());
    Value bDecode =
        factor(adaptor.getBDecode(),
               op.getBDecodePerGroup() ? group : adaptor.getColumn());
    Value result = nvfp4::combineAlpha(b, b.getLoc(), aDecode, bDecode,
                                       factor(adaptor.getAlpha(), group));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The epilogue's f32 values of an nvfp4k.store or nvfp4k.epilogue at its
/// [row, column] (inside the bounds): alpha * values, plus the bias and
/// beta * acc, and with swiglu the activation of each pair after the
/// rounding to the intermediate type (P/2 values); not rounded to the
/// output element yet.
template <typename EpilogueLike>
static Value epilogueValues(ImplicitLocOpBuilder &nb, EpilogueLike op,
                            typename EpilogueLike::Adaptor adaptor) {
  Location loc = nb.getLoc();
  VectorType values = op.getValues().getType();
  int64_t p = values.getDimSize(0);
  SwigluAttr swiglu = op.getSwigluAttr();
  // The accumulator is the matmul's output: of the swiglu's intermediate
  // type when there is one.
  Type accElement = swiglu ? swiglu.getIntermediate() : op.getElement();
  Value alpha = adaptor.getAlpha();
  if (!isa<VectorType>(alpha.getType()))
    alpha = vector::BroadcastOp::create(nb, values, alpha);
  Value v = arith::MulFOp::create(nb, alpha, adaptor.getValues());
  if (Value bias = adaptor.getBias()) {
    Type biasElement = *op.getBiasElement();
    unsigned biasBytes = biasElement.getIntOrFloatBitWidth() / 8;
    Value at =
        arith::MulIOp::create(nb, adaptor.getColumn(), cIndex(nb, biasBytes));
    Value row = LLVM::LoadOp::create(
        nb, VectorType::get({p}, biasElement), globalAddress(nb, bias, at),
        p * biasBytes, /*isVolatile=*/false, /*isNonTemporal=*/false,
        /*isInvariant=*/true);
    if (!biasElement.isF32())
      row = arith::ExtFOp::create(nb, values, row);
    v = arith::AddFOp::create(nb, v, row);
  }
  if (adaptor.getAcc()) {
    unsigned accBytes = accElement.getIntOrFloatBitWidth() / 8;
    Value offset = arith::MulIOp::create(
        nb,
        arith::AddIOp::create(
            nb,
            arith::MulIOp::create(nb, adaptor.getRow(),
                                  cIndex(nb, op.getRowStride())),
            adaptor.getColumn()),
        cIndex(nb, accBytes));
    Value cin = LLVM::LoadOp::create(
        nb, VectorType::get({p}, accElement),
        globalAddress(nb, adaptor.getAcc(), offset), p * accBytes);
    if (!accElement.isF32())
      cin = arith::ExtFOp::create(nb, values, cin);
    Value beta = arith::ConstantOp::create(
        nb, DenseElementsAttr::get(values, op.getBeta()));
    v = arith::AddFOp::create(nb, v, arith::MulFOp::create(nb, beta, cin));
  }
  if (!swiglu)
    return v;
  // The unfused matmul's rounding to its output type, then the activation
  // of each gate/up pair.
  v = nvfp4::NumericsBuilder(nb, loc, values)
          .roundTo(v, swiglu.getIntermediate());
  nvfp4::NumericsBuilder numerics(nb, loc, nb.getF32Type());
  nvfp4::SwigluParams params;
  params.sigmoidScale = swiglu.getSigmoidScale().getValue().convertToFloat();
  if (FloatAttr limit = swiglu.getLimit())
    params.limit = limit.getValue().convertToFloat();
  params.upOffset = swiglu.getUpOffset().getValue().convertToFloat();
  SmallVector<Value> activated;
  for (int64_t j = 0; j < p / 2; ++j)
    activated.push_back(
        numerics.swiglu(vector::ExtractOp::create(nb, v, 2 * j),
                        vector::ExtractOp::create(nb, v, 2 * j + 1), params));
  return vector::FromElementsOp::create(
      nb, VectorType::get({p / 2}, nb.getF32Type()), activated);
}

/// row < rows and column < columns.
static Value insideBounds(ImplicitLocOpBuilder &b, Value row, Value rows,
                          Value column, Value columns) {
  auto lt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
  };
  return arith::AndIOp::create(b, lt(row, rows), lt(column, columns));
}

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type element = op.getElement();
    unsigned bytes = element.getIntOrFloatBitWidth() / 8;
    Value inside = insideBounds(b, adaptor.getRow(), adaptor.getRows(),
                                adaptor.getColumn(), adaptor.getColumns());
    scf::IfOp::create(b, inside, [&](OpBuilder &nested, Location loc) {
      ImplicitLocOpBuilder nb(loc, nested);
      Value v = epilogueValues(nb, op, adaptor);
      int64_t p = cast<VectorType>(v.getType()).getDimSize(0);
      // A swiglu's output row holds columns/2 elements: [row, column/2].
      int64_t stride = op.getRowStride();
      Value at = adaptor.getColumn();
      if (op.getSwiglu()) {
        stride /= 2;
        at = arith::DivUIOp::create(nb, at, cIndex(nb, 2));
      }
      Value offset = arith::MulIOp::create(
          nb,
          arith::AddIOp::create(
              nb,
              arith::MulIOp::create(nb, adaptor.getRow(), cIndex(nb, stride)),
              at),
          cIndex(nb, bytes));
      if (!element.isF32())
        v = arith::TruncFOp::create(nb, VectorType::get({p}, element), v);
      LLVM::StoreOp::create(nb, v, globalAddress(nb, adaptor.getOut(), offset),
                            p * bytes);
      scf::YieldOp::create(nb);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct EpilogueLowering : OpConversionPattern<EpilogueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EpilogueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    VectorType type = op.getResult().getType();
    Value inside = insideBounds(b, adaptor.getRow(), adaptor.getRows(),
                                adaptor.getColumn(), adaptor.getColumns());
    auto branch = scf::IfOp::create(
        b, inside,
        [&](OpBuilder &nested, Location loc) {
          ImplicitLocOpBuilder nb(loc, nested);
          Value v =
              nvfp4::NumericsBuilder(nb, loc, type)
                  .roundTo(epilogueValues(nb, op, adaptor), op.getElement());
          scf::YieldOp::create(nb, v);
        },
        [&](OpBuilder &nested, Location loc) {
          scf::YieldOp::create(
              nested, loc,
              arith::ConstantOp::create(nested, loc,
                                        DenseElementsAttr::get(type, 0.0f))
                  .getResult());
        });
    rewriter.replaceOp(op, branch.getResult(0));
    return success();
  }
};

struct StoreFp4Lowering : OpConversionPattern<StoreFp4Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreFp4Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    int64_t p = op.getValues().getType().getDimSize(0);
    int64_t columns = op.getColumns();
    Value row = adaptor.getRow(), column = adaptor.getColumn();
    Value inside =
        insideBounds(b, row, adaptor.getRows(), column, cIndex(b, columns));
    scf::IfOp::create(b, inside, [&](OpBuilder &nested, Location loc) {
      ImplicitLocOpBuilder nb(loc, nested);
      nvfp4::NumericsBuilder numerics(nb, loc, nb.getF32Type());
      SmallVector<Value> codes;
      for (int64_t j = 0; j < p; ++j)
        codes.push_back(numerics.e2m1EncodeRNE(
            numerics.mul(vector::ExtractOp::create(nb, adaptor.getValues(), j),
                         adaptor.getEncode())));
      Value packed = numerics.packE2M1(codes);
      Value offset = arith::AddIOp::create(
          nb, arith::MulIOp::create(nb, row, cIndex(nb, columns / 2)),
          arith::DivUIOp::create(nb, column, cIndex(nb, 2)));
      LLVM::StoreOp::create(
          nb, packed, globalAddress(nb, adaptor.getCodes(), offset), p / 2);
      scf::YieldOp::create(nb);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct StoreScaleLowering : OpConversionPattern<StoreScaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    int64_t blocks = op.getBlocks();
    bool swizzled = op.getSwizzled();
    Value row = adaptor.getRow(), block = adaptor.getBlock();
    auto store = [&](OpBuilder &sb, Location sloc, Value r, Value c,
                     Value byte) {
      ImplicitLocOpBuilder ib(sloc, sb);
      Value at =
          swizzled
              ? nvfp4::Swizzled128x4Attr::buildOffset(ib, sloc, r, c, blocks)
              : arith::AddIOp::create(
                    ib, arith::MulIOp::create(ib, r, cIndex(ib, blocks)), c)
                    .getResult();
      LLVM::StoreOp::create(ib, byte,
                            globalAddress(ib, adaptor.getScales(), at), 1);
    };
    auto eq = [&](OpBuilder &eb, Location eloc, Value x, int64_t y) {
      return arith::CmpIOp::create(eb, eloc, arith::CmpIPredicate::eq, x,
                                   arith::ConstantIndexOp::create(eb, eloc, y))
          .getResult();
    };
    int64_t paddedBlocks = nvfp4::Swizzled128x4Attr::colTiles(blocks) *
                           nvfp4::Swizzled128x4Attr::kTileCols;
    Value inside =
        insideBounds(b, row, adaptor.getRows(), block, cIndex(b, blocks));
    scf::IfOp::create(b, inside, [&](OpBuilder &nested, Location loc) {
      ImplicitLocOpBuilder w(loc, nested);
      Value zero = arith::ConstantIntOp::create(w, w.getI8Type(), 0);
      store(w, loc, row, block,
            arith::TruncIOp::create(w, w.getI8Type(), adaptor.getScale()));
      if (swizzled) {
        // Row r's padding columns, with the last block column.
        auto padColumns = [&](OpBuilder &pb, Location ploc, Value r) {
          if (paddedBlocks == blocks)
            return;
          scf::IfOp::create(
              pb, ploc, eq(pb, ploc, block, blocks - 1),
              [&](OpBuilder &cb, Location cloc) {
                for (int64_t c = blocks; c < paddedBlocks; ++c)
                  store(cb, cloc, r,
                        arith::ConstantIndexOp::create(cb, cloc, c), zero);
                scf::YieldOp::create(cb, cloc);
              });
        };
        padColumns(w, loc, row);
        // The padding rows of the last row's 128-row tile.
        Value total = adaptor.getTotalRows();
        Value last = arith::SubIOp::create(w, total, cIndex(w, 1));
        Value isLast =
            arith::CmpIOp::create(w, arith::CmpIPredicate::eq, row, last);
        scf::IfOp::create(w, isLast, [&](OpBuilder &lb, Location lloc) {
          ImplicitLocOpBuilder l(lloc, lb);
          int64_t tileRows = nvfp4::Swizzled128x4Attr::kTileRows;
          Value end = arith::MulIOp::create(
              l,
              arith::DivUIOp::create(
                  l, arith::AddIOp::create(l, total, cIndex(l, tileRows - 1)),
                  cIndex(l, tileRows)),
              cIndex(l, tileRows));
          scf::ForOp::create(
              l, total, end, cIndex(l, 1), ValueRange{},
              [&](OpBuilder &fb, Location floc, Value r, ValueRange) {
                store(fb, floc, r, block, zero);
                padColumns(fb, floc, r);
                scf::YieldOp::create(fb, floc);
              });
          scf::YieldOp::create(l);
        });
      }
      scf::YieldOp::create(w);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::nvfp4k::lowering::populateEpiloguePatterns(const TypeConverter &converter,
    RewritePatternSet &patterns) {
  patterns.add<AlphaLowering, StoreLowering, EpilogueLowering, StoreFp4Lowering,
               StoreScaleLowering>(converter, patterns.getContext());
}
