//===- Numerics.h - arith builders for the nvfp4 numerics ---------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The numerics of docs/spec.md section 2 as arith/math ops, shared by every
// lowering (CPU loops, Hopper and Blackwell kernels) so that all of them
// compute the same bits as python/nvfp4/reference.py.
//
// Every builder works on f32/i32 scalars or vectors of them (all ops are
// elementwise); codes and bytes travel as i32. Each fp32 step is one arith op
// without fast-math flags, so it is one correctly rounded operation on every
// target (no contraction into FMA).
//
// Why not arith.truncf to f4E2M1FN / f8E4M3FN: the upstream expansion of the
// f4E2M1FN truncation (arith-expand include-f4e2m1) rounds ties away from zero
// (1.25 -> 1.5, 2.5 -> 3, 5 -> 6) and drops the sign of -0, and there is no
// upstream expansion of the E4M3 truncation at all; the contract needs RNE,
// saturation and TransformerEngine's NaN handling.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_UTILS_NUMERICS_H
#define NVFP4_DIALECT_NVFP4_UTILS_NUMERICS_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <array>

namespace mlir {
namespace nvfp4 {

/// fp32(1/6), the constant TransformerEngine multiplies by.
constexpr float kOneSixth = 1.0f / 6.0f;
/// Largest finite E4M3 magnitude.
constexpr float kE4M3Max = 448.0f;

class NumericsBuilder {
public:
  /// `like` is f32 or vector<...xf32>: the shape every result takes.
  NumericsBuilder(OpBuilder &b, Location loc, Type like);

  OpBuilder &builder() { return b; }
  Location getLoc() { return loc; }
  Type f32Type() { return floatType; }
  Type i32Type() { return intType; }

  //===--------------------------------------------------------------------===//
  // Constants and bit casts
  //===--------------------------------------------------------------------===//
  Value f32(double v);
  Value i32(int64_t v);
  Value bitsOf(Value f);   // f32 -> i32 bit pattern
  Value floatOf(Value i);  // i32 bit pattern -> f32

  //===--------------------------------------------------------------------===//
  // fp32 arithmetic (each one correctly rounded op)
  //===--------------------------------------------------------------------===//
  Value add(Value a, Value c);
  /// The fp32 sum of the given (non-null) terms, added left to right (an
  /// epilogue's product, bias and beta * acc, each only when it exists);
  /// 0 when none is given.
  Value sumGiven(ArrayRef<Value> terms);
  Value sub(Value a, Value c);
  Value mul(Value a, Value c);
  Value div(Value a, Value c);
  Value abs(Value a);
  /// fmaxf / fminf: a NaN operand is ignored.
  Value maxNum(Value a, Value c);
  Value minNum(Value a, Value c);
  Value isNaN(Value a);
  Value select(Value cond, Value t, Value f);
  /// x rounded to `element` (bf16 or f16: RNE, overflow to +-Inf, NaN kept)
  /// and widened back to f32; x itself when `element` is f32.
  Value roundTo(Value x, Type element);

  //===--------------------------------------------------------------------===//
  // Casts (spec 2.1); codes and bytes are i32
  //===--------------------------------------------------------------------===//
  /// E2M1 code 0..15: RNE, saturating, sign bit kept, NaN -> 7.
  Value e2m1EncodeRNE(Value x);
  /// E2M1 code with stochastic rounding (spec 2.4); `r` is the random byte.
  Value e2m1EncodeStochastic(Value x, Value r);
  /// E2M1 code -> f32 (code 8 -> -0.0).
  Value e2m1Decode(Value code);
  /// An even number of E2M1 codes (i32, 0..15) in their storage: a
  /// vector<n/2 x i8>, code 2p in the low nibble of byte p (spec section 1).
  Value packE2M1(ArrayRef<Value> codes);
  /// f8E4M3FN byte: clamp to +-448, RNE, subnormals kept, NaN -> 0x7F.
  Value e4m3EncodeSatFinite(Value x);
  /// f8E4M3FN byte -> f32.
  Value e4m3Decode(Value byte);
  /// UE8M0 code -> 2^(code-127) (code 0 is the subnormal 2^-127, 255 NaN).
  Value e8m0Decode(Value code);
  /// 2^(127-code) for a code in [0, 254]: the MXFP4 quantize multiplier.
  Value e8m0Inverse(Value code);

