//===- NVFP4ToSCF.cpp - nvfp4 ops to loops (CPU reference) -----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// The CPU reference execution: bufferized nvfp4 ops become scf loops over the
// byte storage of their operands. Quantize is bit-exact by construction (it
// emits the shared Codegen bodies); matmuls dequantize both operands exactly
// to fp32 and accumulate 16-wide vector dot products in fp32.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToSCF/NVFP4ToSCF.h"
#include "nvfp4/Conversion/BufferizedOpPattern.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"
#include "nvfp4/Dialect/NVFP4/Utils/Storage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4TOSCF
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// for (iv = lb; iv < ub; iv += step) body(iv)
void forLoop(OpBuilder &b, Location loc, Value lb, Value ub, int64_t step,
             function_ref<void(Value)> body) {
  scf::ForOp::create(b, loc, lb, ub, indexConst(b, loc, step), ValueRange{},
                     [&](OpBuilder &, Location, Value iv, ValueRange) {
                       body(iv);
                       scf::YieldOp::create(b, loc);
                     });
}
void forLoop(OpBuilder &b, Location loc, int64_t lb, int64_t ub,
             function_ref<void(Value)> body) {
  forLoop(b, loc, indexConst(b, loc, lb), indexConst(b, loc, ub), 1, body);
}

/// Runs `body(batch)` once per batch entry (`batch` null when unbatched).
void forEachBatch(OpBuilder &b, Location loc, bool batched, int64_t batch,
                  function_ref<void(Value)> body) {
  if (!batched)
    return body(Value());
  forLoop(b, loc, 0, batch, body);
}

Value loadF32(OpBuilder &b, Location loc, Value memref, ValueRange indices) {
  Value v = memref::LoadOp::create(b, loc, memref, indices);
  if (!v.getType().isF32())
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return v;
}

/// Stores an f32 value rounded (RNE) to the memref's element type.
void storeRounded(OpBuilder &b, Location loc, Value v, Value memref,
                  ValueRange indices) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  if (element != v.getType())
    v = arith::TruncFOp::create(b, loc, element, v);
  memref::StoreOp::create(b, loc, v, memref, indices);
}

Value loadIndex(OpBuilder &b, Location loc, Value memref, ValueRange indices) {
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, memref, indices));
}

/// A matmul operand in byte storage: FP4 codes with their scales, or
/// bf16/f16 values without scales (the activations of a weight-only
/// matmul).
struct QuantOperand {
  Value values, scales; // `scales` null: plain values
  bool swizzled;
  Type scaleType; // f8E4M3FN (nvfp4) or f8E8M0FNU (mxfp4)
};

/// dst[r, k] = e2m1(q[batch, r, k]) * scale(batch, r, k / bs) for r in
/// [0, rows): exact in fp32 (no decode scale; it goes into alpha). Plain
/// values are copied, widened to fp32 (exact).
void dequantizeRows(OpBuilder &b, Location loc, const QuantOperand &q,
                    Value batch, Value rows, int64_t k, Value dst) {
  if (!q.scales) {
    forLoop(b, loc, indexConst(b, loc, 0), rows, 1, [&](Value r) {
      forLoop(b, loc, 0, k, [&](Value kk) {
        memref::StoreOp::create(
            b, loc, loadF32(b, loc, q.values, withBatch(batch, {r, kk})), dst,
            ValueRange{r, kk});
      });
    });
    return;
  }
  NumericsBuilder nb(b, loc, b.getF32Type());
  int64_t bs = getBlockWidth(q.scaleType);
  bool nvfp4 = isa<Float8E4M3FNType>(q.scaleType);
  forLoop(b, loc, indexConst(b, loc, 0), rows, 1, [&](Value r) {
    forLoop(b, loc, indexConst(b, loc, 0), indexConst(b, loc, k), 1,
            [&](Value kk) {
              Value code = loadCode(b, loc, q.values, batch, r, kk);
              Value col = arith::DivUIOp::create(b, loc, kk,
                                                 indexConst(b, loc, bs));
              Value byte =
                  loadScaleByte(b, loc, q.scales, q.swizzled, batch, r, col);
              Value scale =
                  nvfp4 ? nb.e4m3Decode(byte) : nb.e8m0Decode(byte);
              memref::StoreOp::create(
                  b, loc, nb.mul(nb.e2m1Decode(code), scale), dst,
                  ValueRange{r, kk});
            });
  });
}

