//===- Matmul.cpp - the portable nvfp4 matmuls on the GPU -----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// One thread per output element: exact products, fp32 sums in K order. The
// baseline every GPU runs; the chip passes replace it where they can.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/BufferizedOpPattern.h"
#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"
#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"
#include "nvfp4/Dialect/NVFP4/Utils/Storage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

//===----------------------------------------------------------------------===//
// Matmuls: one thread per output element (the portable baseline)
//===----------------------------------------------------------------------===//

/// A matmul operand in device memory: packed FP4 values, scales, layout;
/// or bf16/f16 values without scales (a weight-only matmul's activations).
struct DeviceOperand {
  Value values, scales; // `scales` null: plain values
  bool swizzled;
  bool nvfp4;
};

/// sum_k a[ab?, m, k] * b[bb?, n, k] with exact products, fp32 sums, one
/// scale decode per block (B always has scales; its format sets the block).
Value emitDot(OpBuilder &builder, Location loc, const DeviceOperand &a,
              Value ab, Value m, const DeviceOperand &bo, Value bb, Value n,
              int64_t k) {
  ImplicitLocOpBuilder b(loc, builder);
  KernelArith ix(b);
  NumericsBuilder nb(b, loc, b.getF32Type());
  int64_t bs = bo.nvfp4 ? 16 : 32;
  auto loop = scf::ForOp::create(
      b, loc, ix.c(0), ix.c(k / bs), ix.c(1), ValueRange{nb.f32(0.0)},
      [&](OpBuilder &, Location, Value block, ValueRange acc) {
        auto scale = [&](const DeviceOperand &o, Value batch, Value row) {
          if (!o.scales)
            return Value();
          Value byte =
              loadScaleByte(b, loc, o.scales, o.swizzled, batch, row, block);
          return o.nvfp4 ? nb.e4m3Decode(byte) : nb.e8m0Decode(byte);
        };
        auto element = [&](const DeviceOperand &o, Value batch, Value row,
                           Value scale, Value kk) -> Value {
          if (!o.scales) {
            Value v = memref::LoadOp::create(b, loc, o.values,
                                             withBatch(batch, {row, kk}));
            return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
          }
          return nb.mul(
              nb.e2m1Decode(loadCode(b, loc, o.values, batch, row, kk)), scale);
        };
        Value sa = scale(a, ab, m), sb = scale(bo, bb, n);
        Value sum = acc[0];
        Value k0 = ix.mul(block, ix.c(bs));
        for (int64_t i = 0; i < bs; ++i) {
          Value kk = ix.add(k0, ix.c(i));
          sum = nb.add(sum, nb.mul(element(a, ab, m, sa, kk),
                                   element(bo, bb, n, sb, kk)));
        }
        scf::YieldOp::create(b, loc, sum);
      });
  return loop.getResult(0);
}

/// memref[idx] as f32.
Value loadF32(OpBuilder &b, Location loc, Value memref, ValueRange idx) {
  Value v = memref::LoadOp::create(b, loc, memref, idx);
  if (!v.getType().isF32())
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return v;
}

/// bias[group?, col] as f32 (null without a bias).
Value loadBias(OpBuilder &b, Location loc, Value bias, Value group, Value col) {
  if (!bias)
    return Value();
  if (cast<MemRefType>(bias.getType()).getRank() == 2)
    return loadF32(b, loc, bias, {group, col});
  return loadF32(b, loc, bias, {col});
}

/// fl(fl(fl(alpha * dot) + bias) + fl(beta * acc)), rounded to the output
/// type, stored (docs/spec.md 2.7), each term only when given. A null
/// `dot` (rows past masked_m) leaves out the product: fl(bias + fl(beta *
/// acc)), or 0 with neither.
void emitEpilogue(OpBuilder &b, Location loc, Value dot, Value alpha,
                  Value bias, Value acc, float beta, Value out,
                  ArrayRef<Value> idx) {
  NumericsBuilder nb(b, loc, b.getF32Type());
  Value v = nb.sumGiven(
      {dot ? nb.mul(alpha, dot) : Value(), bias,
       acc ? nb.mul(nb.f32(beta), loadF32(b, loc, acc, idx)) : Value()});
  Type element = cast<MemRefType>(out.getType()).getElementType();
  if (!element.isF32())
    v = arith::TruncFOp::create(b, loc, element, v);
  memref::StoreOp::create(b, loc, v, out, idx);
}

