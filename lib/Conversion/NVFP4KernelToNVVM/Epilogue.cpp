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

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type element = op.getElement();
    VectorType values = op.getValues().getType();
    int64_t p = values.getDimSize(0);
    unsigned bytes = element.getIntOrFloatBitWidth() / 8;
    auto outType = VectorType::get({p}, element);
    auto lt = [&](Value x, Value y) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
    };
    Value inside =
        arith::AndIOp::create(b, lt(adaptor.getRow(), adaptor.getRows()),
                              lt(adaptor.getColumn(), adaptor.getColumns()));
    scf::IfOp::create(b, inside, [&](OpBuilder &nested, Location loc) {
      ImplicitLocOpBuilder nb(loc, nested);
      Value offset = arith::MulIOp::create(
          nb,
          arith::AddIOp::create(
              nb,
              arith::MulIOp::create(nb, adaptor.getRow(),
                                    cIndex(nb, op.getRowStride())),
              adaptor.getColumn()),
          cIndex(nb, bytes));
      Value alpha = adaptor.getAlpha();
      if (!isa<VectorType>(alpha.getType()))
        alpha = vector::BroadcastOp::create(nb, values, alpha);
      Value v = arith::MulFOp::create(nb, alpha, adaptor.getValues());
      if (Value bias = adaptor.getBias()) {
        Type biasElement = *op.getBiasElement();
        unsigned biasBytes = biasElement.getIntOrFloatBitWidth() / 8;
        Value at = arith::MulIOp::create(nb, adaptor.getColumn(),
                                         cIndex(nb, biasBytes));
        Value row = LLVM::LoadOp::create(
            nb, VectorType::get({p}, biasElement), globalAddress(nb, bias, at),
            p * biasBytes, /*isVolatile=*/false, /*isNonTemporal=*/false,
            /*isInvariant=*/true);
        if (!biasElement.isF32())
          row = arith::ExtFOp::create(nb, values, row);
        v = arith::AddFOp::create(nb, v, row);
      }
      if (adaptor.getAcc()) {
        Value cin = LLVM::LoadOp::create(
            nb, outType, globalAddress(nb, adaptor.getAcc(), offset),
            p * bytes);
        if (!element.isF32())
          cin = arith::ExtFOp::create(nb, values, cin);
        Value beta = arith::ConstantOp::create(
            nb, DenseElementsAttr::get(values, op.getBeta()));
        v = arith::AddFOp::create(nb, v, arith::MulFOp::create(nb, beta, cin));
      }
      Value outOffset = offset;
      if (SwigluAttr swiglu = op.getSwigluAttr()) {
        // The unfused matmul's rounding to its output type, then the
        // activation of each gate/up pair into one output of a row of
        // columns/2.
        v = nvfp4::NumericsBuilder(nb, loc, values)
                .roundTo(v, swiglu.getIntermediate());
        nvfp4::NumericsBuilder numerics(nb, loc, nb.getF32Type());
        nvfp4::SwigluParams params;
        params.sigmoidScale =
            swiglu.getSigmoidScale().getValue().convertToFloat();
        if (FloatAttr limit = swiglu.getLimit())
          params.limit = limit.getValue().convertToFloat();
        params.upOffset = swiglu.getUpOffset().getValue().convertToFloat();
        SmallVector<Value> activated;
        for (int64_t j = 0; j < p / 2; ++j)
          activated.push_back(numerics.swiglu(
              vector::ExtractOp::create(nb, v, 2 * j),
              vector::ExtractOp::create(nb, v, 2 * j + 1), params));
        p /= 2;
        v = vector::FromElementsOp::create(
            nb, VectorType::get({p}, nb.getF32Type()), activated);
        outType = VectorType::get({p}, element);
        outOffset = arith::DivUIOp::create(nb, offset, cIndex(nb, 2));
      }
      if (!element.isF32())
        v = arith::TruncFOp::create(nb, outType, v);
      LLVM::StoreOp::create(
          nb, v, globalAddress(nb, adaptor.getOut(), outOffset), p * bytes);
      scf::YieldOp::create(nb);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::nvfp4k::lowering::populateEpiloguePatterns(const TypeConverter &converter,
    RewritePatternSet &patterns) {
  patterns.add<AlphaLowering, StoreLowering>(converter, patterns.getContext());
}