/// Output rows [mLo, mHi) of one (group's) product:
///   out[batch?, m, n] = round(fl(fl(alpha * dot(aHat[m], bHat[n]))
///                                + bias[group?, n])
///                             + fl(beta * acc[batch?, m, n]))
/// aHat/bHat are dequantized fp32 [rows, K]; dot products run 16 lanes wide
/// (fp32 sums in lane order, then a lane reduction).
struct GemmEpilogue {
  Value out, acc; // byte-storage memrefs; `acc` may be null
  Value batch;    // leading index of out/acc, or null
  Value alpha;    // the group's alpha_eff, or null when per element
  float beta;
  AlphaOperands perElement; // alpha_eff[m, n] (row-scaled operands)
  Value bias, biasRow;      // the bias (or null) and its group index (or null)

  /// fl(v + bias[n]) (v without a bias).
  Value addBias(OpBuilder &b, Location loc, Value v, Value col) const {
    if (!bias)
      return v;
    NumericsBuilder nb(b, loc, b.getF32Type());
    return nb.add(v, loadF32(b, loc, bias, withBatch(biasRow, {col})));
  }
};

/// The epilogue of a group whose alpha_eff is `operands` at `group`: one
/// value loaded here, or one per output when an operand is row-scaled.
GemmEpilogue gemmEpilogue(OpBuilder &b, Location loc, Value out, Value acc,
                          Value batch, const AlphaOperands &operands,
                          Value group, float beta, Value bias = Value()) {
  Value biasRow =
      bias && cast<ShapedType>(bias.getType()).getRank() == 2 ? group : Value();
  if (operands.perElement())
    return {out, acc, batch, Value(), beta, operands, bias, biasRow};
  return {out,  acc, batch, operands.load(b, loc, group, Value(), Value()),
          beta, {},  bias,  biasRow};
}

void emitGemmRows(OpBuilder &b, Location loc, Value aHat, Value bHat, Value mLo,
                  Value mHi, int64_t n, int64_t k, const GemmEpilogue &e) {
  NumericsBuilder nb(b, loc, b.getF32Type());
  auto vecType = VectorType::get({kChunk}, b.getF32Type());
  // Walk N in blocks so a block of bHat rows stays in cache across all m.
  const int64_t nBlock = 32;
  Value nEnd = indexConst(b, loc, n);
  forLoop(b, loc, indexConst(b, loc, 0), nEnd, nBlock, [&](Value n0) {
    Value n1 = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, n0, indexConst(b, loc, nBlock)),
        nEnd);
    forLoop(b, loc, mLo, mHi, 1, [&](Value m) {
      forLoop(b, loc, n0, n1, 1, [&](Value col) {
        Value zero = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(vecType, b.getF32FloatAttr(0)));
        auto dot = scf::ForOp::create(
            b, loc, indexConst(b, loc, 0), indexConst(b, loc, k),
            indexConst(b, loc, kChunk), ValueRange{zero},
            [&](OpBuilder &, Location, Value kk, ValueRange acc) {
              Value av = vector::LoadOp::create(b, loc, vecType, aHat,
                                                ValueRange{m, kk});
              Value bv = vector::LoadOp::create(b, loc, vecType, bHat,
                                                ValueRange{col, kk});
              scf::YieldOp::create(
                  b, loc,
                  ValueRange{vector::FMAOp::create(b, loc, av, bv, acc[0])});
            });
        Value sum = vector::ReductionOp::create(
            b, loc, vector::CombiningKind::ADD, dot.getResult(0));
        SmallVector<Value> idx = withBatch(e.batch, {m, col});
        Value alpha = e.alpha ? e.alpha
                              : e.perElement.load(b, loc, Value(), m, col);
        Value v = e.addBias(b, loc, nb.mul(alpha, sum), col);
        if (e.acc)
          v = nb.add(v, nb.mul(nb.f32(e.beta), loadF32(b, loc, e.acc, idx)));
        storeRounded(b, loc, v, e.out, idx);
      });
    });
  });
}