DeviceOperand deviceOperand(Value values, Value scales, Value origScales,
                            unsigned batchRank) {
  if (!origScales)
    return {values, Value(), false, false};
  auto type = cast<ShapedType>(origScales.getType());
  return {values, scales, isSwizzledScales(type, batchRank),
          isa<Float8E4M3FNType>(type.getElementType())};
}

struct MatmulToGPU : BufferizedOpPattern<MatmulOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(MatmulOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    KernelArith ix(b);
    auto outType = cast<ShapedType>(op.getOut().getType());
    int64_t m = outType.getDimSize(0), n = outType.getDimSize(1);
    int64_t k = cast<ShapedType>(op.getA().getType()).getDimSize(1);
    DeviceOperand a =
        deviceOperand(adaptor.getA(), adaptor.getAScales(), op.getAScales(), 0);
    DeviceOperand bo =
        deviceOperand(adaptor.getB(), adaptor.getBScales(), op.getBScales(), 0);
    float beta = op.getBeta().convertToFloat();
    launchLinear(b, loc, m * n, [&](Value linear) {
      SmallVector<Value> id = ix.delinearize(linear, {m, n});
      Value dot = emitDot(b, loc, a, Value(), id[0], bo, Value(), id[1], k);
      AlphaOperands operands{adaptor.getADecodeScale(),
                             adaptor.getBDecodeScale(), adaptor.getAlpha(),
                             /*grouped=*/false};
      Value alpha = operands.load(b, loc, Value(), id[0], id[1]);
      emitEpilogue(b, loc, dot, alpha,
                   loadBias(b, loc, adaptor.getBias(), Value(), id[1]),
                   adaptor.getAcc(), beta, adaptor.getOut(), id);
    });
    return success();
  }
};

