//===- Numerics.cpp - arith builders for the nvfp4 numerics ----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/bit.h"

#include <cfloat>

using namespace mlir;
using namespace mlir::nvfp4;
using arith::CmpFPredicate;
using arith::CmpIPredicate;

NumericsBuilder::NumericsBuilder(OpBuilder &b, Location loc, Type like)
    : b(b), loc(loc), floatType(like) {
  Type i32 = b.getI32Type();
  if (auto vec = dyn_cast<VectorType>(like))
    intType = VectorType::get(vec.getShape(), i32);
  else
    intType = i32;
}

Value NumericsBuilder::f32(double v) {
  APFloat value(static_cast<float>(v));
  if (auto vec = dyn_cast<VectorType>(floatType))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vec, value));
  return arith::ConstantOp::create(b, loc,
                                   b.getFloatAttr(b.getF32Type(), value));
}

Value NumericsBuilder::i32(int64_t v) {
  if (auto vec = dyn_cast<VectorType>(intType))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vec, b.getI32IntegerAttr(v)));
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

Value NumericsBuilder::bitsOf(Value f) {
  return arith::BitcastOp::create(b, loc, intType, f);
}
Value NumericsBuilder::floatOf(Value i) {
  return arith::BitcastOp::create(b, loc, floatType, i);
}

Value NumericsBuilder::add(Value a, Value c) {
  return arith::AddFOp::create(b, loc, a, c);
}
Value NumericsBuilder::sumGiven(ArrayRef<Value> terms) {
  Value sum;
  for (Value term : terms)
    if (term)
      sum = sum ? add(sum, term) : term;
  return sum ? sum : f32(0.0);
}
Value NumericsBuilder::sub(Value a, Value c) {
  return arith::SubFOp::create(b, loc, a, c);
}
Value NumericsBuilder::mul(Value a, Value c) {
  return arith::MulFOp::create(b, loc, a, c);
}
Value NumericsBuilder::div(Value a, Value c) {
  return arith::DivFOp::create(b, loc, a, c);
}
// abs, floor and roundeven are written with arith ops: on GPUs MLIR maps the
// math ops to libdevice calls, and these uses need nothing that general.
Value NumericsBuilder::abs(Value a) {
  return floatOf(arith::AndIOp::create(b, loc, bitsOf(a), i32(0x7FFFFFFF)));
}
Value NumericsBuilder::maxNum(Value a, Value c) {
  return arith::MaxNumFOp::create(b, loc, a, c);
}
Value NumericsBuilder::minNum(Value a, Value c) {
  return arith::MinNumFOp::create(b, loc, a, c);
}
Value NumericsBuilder::isNaN(Value a) {
  return cmpF(static_cast<unsigned>(CmpFPredicate::UNO), a, a);
}
Value NumericsBuilder::select(Value cond, Value t, Value f) {
  return arith::SelectOp::create(b, loc, cond, t, f);
}
Value NumericsBuilder::roundTo(Value x, Type element) {
  if (element.isF32())
    return x;
  Type narrow = element;
  if (auto vec = dyn_cast<VectorType>(floatType))
    narrow = VectorType::get(vec.getShape(), element);
  // Plain truncf/extf: IEEE round to nearest even on every target (the CPU
  // pipeline expands the bf16 casts to integer ops, NVPTX has cvt.rn).
  Value truncated = arith::TruncFOp::create(b, loc, narrow, x);
  return arith::ExtFOp::create(b, loc, floatType, truncated);
}

Value NumericsBuilder::cmpF(unsigned predicate, Value a, Value c) {
  return arith::CmpFOp::create(b, loc, static_cast<CmpFPredicate>(predicate),
                               a, c);
}
Value NumericsBuilder::cmpI(unsigned predicate, Value a, Value c) {
  return arith::CmpIOp::create(b, loc, static_cast<CmpIPredicate>(predicate),
                               a, c);
}
Value NumericsBuilder::bool2i(Value flag) {
  return arith::ExtUIOp::create(b, loc, intType, flag);
}