/// Rows [mLo, mHi) of the output where A's rows do not take part (masked
/// groups): fl(bias + fl(beta * acc)), each term only when given, or 0.
void emitZeroRows(OpBuilder &b, Location loc, Value mLo, Value mHi, int64_t n,
                  const GemmEpilogue &e) {
  NumericsBuilder nb(b, loc, b.getF32Type());
  forLoop(b, loc, mLo, mHi, 1, [&](Value m) {
    forLoop(b, loc, 0, n, [&](Value col) {
      SmallVector<Value> idx = withBatch(e.batch, {m, col});
      Value bias = e.bias ? loadF32(b, loc, e.bias, withBatch(e.biasRow, {col}))
                          : Value();
      Value acc =
          e.acc ? nb.mul(nb.f32(e.beta), loadF32(b, loc, e.acc, idx)) : Value();
      storeRounded(b, loc, nb.sumGiven({bias, acc}), e.out, idx);
    });
  });
}

Value allocF32(OpBuilder &b, Location loc, int64_t rows, int64_t cols) {
  return memref::AllocOp::create(
      b, loc, MemRefType::get({rows, cols}, b.getF32Type()),
      b.getI64IntegerAttr(64));
}

/// Scale layout and format of an operand of the (bufferized) op; null
/// scales for bf16/f16 activations.
QuantOperand quantOperand(Value values, Value scales, Value origScales,
                          unsigned batchRank) {
  if (!origScales)
    return {values, Value(), false, Type()};
  auto type = cast<ShapedType>(origScales.getType());
  return {values, scales, isSwizzledScales(type, batchRank),
          type.getElementType()};
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct QuantizeLowering : BufferizedOpPattern<QuantizeOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(QuantizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    QuantizeSpec spec = QuantizeSpec::get(op);
    ValueRange outs = adaptor.getOuts();
    QuantizeCodegen cg(rewriter, loc, spec, adaptor.getInput(), outs[0],
                       outs[1], adaptor.getSeed());
    // The swizzled layout's padding must read as zero.
    if (spec.swizzled)
      fillZeros(rewriter, loc, outs[1]);
    forEachBatch(rewriter, loc, spec.batched, spec.batch, [&](Value batch) {
      // Row-scaled: every row is a one-row tensor with its own scales.
      if (spec.rowScaled) {
        forLoop(rewriter, loc, 0, spec.rows, [&](Value row) {
          SmallVector<Value> idx = withBatch(batch, {row});
          Value amax =
              adaptor.getAmax()
                  ? memref::LoadOp::create(rewriter, loc, adaptor.getAmax(),
                                           idx)
                        .getResult()
                  : cg.emitRowAmax(batch, row,
                                   NumericsBuilder(rewriter, loc,
                                                   rewriter.getF32Type())
                                       .f32(0.0));
          TensorScales scales = cg.tensorScales(amax);
          memref::StoreOp::create(rewriter, loc, scales.decodeScale, outs[2],
                                  idx);
          forLoop(rewriter, loc, 0, spec.scaleCols(), [&](Value blockCol) {
            cg.emitTile(batch, row, blockCol, scales);
          });
        });
        return;
      }
      TensorScales scales;
      if (spec.hasGivenScale()) {
        // A calibrated scale: no amax loop.
        Value given = adaptor.getEncodeScale() ? adaptor.getEncodeScale()
                                               : adaptor.getDecodeScale();
        scales = cg.givenScales(
            memref::LoadOp::create(rewriter, loc, given, withBatch(batch, {})));
        memref::StoreOp::create(rewriter, loc, scales.decodeScale, outs[2],
                                withBatch(batch, {}));
      } else if (spec.isNVFP4()) {
        Value amax = adaptor.getAmax()
                         ? memref::LoadOp::create(rewriter, loc,
                                                  adaptor.getAmax(),
                                                  withBatch(batch, {}))
                               .getResult()
                         : cg.emitTensorAmax(batch);
        scales = cg.tensorScales(amax);
        memref::StoreOp::create(rewriter, loc, scales.decodeScale, outs[2],
                                withBatch(batch, {}));
      }
      forLoop(rewriter, loc, 0, spec.numTileRows(), [&](Value tileRow) {
        forLoop(rewriter, loc, 0, spec.scaleCols(), [&](Value blockCol) {
          cg.emitTile(batch, tileRow, blockCol, scales);
        });
      });
    });
    return success();
  }
};