struct GroupedMatmulToGPU : BufferizedOpPattern<GroupedMatmulOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(GroupedMatmulOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    KernelArith ix(b);
    float beta = op.getBeta().convertToFloat();
    Value acc0 = adaptor.getAcc().empty() ? Value() : adaptor.getAcc().front();
    AlphaOperands operands{adaptor.getADecodeScale(),
                           adaptor.getBDecodeScale(), adaptor.getAlpha(),
                           /*grouped=*/true};
    auto alphaOf = [&](Value group) {
      return operands.load(b, loc, group, Value(), Value());
    };
    switch (op.getGrouping()) {
    case Grouping::independent:
      for (int64_t g = 0, e = op.getA().size(); g < e; ++g) {
        auto outType = cast<ShapedType>(op.getOuts()[g].getType());
        int64_t m = outType.getDimSize(0), n = outType.getDimSize(1);
        int64_t k = cast<ShapedType>(op.getA()[g].getType()).getDimSize(1);
        DeviceOperand a = deviceOperand(adaptor.getA()[g],
                                        groupAScales(adaptor.getAScales(), g),
                                        groupAScales(op.getAScales(), g), 0);
        DeviceOperand bo = deviceOperand(
            adaptor.getB()[g], adaptor.getBScales()[g], op.getBScales()[g], 0);
        Value acc = adaptor.getAcc().empty() ? Value() : adaptor.getAcc()[g];
        launchLinear(b, loc, m * n, [&](Value linear) {
          SmallVector<Value> id = ix.delinearize(linear, {m, n});
          Value dot = emitDot(b, loc, a, Value(), id[0], bo, Value(), id[1], k);
          emitEpilogue(b, loc, dot, alphaOf(ix.c(g)), Value(), acc, beta,
                       adaptor.getOuts()[g], id);
        });
      }
      return success();
    case Grouping::contiguous: {
      auto bType = cast<ShapedType>(op.getB().front().getType());
      int64_t groups = bType.getDimSize(0), n = bType.getDimSize(1),
              k = bType.getDimSize(2);
      int64_t rows =
          cast<ShapedType>(op.getA().front().getType()).getDimSize(0);
      DeviceOperand a =
          deviceOperand(adaptor.getA().front(), groupAScales(adaptor.getAScales()),
                        groupAScales(op.getAScales()), 0);
      DeviceOperand bo =
          deviceOperand(adaptor.getB().front(), adaptor.getBScales().front(),
                        op.getBScales().front(), 1);
      Value offsets = adaptor.getGroupOffsets();
      launchLinear(b, loc, rows * n, [&](Value linear) {
        SmallVector<Value> id = ix.delinearize(linear, {rows, n});
        Value m = id[0];
        // The group owning row m: the last g whose rows hold it.
        auto scan = scf::ForOp::create(
            b, loc, ix.c(0), ix.c(groups), ix.c(1), ValueRange{ix.c(-1)},
            [&](OpBuilder &, Location, Value g, ValueRange found) {
              GroupRowRange range = groupRowRange(
                  b, loc, Grouping::contiguous, g, rows,
                  [&](Value i) { return ix.loadIndex(offsets, {i}); });
              Value owns = arith::AndIOp::create(b, loc, ix.le(range.begin, m),
                                                 ix.lt(m, range.end));
              scf::YieldOp::create(b, loc,
                                   ValueRange{arith::SelectOp::create(
                                       b, loc, owns, g, found[0])});
            });
        Value g = scan.getResult(0);
        scf::IfOp::create(
            b, loc, ix.le(ix.c(0), g), [&](OpBuilder &, Location) {
              Value dot = emitDot(b, loc, a, Value(), m, bo, g, id[1], k);
              emitEpilogue(b, loc, dot, alphaOf(g),
                           loadBias(b, loc, adaptor.getBias(), g, id[1]), acc0,
                           beta, adaptor.getOuts().front(), id);
              scf::YieldOp::create(b, loc);
            });
      });
      return success();
    }
    case Grouping::masked: {
      auto bType = cast<ShapedType>(op.getB().front().getType());
      int64_t groups = bType.getDimSize(0), n = bType.getDimSize(1),
              k = bType.getDimSize(2);
      int64_t maxM =
          cast<ShapedType>(op.getA().front().getType()).getDimSize(1);
      DeviceOperand a =
          deviceOperand(adaptor.getA().front(), groupAScales(adaptor.getAScales()),
                        groupAScales(op.getAScales()), 1);
      DeviceOperand bo =
          deviceOperand(adaptor.getB().front(), adaptor.getBScales().front(),
                        op.getBScales().front(), 1);
      Value out = adaptor.getOuts().front();
      launchLinear(b, loc, groups * maxM * n, [&](Value linear) {
        SmallVector<Value> id = ix.delinearize(linear, {groups, maxM, n});
        Value g = id[0], m = id[1], col = id[2];
        Value valid =
            groupRowRange(b, loc, Grouping::masked, g, maxM, [&](Value i) {
              return ix.loadIndex(adaptor.getMaskedM(), {i});
            }).end;
        scf::IfOp::create(
            b, loc, ix.lt(m, valid),
            [&](OpBuilder &, Location) {
              Value dot = emitDot(b, loc, a, g, m, bo, g, col, k);
              emitEpilogue(b, loc, dot, alphaOf(g),
                           loadBias(b, loc, adaptor.getBias(), g, col), acc0,
                           beta, out, id);
              scf::YieldOp::create(b, loc);
            },
            [&](OpBuilder &, Location) {
              // Rows past masked_m: A's rows take no part.
              emitEpilogue(b, loc, Value(), Value(),
                           loadBias(b, loc, adaptor.getBias(), g, col), acc0,
                           beta, out, id);
              scf::YieldOp::create(b, loc);
            });
      });
      return success();
    }
    }
    return failure();
  }
};

} // namespace

void mlir::nvfp4::populateMatmulToGPUPatterns(const TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<MatmulToGPU, GroupedMatmulToGPU>(converter,
                                                patterns.getContext());
}