//===----------------------------------------------------------------------===//
// Activations (spec 2.10)
//===----------------------------------------------------------------------===//

Value NumericsBuilder::exp(Value x) {
  // Cody-Waite: x = n ln2 + r with n = rint(x log2e), |r| <= ~0.347, then
  // e^r by its Taylor polynomial of degree 7 (truncation error below
  // 2^-27), then 2^n as two exact power-of-two factors. Clamping x to
  // [-104, 89] keeps n in [-150, 128], so each factor 2^(n/2) is a normal
  // fp32 and only the last multiplication rounds (to a subnormal, 0 or
  // inf where e^x is out of range). NaN skips the clamp (minnum would
  // drop it).
  Value clamped = maxNum(minNum(x, f32(89.0)), f32(-104.0));
  clamped = select(isNaN(x), x, clamped);
  // Adding and subtracting 1.5 * 2^23 rounds |t| < 2^22 to an integer, ties
  // to even.
  Value t = mul(clamped, f32(0x1.715476p+0)); // log2(e)
  Value n = sub(add(t, f32(0x1.8p23)), f32(0x1.8p23));
  // ln2 = ln2Hi + ln2Lo with 15 significant bits in ln2Hi, so n * ln2Hi is
  // exact for |n| < 2^9 and so is the subtraction (Sterbenz).
  Value r =
      sub(sub(clamped, mul(n, f32(0x1.62e4p-1))), mul(n, f32(0x1.7f7d1cp-20)));
  Value p = f32(1.0 / 5040.0);
  for (double c :
       {1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0})
    p = add(mul(p, r), f32(c));
  // 2^n = 2^h * 2^(n-h), h = floor(n / 2): both in [-75, 64]. A NaN n
  // (x NaN) converts as 0 (fptosi of NaN is poison); p is NaN then and the
  // result stays NaN.
  Value ni =
      arith::FPToSIOp::create(b, loc, intType, select(isNaN(n), f32(0.0), n));
  Value h = arith::ShRSIOp::create(b, loc, ni, i32(1));
  auto power = [&](Value e) {
    return floatOf(arith::ShLIOp::create(
        b, loc, arith::AddIOp::create(b, loc, e, i32(127)), i32(23)));
  };
  return mul(mul(p, power(h)), power(arith::SubIOp::create(b, loc, ni, h)));
}

Value NumericsBuilder::sigmoid(Value t) {
  Value negated = arith::NegFOp::create(b, loc, t);
  return div(f32(1.0), add(f32(1.0), exp(negated)));
}