struct DequantizeLowering : BufferizedOpPattern<DequantizeOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(DequantizeOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getValues().getType());
    bool batched = type.getRank() == 3;
    int64_t rows = type.getDimSize(type.getRank() - 2);
    int64_t k = type.getShape().back();
    QuantOperand q = quantOperand(adaptor.getValues(), adaptor.getScales(),
                                  op.getScales(), batched ? 1 : 0);
    int64_t bs = getBlockWidth(q.scaleType);
    bool nvfp4 = isa<Float8E4M3FNType>(q.scaleType);
    forEachBatch(rewriter, loc, batched, batched ? type.getDimSize(0) : 1,
                 [&](Value batch) {
      NumericsBuilder nb(rewriter, loc, rewriter.getF32Type());
      // The tensor's (batch entry's) decode scale, or each row's.
      Value decode = adaptor.getDecodeScale();
      bool perRow = decode && isPerRowDecodeScale(decode, batched);
      auto loadDecode = [&](Value r) -> Value {
        return memref::LoadOp::create(rewriter, loc, decode,
                                      decodeScaleIndices(decode, batch, r));
      };
      Value tensorDec = decode && !perRow ? loadDecode(Value()) : Value();
      forLoop(rewriter, loc, 0, rows, [&](Value r) {
        Value sDec = perRow ? loadDecode(r) : tensorDec;
        forLoop(rewriter, loc, 0, k, [&](Value kk) {
          Value code = loadCode(rewriter, loc, q.values, batch, r, kk);
          Value col = arith::DivUIOp::create(rewriter, loc, kk,
                                             indexConst(rewriter, loc, bs));
          Value byte = loadScaleByte(rewriter, loc, q.scales, q.swizzled,
                                     batch, r, col);
          // Spec 2.2: fl(fl(e2m1 * sf) * S_dec).
          Value v = nb.mul(nb.e2m1Decode(code),
                           nvfp4 ? nb.e4m3Decode(byte) : nb.e8m0Decode(byte));
          if (sDec)
            v = nb.mul(v, sDec);
          storeRounded(rewriter, loc, v, adaptor.getOut(),
                       withBatch(batch, {r, kk}));
        });
      });
    });
    return success();
  }
};

struct SwigluLowering : BufferizedOpPattern<SwigluOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(SwigluOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape =
        cast<ShapedType>(op.getOut().getType()).getShape();
    SwigluParams params = op.getParams();
    // One loop per output dimension; the last one reads columns 2n, 2n+1.
    SmallVector<Value> indices;
    std::function<void()> nest = [&]() {
      if (indices.size() < shape.size())
        return forLoop(rewriter, loc, 0, shape[indices.size()], [&](Value iv) {
          indices.push_back(iv);
          nest();
          indices.pop_back();
        });
      SmallVector<Value> at(indices);
      Value two = indexConst(rewriter, loc, 2);
      at.back() = arith::MulIOp::create(rewriter, loc, indices.back(), two);
      Value gate = loadF32(rewriter, loc, adaptor.getInput(), at);
      at.back() = arith::AddIOp::create(rewriter, loc, at.back(),
                                        indexConst(rewriter, loc, 1));
      Value up = loadF32(rewriter, loc, adaptor.getInput(), at);
      NumericsBuilder nb(rewriter, loc, rewriter.getF32Type());
      storeRounded(rewriter, loc, nb.swiglu(gate, up, params), adaptor.getOut(),
                   indices);
    };
    nest();
    return success();
  }
};