  //===--------------------------------------------------------------------===//
  // Scale rules (spec 2.2, 2.3, 2.5)
  //===--------------------------------------------------------------------===//
  /// (S_enc, S_dec) from the tensor amax; `globalMax` is C = 6 * E4M3 max
  /// (2688, or 1536 for four_over_six with e4m3_max 256).
  std::pair<Value, Value> globalScales(Value amax, double globalMax);
  /// (S_enc, S_dec) from a calibrated encode scale: (sEnc, fp32(1 / sEnc)),
  /// no guard (spec 2.2, given scales).
  std::pair<Value, Value> givenEncodeScale(Value sEnc);
  /// (S_enc, S_dec) from a calibrated decode scale: (fp32(1 / sDec), sDec),
  /// no guard; S_dec stays the given value bit for bit.
  std::pair<Value, Value> givenDecodeScale(Value sDec);
  /// max6: fp32(amax_b * fp32(S_enc * fp32(1/6))), the value cast to the
  /// E4M3 scale.
  Value blockScaleInput(Value blockAmax, Value sEnc);
  /// four_over_six: fp32(fp32(amax_b / 6) * S_enc), the value cast to the
  /// map-to-6 scale (the map-to-4 one is fp32(this * 1.5)), TE's order.
  Value fourOverSixBlockScaleInput(Value blockAmax, Value sEnc);
  /// four_over_six: a candidate's value in the error domain,
  /// fp32(fp32(fp32(e2m1(code) * sf) * amax) / C).
  Value fourOverSixValue(Value code, Value sfValue, Value amax,
                         double globalMax);
  /// enc_b = fminf(fp32(1 / fp32(fp32(sf) * S_dec)), FLT_MAX).
  Value blockEncodeScale(Value sfValue, Value sDec);
  /// max6's block scale from the block amax: (the E4M3 byte sf_b, i32;
  /// enc_b), spec 2.2 steps 3-4.
  std::pair<Value, Value> blockScale(Value blockAmax, Value sEnc, Value sDec);
  /// MXFP4 scale codes.
  Value mxScaleCodeRceil(Value blockAmax);
  Value mxScaleCodeFloor(Value blockAmax);

  //===--------------------------------------------------------------------===//
  // Activations (spec 2.10)
  //===--------------------------------------------------------------------===//
  /// e^x in fp32 by the spec's fixed sequence of correctly rounded ops
  /// (the same bits on every target; NaN stays NaN).
  Value exp(Value x);
  /// fl(1 / fl(1 + exp(-t))).
  Value sigmoid(Value t);
  /// `nvfp4.swiglu` of one gate and one up value (fp32), before the
  /// rounding to the output type.
  Value swiglu(Value gate, Value up, const SwigluParams &params);

  //===--------------------------------------------------------------------===//
  // Random bits (spec 2.4)
  //===--------------------------------------------------------------------===//
  /// Philox4x32-10 of a counter and key (i32 words).
  std::array<Value, 4> philox4x32x10(std::array<Value, 4> counter,
                                     std::array<Value, 2> key);

  /// The +-1/4 entries of the random Hadamard matrix M[i][j] (spec 2.2).
  static float hadamardEntry(int i, int j);

private:
  Value cmpF(unsigned predicate, Value a, Value c);
  Value cmpI(unsigned predicate, Value a, Value c);
  Value bool2i(Value flag);

  OpBuilder &b;
  Location loc;
  Type floatType;
  Type intType;
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_UTILS_NUMERICS_H