Value NumericsBuilder::swiglu(Value gate, Value up,
                              const SwigluParams &params) {
  if (params.limit) {
    // Compares, not minnum/maxnum, so that NaN stays NaN (torch.clamp).
    Value hi = f32(*params.limit), lo = f32(-*params.limit);
    auto above = [&](Value v, Value bound) {
      return cmpF(static_cast<unsigned>(CmpFPredicate::OGT), v, bound);
    };
    gate = select(above(gate, hi), hi, gate);
    up = select(above(up, hi), hi, select(above(lo, up), lo, up));
  }
  Value s =
      params.sigmoidScale == 1.0f ? gate : mul(f32(params.sigmoidScale), gate);
  Value silu = mul(gate, sigmoid(s));
  if (params.upOffset != 0.0f)
    up = add(up, f32(params.upOffset));
  return mul(silu, up);
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

/// The sign bit of x as 0/1, except 0 for NaN (NaN always encodes positive).
static Value signBitUnlessNaN(NumericsBuilder &nb, Value x) {
  OpBuilder &b = nb.builder();
  Location loc = nb.getLoc();
  Value negative = arith::CmpIOp::create(b, loc, CmpIPredicate::slt,
                                         nb.bitsOf(x), nb.i32(0));
  Value ordered = arith::CmpFOp::create(b, loc, CmpFPredicate::ORD, x, x);
  return arith::ExtUIOp::create(
      b, loc, nb.i32Type(), arith::AndIOp::create(b, loc, negative, ordered));
}

Value NumericsBuilder::e2m1EncodeRNE(Value x) {
  // Rounding by fp32 addition instead of a ladder of threshold compares
  // (which made the Hopper quantize kernel ALU-bound):
  //  - clamp to [-6, 6]; minnum/maxnum return the other operand for NaN,
  //    so NaN becomes +6 (code 7), as the contract wants, and -0 stays -0;
  //  - E2M1 spacing is 0.5 below 2, 1 below 4, 2 up to 6. Adding
  //    magic = 2^22 * max(2^floor(log2 a), 1) puts a + magic in the fp32
  //    binade whose ulp is that spacing, so the add rounds a to the E2M1
  //    grid, ties to even: an even multiple of the spacing is exactly an
  //    even E2M1 mantissa (0.25 -> 0, 0.75 -> 1, 2.5 -> 2, 5 -> 4);
  //    subtracting magic back is exact;
  //  - q * 2^-126 is an fp32 subnormal for q < 2: fp32 and E2M1 then share
  //    their layout (1 mantissa bit at bit 22, exponent above it, the
  //    subnormal 0.5 at code 1), so the bits are code << 22, exactly.
  // Needs IEEE subnormals (no flush to zero), as every lowering compiles.
  Value clamped = maxNum(minNum(x, f32(6.0)), f32(-6.0));
  Value a = abs(clamped);
  Value binade = floatOf(arith::AndIOp::create(b, loc, bitsOf(clamped),
                                               i32(0x7F800000)));
  Value magic = mul(maxNum(binade, f32(1.0)), f32(0x1p22));
  Value q = sub(add(a, magic), magic);
  Value magnitude = arith::ShRUIOp::create(
      b, loc, bitsOf(mul(q, f32(0x1p-126))), i32(22));
  Value sign = arith::ShLIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bitsOf(clamped), i32(31)),
      i32(3));
  return arith::OrIOp::create(b, loc, magnitude, sign);
}

Value NumericsBuilder::packE2M1(ArrayRef<Value> codes) {
  // Codes are 0..15, so shifts and ors suffice: 8 to a 32-bit word
  // (little-endian: code 2p in the low nibble of byte p) where they fill
  // words, else 2 to a byte.
  int64_t n = codes.size();
  int64_t perWord = n % 8 == 0 ? 8 : 2;
  Type word = perWord == 8 ? b.getI32Type() : b.getI8Type();
  SmallVector<Value> words;
  for (int64_t w = 0; w < n / perWord; ++w) {
    Value packed;
    for (int64_t i = 0; i < perWord; ++i) {
      Value code = codes[perWord * w + i];
      Value nibble =
          i == 0 ? code
                 : arith::ShLIOp::create(b, loc, code, i32(4 * i)).getResult();
      packed = packed ? arith::OrIOp::create(b, loc, packed, nibble).getResult()
                      : nibble;
    }
    if (perWord == 2)
      packed = arith::TruncIOp::create(b, loc, word, packed);
    words.push_back(packed);
  }
  Value vector = vector::FromElementsOp::create(
      b, loc, VectorType::get({n / perWord}, word), words);
  if (perWord == 2)
    return vector;
  return vector::BitCastOp::create(
      b, loc, VectorType::get({n / 2}, b.getI8Type()), vector);
}