struct MoERouteLowering : BufferizedOpPattern<MoERouteOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(MoERouteOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    ArrayRef<int64_t> shape =
        cast<ShapedType>(op.getIds().getType()).getShape();
    int64_t topK = shape[1], numExperts = op.getNumExperts();
    Value ids = adaptor.getIds(), sorted = adaptor.getOuts()[0],
          pairRows = adaptor.getOuts()[1], offsets = adaptor.getOuts()[2];
    auto i32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, b.getI32Type(), v);
    };
    auto toIndex = [&](Value v) -> Value {
      return arith::IndexCastOp::create(b, b.getIndexType(), v);
    };
    auto forEachPair = [&](function_ref<void(Value, Value, MoERouteKey)> body) {
      forLoop(b, loc, 0, shape[0], [&](Value t) {
        forLoop(b, loc, 0, topK, [&](Value s) {
          Value id = memref::LoadOp::create(b, ids, ValueRange{t, s});
          body(t, s, moeRouteKey(b, loc, id, numExperts));
        });
      });
    };
    // A counting sort: offsets[e + 1] counts expert e's pairs, the prefix
    // sum makes offsets[e] the first row of expert e, which then serves as
    // its cursor while the pairs are placed in order (stable); the cursors
    // end one expert on and are shifted back.
    fillZeros(b, loc, offsets);
    forEachPair([&](Value, Value, MoERouteKey key) {
      Value at = toIndex(arith::AddIOp::create(b, key.expert, i32(1)));
      Value n = memref::LoadOp::create(b, offsets, at);
      memref::StoreOp::create(b, arith::AddIOp::create(b, n, i32(1)), offsets,
                              at);
    });
    forLoop(b, loc, 1, numExperts + 1, [&](Value e) {
      Value prev = arith::SubIOp::create(b, e, indexConst(b, loc, 1));
      Value sum =
          arith::AddIOp::create(b, memref::LoadOp::create(b, offsets, e),
                                memref::LoadOp::create(b, offsets, prev));
      memref::StoreOp::create(b, sum, offsets, e);
    });
    forEachPair([&](Value t, Value s, MoERouteKey key) {
      Value at = toIndex(key.expert);
      Value row = memref::LoadOp::create(b, offsets, at);
      memref::StoreOp::create(b, arith::AddIOp::create(b, row, i32(1)), offsets,
                              at);
      Value pair = arith::AddIOp::create(
          b, arith::MulIOp::create(b, t, indexConst(b, loc, topK)), s);
      memref::StoreOp::create(
          b, arith::IndexCastOp::create(b, b.getI32Type(), pair), sorted,
          toIndex(row));
      memref::StoreOp::create(
          b, arith::SelectOp::create(b, key.kept, row, i32(-1)), pairRows,
          ValueRange{t, s});
    });
    forLoop(b, loc, 0, numExperts, [&](Value j) {
      Value e = arith::SubIOp::create(b, indexConst(b, loc, numExperts), j);
      Value prev = arith::SubIOp::create(b, e, indexConst(b, loc, 1));
      memref::StoreOp::create(b, memref::LoadOp::create(b, offsets, prev),
                              offsets, e);
    });
    memref::StoreOp::create(b, i32(0), offsets, indexConst(b, loc, 0));
    return success();
  }
};