Value NumericsBuilder::e2m1EncodeStochastic(Value x, Value r) {
  // Spec 2.4: t = fl(a + u*step(a)), q = min(floor(t/step(t))*step(t), 6).
  // u*step, t/step and floor(.)*step are exact (powers of two); only the add
  // rounds. Every t >= 8 gives q = 6, so t is clamped to 8 before the
  // integer conversion: a huge t (an element scaled by enc_b = FLT_MAX, a
  // block whose scale is 0), Inf or NaN (minnum takes 8) would otherwise
  // overflow fptosi, which gives INT_MIN on x86 and a negative q.
  Value a = abs(x);
  auto step = [&](Value y) {
    return select(cmpF(static_cast<unsigned>(CmpFPredicate::OLT), y, f32(2.0)),
                  f32(0.5),
                  select(cmpF(static_cast<unsigned>(CmpFPredicate::OLT), y,
                              f32(4.0)),
                         f32(1.0), f32(2.0)));
  };
  Value u = mul(arith::UIToFPOp::create(b, loc, floatType, r), f32(1.0 / 256));
  Value t = minNum(add(a, mul(u, step(a))), f32(8.0));
  Value st = step(t);
  // 0 <= t/step <= 4: truncation is floor.
  Value truncated = arith::SIToFPOp::create(
      b, loc, floatType, arith::FPToSIOp::create(b, loc, intType, div(t, st)));
  Value q = minNum(mul(truncated, st), f32(6.0));
  Value magnitude = e2m1EncodeRNE(q);
  Value sign = arith::ShLIOp::create(b, loc, signBitUnlessNaN(*this, x), i32(3));
  return arith::OrIOp::create(b, loc, magnitude, sign);
}

Value NumericsBuilder::e2m1Decode(Value code) {
  // f = the fp32 with bits (mag + 252) << 22 is the magnitude for mag >= 2
  // (exponent field mag/2 + 126, mantissa bit mag%2: 1, 1.5, 2, 3, 4, 6);
  // for mag 0 and 1 it is 0.5 and 0.75, which 2f - 1 maps to 0 and 0.5.
  // min(f, 2f - 1) picks the right one (2f - 1 >= f exactly when f >= 1);
  // every step is exact. No subnormals: the CPU reference decodes in its
  // matmul loops, and x86 takes a slow path on subnormal operands.
  Value mag = arith::AndIOp::create(b, loc, code, i32(7));
  Value f = floatOf(arith::ShLIOp::create(
      b, loc, arith::AddIOp::create(b, loc, mag, i32(252)), i32(22)));
  Value value = minNum(f, sub(add(f, f), f32(1.0)));
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, code, i32(8)), i32(28));
  return floatOf(arith::OrIOp::create(b, loc, bitsOf(value), sign));
}

Value NumericsBuilder::e4m3EncodeSatFinite(Value x) {
  Value nan = isNaN(x);
  Value a = minNum(abs(x), f32(kE4M3Max));
  // Normal range [2^-6, 448]: round the fp32 mantissa to 3 bits, ties to
  // even, on the bit pattern; a carry moves into the exponent as it should.
  Value bits = bitsOf(a);
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, i32(20)), i32(1));
  Value rounded = arith::AddIOp::create(
      b, loc, bits, arith::AddIOp::create(b, loc, lsb, i32(0x7FFFF)));
  // E4M3 exponent bias 7 vs fp32 127: (exp - 120) << 3 | mantissa.
  Value normal = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, rounded, i32(20)),
      i32(120 << 3));
  // Subnormal range: multiples of 2^-9. a * 2^9 < 8 is exact; adding and
  // subtracting 2^23 rounds it to an integer, ties to even, in fp32. A
  // result of 8 is the smallest normal (code 0x08), as it should be.
  Value scaled = mul(a, f32(512.0));
  Value integral = sub(add(scaled, f32(8388608.0)), f32(8388608.0));
  Value subnormal = arith::FPToSIOp::create(b, loc, intType, integral);
  Value small = cmpF(static_cast<unsigned>(CmpFPredicate::OLT), a,
                     f32(1.0 / 64.0));
  Value magnitude = select(small, subnormal, normal);
  Value negative = bool2i(
      cmpI(static_cast<unsigned>(CmpIPredicate::slt), bitsOf(x), i32(0)));
  Value code = arith::OrIOp::create(
      b, loc, magnitude, arith::ShLIOp::create(b, loc, negative, i32(7)));
  return select(nan, i32(0x7F), code);
}

Value NumericsBuilder::e4m3Decode(Value byte) {
  Value e = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, byte, i32(3)), i32(0xF));
  Value m = arith::AndIOp::create(b, loc, byte, i32(7));
  Value normalBits = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc, arith::AddIOp::create(b, loc, e, i32(120)),
                            i32(23)),
      arith::ShLIOp::create(b, loc, m, i32(20)));
  Value subnormal = mul(arith::UIToFPOp::create(b, loc, floatType, m),
                        f32(1.0 / 512.0));
  Value magnitude =
      select(cmpI(static_cast<unsigned>(CmpIPredicate::eq), e, i32(0)),
             subnormal, floatOf(normalBits));
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, byte, i32(0x80)), i32(24));
  Value value = floatOf(arith::OrIOp::create(b, loc, bitsOf(magnitude), sign));
  Value isNaNCode = cmpI(static_cast<unsigned>(CmpIPredicate::eq),
                         arith::AndIOp::create(b, loc, byte, i32(0x7F)),
                         i32(0x7F));
  return select(isNaNCode, floatOf(arith::OrIOp::create(b, loc, sign,
                                                        i32(0x7FC00000))),
                value);
}

Value NumericsBuilder::e8m0Decode(Value code) {
  Value normal = floatOf(arith::ShLIOp::create(b, loc, code, i32(23)));
  Value value =
      select(cmpI(static_cast<unsigned>(CmpIPredicate::eq), code, i32(0)),
             floatOf(i32(0x00400000)), normal);
  return select(cmpI(static_cast<unsigned>(CmpIPredicate::eq), code, i32(255)),
                floatOf(i32(0x7FC00000)), value);
}

Value NumericsBuilder::e8m0Inverse(Value code) {
  // 2^(127-code) has the biased exponent 254-code; 0 means 2^-127.
  Value exponent = arith::SubIOp::create(b, loc, i32(254), code);
  Value normal = floatOf(arith::ShLIOp::create(b, loc, exponent, i32(23)));
  return select(
      cmpI(static_cast<unsigned>(CmpIPredicate::eq), exponent, i32(0)),
      floatOf(i32(0x00400000)), normal);
}

//===----------------------------------------------------------------------===//
// Scale rules
//===----------------------------------------------------------------------===//

std::pair<Value, Value> NumericsBuilder::globalScales(Value amax,
                                                      double globalMax) {
  Value sEnc = minNum(div(f32(globalMax), amax), f32(FLT_MAX));
  Value degenerate = arith::OrIOp::create(
      b, loc, cmpF(static_cast<unsigned>(CmpFPredicate::OEQ), amax, f32(0.0)),
      cmpF(static_cast<unsigned>(CmpFPredicate::OEQ), sEnc, f32(0.0)));
  sEnc = select(degenerate, f32(1.0), sEnc);
  return {sEnc, div(f32(1.0), sEnc)};
}

// A calibrated scale is used as given: its reciprocal is the one rounding,
// and no amax == 0 / S_enc == 0 guard applies (there is no amax to guard).
std::pair<Value, Value> NumericsBuilder::givenEncodeScale(Value sEnc) {
  return {sEnc, div(f32(1.0), sEnc)};
}

std::pair<Value, Value> NumericsBuilder::givenDecodeScale(Value sDec) {
  return {div(f32(1.0), sDec), sDec};
}

Value NumericsBuilder::blockScaleInput(Value blockAmax, Value sEnc) {
  return mul(blockAmax, mul(sEnc, f32(kOneSixth)));
}

Value NumericsBuilder::fourOverSixBlockScaleInput(Value blockAmax,
                                                  Value sEnc) {
  // IEEE division by 6 first, then the encode scale (TransformerEngine's
  // `block_amax / fp4_max * S_enc`), unlike max6's fp32(1/6) product.
  return mul(div(blockAmax, f32(6.0)), sEnc);
}