struct MoEDispatchLowering : BufferizedOpPattern<MoEDispatchOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(MoEDispatchOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    auto out = cast<MemRefType>(op.getOut().getType());
    int64_t pairs = out.getDimSize(0), topK = op.getTopK();
    Value zero =
        arith::ConstantOp::create(b, b.getZeroAttr(out.getElementType()));
    forLoop(b, loc, 0, pairs, [&](Value r) {
      MoEDispatchSource src = moeDispatchSource(
          b, loc, memref::LoadOp::create(b, adaptor.getSortedPairs(), r), pairs,
          topK);
      forLoop(b, loc, 0, out.getDimSize(1), [&](Value h) {
        Value v = memref::LoadOp::create(b, adaptor.getInput(),
                                         ValueRange{src.token, h});
        memref::StoreOp::create(b,
                                arith::SelectOp::create(b, src.inside, v, zero),
                                adaptor.getOut(), ValueRange{r, h});
      });
    });
    return success();
  }
};

struct MoECombineLowering : BufferizedOpPattern<MoECombineOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(MoECombineOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ImplicitLocOpBuilder b(loc, rewriter);
    auto out = cast<MemRefType>(op.getOut().getType());
    int64_t rows = cast<ShapedType>(op.getInput().getType()).getDimSize(0);
    int64_t topK = cast<ShapedType>(op.getPairRows().getType()).getDimSize(1);
    NumericsBuilder nb(b, loc, b.getF32Type());
    forLoop(b, loc, 0, out.getDimSize(0), [&](Value t) {
      forLoop(b, loc, 0, out.getDimSize(1), [&](Value h) {
        auto sum = scf::ForOp::create(
            b, indexConst(b, loc, 0), indexConst(b, loc, topK),
            indexConst(b, loc, 1), ValueRange{nb.f32(0.0)},
            [&](OpBuilder &, Location, Value s, ValueRange acc) {
              Value weight =
                  loadF32(b, loc, adaptor.getWeights(), ValueRange{t, s});
              MoECombinePair pair = moeCombinePair(
                  b, loc,
                  memref::LoadOp::create(b, adaptor.getPairRows(),
                                         ValueRange{t, s}),
                  weight, rows);
              Value y =
                  loadF32(b, loc, adaptor.getInput(), ValueRange{pair.row, h});
              scf::YieldOp::create(
                  b, moeCombineStep(nb, acc[0], weight, y, pair.include,
                                    op.getProductType().value_or(Type())));
            });
        storeRounded(b, loc, sum.getResult(0), adaptor.getOut(),
                     ValueRange{t, h});
      });
    });
    return success();
  }
};

struct SwizzleLowering : BufferizedOpPattern<SwizzleScalesOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(SwizzleScalesOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getInput().getType());
    bool batched = type.getRank() == 3;
    fillZeros(rewriter, loc, adaptor.getOut());
    forEachBatch(rewriter, loc, batched, batched ? type.getDimSize(0) : 1,
                 [&](Value batch) {
      forLoop(rewriter, loc, 0, type.getDimSize(type.getRank() - 2),
              [&](Value r) {
        forLoop(rewriter, loc, 0, type.getShape().back(), [&](Value c) {
          Value byte = memref::LoadOp::create(rewriter, loc, adaptor.getInput(),
                                              withBatch(batch, {r, c}));
          memref::StoreOp::create(
              rewriter, loc, byte, adaptor.getOut(),
              scaleIndices(rewriter, loc, /*swizzled=*/true, batch, r, c));
        });
      });
    });
    return success();
  }
};

struct UnswizzleLowering : BufferizedOpPattern<UnswizzleScalesOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(UnswizzleScalesOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<ShapedType>(op.getOut().getType());
    bool batched = type.getRank() == 3;
    forEachBatch(rewriter, loc, batched, batched ? type.getDimSize(0) : 1,
                 [&](Value batch) {
      forLoop(rewriter, loc, 0, type.getDimSize(type.getRank() - 2),
              [&](Value r) {
        forLoop(rewriter, loc, 0, type.getShape().back(), [&](Value c) {
          Value byte = memref::LoadOp::create(
              rewriter, loc, adaptor.getInput(),
              scaleIndices(rewriter, loc, /*swizzled=*/true, batch, r, c));
          memref::StoreOp::create(rewriter, loc, byte, adaptor.getOut(),
                                  withBatch(batch, {r, c}));
        });
      });
    });
    return success();
  }
};

struct MatmulLowering : BufferizedOpPattern<MatmulOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(MatmulOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = cast<ShapedType>(op.getA().getType());
    auto bType = cast<ShapedType>(op.getB().getType());
    int64_t m = aType.getDimSize(0), n = bType.getDimSize(0),
            k = aType.getDimSize(1);
    Value aHat = allocF32(rewriter, loc, m, k);
    Value bHat = allocF32(rewriter, loc, n, k);
    dequantizeRows(rewriter, loc,
                   quantOperand(adaptor.getA(), adaptor.getAScales(),
                                op.getAScales(), 0),
                   Value(), indexConst(rewriter, loc, m), k, aHat);
    dequantizeRows(rewriter, loc,
                   quantOperand(adaptor.getB(), adaptor.getBScales(),
                                op.getBScales(), 0),
                   Value(), indexConst(rewriter, loc, n), k, bHat);
    AlphaOperands alpha{adaptor.getADecodeScale(), adaptor.getBDecodeScale(),
                        adaptor.getAlpha(), /*grouped=*/false};
    GemmEpilogue e = gemmEpilogue(
        rewriter, loc, adaptor.getOut(), adaptor.getAcc(), Value(), alpha,
        Value(), op.getBeta().convertToFloat(), adaptor.getBias());
    emitGemmRows(rewriter, loc, aHat, bHat, indexConst(rewriter, loc, 0),
                 indexConst(rewriter, loc, m), n, k, e);
    memref::DeallocOp::create(rewriter, loc, aHat);
    memref::DeallocOp::create(rewriter, loc, bHat);
    return success();
  }
};