Value NumericsBuilder::fourOverSixValue(Value code, Value sfValue, Value amax,
                                        double globalMax) {
  return div(mul(mul(e2m1Decode(code), sfValue), amax), f32(globalMax));
}

Value NumericsBuilder::blockEncodeScale(Value sfValue, Value sDec) {
  return minNum(div(f32(1.0), mul(sfValue, sDec)), f32(FLT_MAX));
}

std::pair<Value, Value> NumericsBuilder::blockScale(Value blockAmax, Value sEnc,
                                                    Value sDec) {
  Value sf = e4m3EncodeSatFinite(blockScaleInput(blockAmax, sEnc));
  return {sf, blockEncodeScale(e4m3Decode(sf), sDec)};
}

Value NumericsBuilder::mxScaleCodeRceil(Value blockAmax) {
  // TransformerEngine's float_to_e8m0 of fp32(amax_b * fp32(1/6)).
  Value bits = bitsOf(mul(blockAmax, f32(kOneSixth)));
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, i32(23)), i32(0xFF));
  Value mantissa = arith::AndIOp::create(b, loc, bits, i32(0x7FFFFF));
  auto icmp = [&](CmpIPredicate p, Value l, Value r) {
    return cmpI(static_cast<unsigned>(p), l, r);
  };
  // Round up when the mantissa is non-zero, except at exponent 0xFE and for
  // subnormals v <= 2^-127 (exponent 0, mantissa <= 0x400000).
  Value notSmallSubnormal = arith::OrIOp::create(
      b, loc, icmp(CmpIPredicate::ne, exponent, i32(0)),
      icmp(CmpIPredicate::ugt, mantissa, i32(0x400000)));
  Value roundUp = arith::AndIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, icmp(CmpIPredicate::ugt, mantissa, i32(0)),
                            icmp(CmpIPredicate::ne, exponent, i32(0xFE))),
      notSmallSubnormal);
  Value code = arith::AddIOp::create(b, loc, exponent, bool2i(roundUp));
  return select(icmp(CmpIPredicate::eq, exponent, i32(0xFF)), i32(254), code);
}

Value NumericsBuilder::mxScaleCodeFloor(Value blockAmax) {
  // floor(log2 amax_b) - 2 + 127 = E - 2 for a normal amax_b with exponent
  // field E; zero and subnormals clamp to 0, +Inf to 254.
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bitsOf(blockAmax), i32(23)),
      i32(0xFF));
  Value code = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, exponent, i32(2)), i32(0));
  return select(cmpI(static_cast<unsigned>(CmpIPredicate::eq), exponent,
                     i32(0xFF)),
                i32(254), code);
}

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

std::array<Value, 4>
NumericsBuilder::philox4x32x10(std::array<Value, 4> c,
                               std::array<Value, 2> k) {
  // Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11),
  // the Random123 constants.
  const int64_t m0 = 0xD2511F53, m1 = 0xCD9E8D57;
  const int64_t w0 = 0x9E3779B9, w1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    auto p0 = arith::MulUIExtendedOp::create(b, loc, i32(m0), c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, i32(m1), c[2]);
    c = {arith::XOrIOp::create(
             b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c[1]), k[0]),
         p1.getLow(),
         arith::XOrIOp::create(
             b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c[3]), k[1]),
         p0.getLow()};
    if (round < 9) {
      k[0] = arith::AddIOp::create(b, loc, k[0], i32(w0));
      k[1] = arith::AddIOp::create(b, loc, k[1], i32(w1));
    }
  }
  return c;
}

float NumericsBuilder::hadamardEntry(int i, int j) {
  static const int signs[16] = {1,  1,  1,  -1, 1, -1, -1, -1,
                                -1, -1, -1, 1,  -1, 1, -1, -1};
  int parity = llvm::popcount(static_cast<unsigned>(i & j)) & 1;
  return 0.25f * signs[i] * (parity ? -1 : 1);
}