struct GroupedMatmulLowering : BufferizedOpPattern<GroupedMatmulOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(GroupedMatmulOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    switch (op.getGrouping()) {
    case Grouping::independent:
      lowerIndependent(op, adaptor, rewriter);
      break;
    case Grouping::contiguous:
    case Grouping::masked:
      lowerStacked(op, adaptor, rewriter);
      break;
    }
    return success();
  }

  static AlphaOperands alphaOperands(OpAdaptor adaptor) {
    return {adaptor.getADecodeScale(), adaptor.getBDecodeScale(),
            adaptor.getAlpha(), /*grouped=*/true};
  }

  void lowerIndependent(GroupedMatmulOp op, OpAdaptor adaptor,
                        ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    float beta = op.getBeta().convertToFloat();
    for (int64_t g = 0, e = op.getA().size(); g < e; ++g) {
      auto aType = cast<ShapedType>(op.getA()[g].getType());
      auto bType = cast<ShapedType>(op.getB()[g].getType());
      int64_t m = aType.getDimSize(0), n = bType.getDimSize(0),
              k = aType.getDimSize(1);
      Value aHat = allocF32(rewriter, loc, m, k);
      Value bHat = allocF32(rewriter, loc, n, k);
      dequantizeRows(rewriter, loc,
                     quantOperand(adaptor.getA()[g], groupAScales(adaptor.getAScales(), g),
                                  groupAScales(op.getAScales(), g), 0),
                     Value(), indexConst(rewriter, loc, m), k, aHat);
      dequantizeRows(rewriter, loc,
                     quantOperand(adaptor.getB()[g], adaptor.getBScales()[g],
                                  op.getBScales()[g], 0),
                     Value(), indexConst(rewriter, loc, n), k, bHat);
      GemmEpilogue epi = gemmEpilogue(
          rewriter, loc, adaptor.getOuts()[g],
          adaptor.getAcc().empty() ? Value() : adaptor.getAcc()[g], Value(),
          alphaOperands(adaptor), indexConst(rewriter, loc, g), beta);
      emitGemmRows(rewriter, loc, aHat, bHat, indexConst(rewriter, loc, 0),
                   indexConst(rewriter, loc, m), n, k, epi);
      memref::DeallocOp::create(rewriter, loc, aHat);
      memref::DeallocOp::create(rewriter, loc, bHat);
    }
  }

  /// contiguous: A [S, K] shared by all groups, group g owns the rows
  /// [off[g], off[g+1]); masked: A [G, maxM, K], group g owns its first
  /// masked_m[g] rows and the rest of its output is beta * acc (or 0).
  void lowerStacked(GroupedMatmulOp op, OpAdaptor adaptor,
                    ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    bool masked = op.getGrouping() == Grouping::masked;
    auto aType = cast<ShapedType>(op.getA().front().getType());
    auto bType = cast<ShapedType>(op.getB().front().getType());
    int64_t groups = bType.getDimSize(0), n = bType.getDimSize(1),
            k = bType.getDimSize(2);
    int64_t rows = aType.getDimSize(aType.getRank() - 2);
    QuantOperand a =
        quantOperand(adaptor.getA().front(), groupAScales(adaptor.getAScales()),
                     groupAScales(op.getAScales()), masked ? 1 : 0);
    QuantOperand b = quantOperand(adaptor.getB().front(),
                                  adaptor.getBScales().front(),
                                  op.getBScales().front(), 1);
    Value aHat = allocF32(rewriter, loc, rows, k);
    Value bHat = allocF32(rewriter, loc, n, k);
    Value zero = indexConst(rewriter, loc, 0);
    Value rowCount = indexConst(rewriter, loc, rows);
    if (!masked)
      dequantizeRows(rewriter, loc, a, Value(), rowCount, k, aHat);
    float beta = op.getBeta().convertToFloat();
    Value acc = adaptor.getAcc().empty() ? Value() : adaptor.getAcc().front();
    Value out = adaptor.getOuts().front();
    forLoop(rewriter, loc, 0, groups, [&](Value g) {
      dequantizeRows(rewriter, loc, b, g, indexConst(rewriter, loc, n), k,
                     bHat);
      GemmEpilogue epi =
          gemmEpilogue(rewriter, loc, out, acc, masked ? g : Value(),
                       alphaOperands(adaptor), g, beta, adaptor.getBias());
      // Bounds come from run-time data, read clamped (groupRowRange) so
      // that malformed tables cannot index out of range.
      Value table = masked ? adaptor.getMaskedM() : adaptor.getGroupOffsets();
      GroupRowRange range =
          groupRowRange(rewriter, loc, op.getGrouping(), g, rows, [&](Value i) {
            return loadIndex(rewriter, loc, table, {i});
          });
      if (masked) {
        dequantizeRows(rewriter, loc, a, g, range.end, k, aHat);
        emitGemmRows(rewriter, loc, aHat, bHat, zero, range.end, n, k, epi);
        emitZeroRows(rewriter, loc, range.end, rowCount, n, epi);
      } else {
        emitGemmRows(rewriter, loc, aHat, bHat, range.begin, range.end, n, k,
                     epi);
      }
    });
    memref::DeallocOp::create(rewriter, loc, aHat);
    memref::DeallocOp::create(rewriter, loc, bHat);
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertNVFP4ToSCFPass
    : public nvfp4::impl::ConvertNVFP4ToSCFBase<ConvertNVFP4ToSCFPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    StorageTypeConverter converter;
    RewritePatternSet patterns(ctx);
    populateStorageConversionPatterns(converter, patterns);
    populateNVFP4ToSCFConversionPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<NVFP4Dialect>();
    // Every other op is fine once none of its types is a narrow memref.
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    configureStorageLegality(target, converter);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateNVFP4ToSCFConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<QuantizeLowering, DequantizeLowering, SwigluLowering,
               MoERouteLowering, MoEDispatchLowering, MoECombineLowering,
               SwizzleLowering, UnswizzleLowering, MatmulLowering,
               GroupedMatmulLowering, InlineFusedPattern>(
      converter, patterns.getContext());
}
