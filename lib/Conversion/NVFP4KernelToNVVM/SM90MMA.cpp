//===- SM90MMA.cpp - nvfp4k lowering: the sm_90a MMA step -------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"

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
// sm_90a MMA step
//===----------------------------------------------------------------------===//

/// The exact E2M1 x E4M3 -> f16 arithmetic of the sm_90a dequantization
/// ops: a code becomes the E4M3 bit pattern of e2m1 * 2^-6, which
/// cvt.rn.f16x2.e4m3x2 widens exactly, and one mul.f16x2 by scale * 2^6
/// (exact in f16: <= 28672) gives e2m1 * scale.
class E2M1ToF16 {
public:
  explicit E2M1ToF16(ImplicitLocOpBuilder &b) : b(b) {}

  /// E4M3 bit pattern pairs (vector<2xi8>) -> f16x2.
  Value cvt(Value pair) {
    return NVVM::ConvertF8x2ToF16x2Op::create(
               b, VectorType::get({2}, b.getF16Type()), pair,
               b.getBoolAttr(false),
               TypeAttr::get(b.getType<Float8E4M3FNType>()))
        .getResult();
  }
  /// Two E4M3 scale bytes (vector<2xf8E4M3FN> or their bits, vector<2xi8>)
  /// as f16x2, times 2^6.
  Value scalePair(Value scales) {
    auto i8x2 = VectorType::get({2}, b.getI8Type());
    if (scales.getType() != i8x2)
      scales = vector::BitCastOp::create(b, i8x2, scales);
    Value pair = cvt(scales);
    Value sixtyFour = arith::ConstantOp::create(
        b, DenseElementsAttr::get(VectorType::get({2}, b.getF16Type()),
                                  APFloat(APFloat::IEEEhalf(), "64")));
    return arith::MulFOp::create(b, pair, sixtyFour);
  }
  /// Lane `lane` of an f16x2 in both lanes.
  Value splat(Value pair, int64_t lane) {
    return vector::ShuffleOp::create(b, pair, pair,
                                     ArrayRef<int64_t>{lane, lane});
  }
  /// The codes of the even (odd) nibbles of `x`, one per byte.
  Value nibbles(Value x, bool odd) {
    if (odd)
      x = arith::ShRUIOp::create(b, x, word(4));
    return arith::AndIOp::create(b, x, word(0x0F0F0F0F));
  }
  /// One code per byte -> the E4M3 bit pattern
  /// ((n & 7) << 2) | ((n & 8) << 4) = e2m1(n) * 2^-6, four bytes at once.
  Value toE4M3(Value nibbles) {
    Value mag = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, nibbles, word(0x07070707)), word(2));
    Value sign = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, nibbles, word(0x08080808)), word(4));
    return arith::OrIOp::create(b, mag, sign);
  }
  /// What `half` takes: the codes' E4M3 patterns.
  Value prepare(Value nibbles) { return toE4M3(nibbles); }
  /// Two E4M3 bytes (the low or high half of `bits`) -> f16x2 * scale
  /// (an f16x2 of scale * 2^6 in both lanes).
  Value half(Value bits, bool high, Value scale) {
    if (high)
      bits = arith::ShRUIOp::create(b, bits, word(16));
    Value pair = LLVM::BitcastOp::create(
        b, VectorType::get({2}, b.getI8Type()),
        arith::TruncIOp::create(b, b.getI16Type(), bits));
    return arith::MulFOp::create(b, cvt(pair), scale);
  }

private:
  Value word(int64_t v) { return cInt(b, b.getI32Type(), v); }
  ImplicitLocOpBuilder &b;
};

/// The exact E2M1 x E4M3 -> bf16 arithmetic (the A fragments of a bf16
/// wgmma): a code's bits s.e1e0.m0 placed at bf16 bits 15 and 8..6 are the
/// bf16 pattern of e2m1 * 2^-126 (subnormal for the codes below 1, as
/// E2M1's own are), one mul.bf16x2 by 2^126 gives e2m1 exactly and one by
/// the scale (widened exactly through f16 and f32) e2m1 * scale.
class E2M1ToBF16 {
public:
  /// e8m0: the scales are E8M0 (MXFP4), else E4M3.
  explicit E2M1ToBF16(ImplicitLocOpBuilder &b, bool e8m0 = false)
      : b(b), e8m0(e8m0) {}

  /// Two scale bytes (vector<2xf8E4M3FN> / vector<2xf8E8M0FNU> or their
  /// bits) as bf16x2: E4M3 widened through f16 and f32; E8M0 e as the bf16
  /// pattern e << 7 (2^(e - 127)), 0x0040 for e = 0 (2^-127, subnormal),
  /// 0x7FC0 (NaN) for e = 255.
  Value scalePair(Value scales) {
    auto i8x2 = VectorType::get({2}, b.getI8Type());
    if (scales.getType() != i8x2)
      scales = vector::BitCastOp::create(b, i8x2, scales);
    if (e8m0) {
      auto i16x2 = VectorType::get({2}, b.getI16Type());
      auto splat = [&](int64_t v) {
        return arith::ConstantOp::create(
            b, DenseElementsAttr::get(i16x2, b.getI16IntegerAttr(v)));
      };
      Value e = arith::ExtUIOp::create(b, i16x2, scales);
      Value bits = arith::ShLIOp::create(b, e, splat(7));
      bits = arith::SelectOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, e, splat(0)),
          splat(0x0040), bits);
      bits = arith::SelectOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, e, splat(255)),
          splat(0x7FC0), bits);
      return vector::BitCastOp::create(b, bf16x2(), bits);
    }
    Value f16 = E2M1ToF16(b).cvt(scales);
    Value f32 = arith::ExtFOp::create(
        b, VectorType::get({2}, b.getF32Type()), f16);
    return arith::TruncFOp::create(b, bf16x2(), f32);
  }
  Value splat(Value pair, int64_t lane) {
    return vector::ShuffleOp::create(b, pair, pair,
                                     ArrayRef<int64_t>{lane, lane});
  }
  Value nibbles(Value x, bool odd) { return E2M1ToF16(b).nibbles(x, odd); }
  /// `half` takes the codes themselves, one per byte.
  Value prepare(Value nibbles) { return nibbles; }
  /// The codes in bytes 0, 1 (2, 3 when `high`) of `codes` -> bf16x2 *
  /// scale (a bf16x2 of the scale in both lanes).
  Value half(Value codes, bool high, Value scale) {
    if (high)
      codes = arith::ShRUIOp::create(b, codes, word(16));
    // One code in the low byte of each 16-bit lane.
    Value lane0 = arith::AndIOp::create(b, codes, word(0xFF));
    Value lane1 = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, codes, word(0xFF00)), word(8));
    Value lanes = arith::OrIOp::create(b, lane0, lane1);
    Value magnitude = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, lanes, word(0x00070007)), word(6));
    Value sign = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, lanes, word(0x00080008)), word(12));
    Value pattern = LLVM::BitcastOp::create(
        b, bf16x2(), arith::OrIOp::create(b, magnitude, sign));
    Value two126 = arith::ConstantOp::create(
        b, DenseElementsAttr::get(
               bf16x2(), APFloat(APFloat::BFloat(), "8.50705917302346158658e37")));
    return arith::MulFOp::create(
        b, arith::MulFOp::create(b, pattern, two126), scale);
  }

private:
  VectorType bf16x2() { return VectorType::get({2}, b.getBF16Type()); }
  Value word(int64_t v) { return cInt(b, b.getI32Type(), v); }
  ImplicitLocOpBuilder &b;
  bool e8m0;
};

/// The consumer thread's code words and permuted scale bytes
/// (FragmentALoadOp): the row and byte offsets of its share, and the prmt
/// that puts the scale bytes in dequant.fragment_a's order.
struct FragmentALoadLowering : OpConversionPattern<FragmentALoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FragmentALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    nvfp4::KernelArith k(b);
    Type i32 = b.getI32Type();
    bool mxfp4 = op.getMxfp4();
    Value thread = adaptor.getThread();
    Value warp = k.divu(thread, k.c(32)), lane = k.remu(thread, k.c(32));
    Value g8 = k.divu(lane, k.c(4)), c4 = k.remu(lane, k.c(4));
    // Fragment rows g and g + 8 of the warp are tile rows rho and rho + 32,
    // so that their scale words sit side by side in the swizzled unit
    // ((r % 32) * 16 + ((r % 128) / 32) * 4): one 8-byte load.
    Value rho = k.add(
        k.add(k.mul(adaptor.getWarpgroup(), k.c(64)), k.mul(warp, k.c(8))), g8);
    // Code bytes 16c .. 16c + 15 of each row's 64.
    Value codeWord0 =
        k.divu(k.add(k.mul(rho, k.c(64)), k.mul(c4, k.c(16))), k.c(4));
    Value codeWord1 = k.add(codeWord0, k.c(32 * 64 / 4));
    // Row rho's scale word in the unit that holds chunks 2c, 2c + 1 (NVFP4:
    // unit c / 2 of two; MXFP4: the one unit, block c), rho + 32's next.
    Value unit = mxfp4 ? k.c(0) : k.divu(c4, k.c(2));
    Value scaleWord =
        k.divu(k.add(k.mul(unit, k.c(nvfp4::Swizzled128x4Attr::kUnitBytes)),
                     nvfp4::Swizzled128x4Attr::buildOffsetInUnit(b, b.getLoc(),
                                                                 rho, k.c(0))),
               k.c(4));
    // prmt selector, as (rho, rho + 32) for chunk 2c, then for chunk
    // 2c + 1: row rho's bytes are word 0 (bytes 0-3), rho + 32's word 1
    // (bytes 4-7). NVFP4: bytes 2(c % 2) and 2(c % 2) + 1 of each; MXFP4:
    // byte c of each, twice (one block of 32 covers both chunks).
    Value lo = mxfp4 ? c4 : k.mul(k.remu(c4, k.c(2)), k.c(2));
    Value hi = mxfp4 ? c4 : k.add(lo, k.c(1));
    Value selector = arith::IndexCastOp::create(
        b, i32,
        k.add(k.add(lo, k.mul(k.add(lo, k.c(4)), k.c(16))),
              k.add(k.mul(hi, k.c(256)), k.mul(k.add(hi, k.c(4)), k.c(4096)))));
    auto load = [&](Value words, Value at, int64_t n, int64_t align) {
      return vector::LoadOp::create(b, VectorType::get({n}, i32), words,
                                    ValueRange{at}, /*nontemporal=*/false,
                                    llvm::Align(align))
          .getResult();
    };
    Value row0 = load(adaptor.getCodes(), codeWord0, 4, 16);
    Value row1 = load(adaptor.getCodes(), codeWord1, 4, 16);
    Value sw = load(adaptor.getScales(), scaleWord, 2, 8);
    Value bytes =
        NVVM::PermuteOp::create(b, i32, vector::ExtractOp::create(b, sw, 0),
                                vector::ExtractOp::create(b, sw, 1), selector,
                                NVVM::PermuteMode::DEFAULT);
    // Rows past the tile's: bytes 0 and 2 are row rho's, 1 and 3 rho + 32's.
    if (Value rows = adaptor.getRows())
      bytes = arith::AndIOp::create(
          b, bytes,
          arith::OrIOp::create(
              b, k.select(k.lt(rho, rows), k.c32(0x00FF00FF), k.c32(0)),
              k.select(k.lt(k.add(rho, k.c(32)), rows), k.c32(0xFF00FF00),
                       k.c32(0))));
    // The last stage's chunks past K: the low half is chunk 2c's.
    if (Value tail = adaptor.getTail()) {
      Value chunk = k.mul(c4, k.c(2));
      Value chunks = k.c(*op.getTailChunks());
      Value mask = arith::OrIOp::create(
          b, k.select(k.lt(chunk, chunks), k.c32(0x0000FFFF), k.c32(0)),
          k.select(k.lt(k.add(chunk, k.c(1)), chunks), k.c32(0xFFFF0000),
                   k.c32(0)));
      bytes = arith::AndIOp::create(b, bytes, k.select(tail, mask, k.c32(-1)));
    }
    Value rowCodes = vector::ShapeCastOp::create(
        b, op.getRowCodes().getType(),
        vector::ShuffleOp::create(b, row0, row1,
                                  ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    rewriter.replaceOp(op, {rowCodes, bytes});
    return success();
  }
};

struct DequantFragmentALowering : OpConversionPattern<DequantFragmentAOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantFragmentAOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    bool e8m0 =
        isa<Float8E8M0FNUType>(op.getScales().getType().getElementType());
    Value result = op.getFragments().getType().getElementType().isBF16()
                       ? lower(E2M1ToBF16(b, e8m0), b, op, adaptor)
                       : lower(E2M1ToF16(b), b, op, adaptor);
    rewriter.replaceOp(op, result);
    return success();
  }

  template <typename Arith>
  static Value lower(Arith dq, ImplicitLocOpBuilder &b, DequantFragmentAOp op,
                     OpAdaptor adaptor) {
    // Both rows' scales at once (f16: times 2^6).
    Value scalePair = dq.scalePair(adaptor.getScales());
    Value splat[2] = {dq.splat(scalePair, 0), dq.splat(scalePair, 1)};
    VectorType codes = op.getCodes().getType();
    int64_t words = codes.getDimSize(1);
    Value result = arith::ConstantOp::create(
        b, DenseElementsAttr::get(
               op.getFragments().getType(),
               b.getFloatAttr(op.getFragments().getType().getElementType(), 0)
                   .getValue()));
    for (int64_t w = 0; w < words; ++w) {
      // [row][parity][slots t0t1, t2t3]
      Value regs[2][2][2];
      for (int64_t r = 0; r < 2; ++r) {
        Value x = vector::ExtractOp::create(b, adaptor.getCodes(),
                                            ArrayRef<int64_t>{r, w});
        for (int64_t p = 0; p < 2; ++p) {
          Value e = dq.prepare(dq.nibbles(x, p == 1));
          regs[r][p][0] = dq.half(e, false, splat[r]);
          regs[r][p][1] = dq.half(e, true, splat[r]);
        }
      }
      for (int64_t p = 0; p < 2; ++p) {
        // a0a1 (r0,t0t1) a2a3 (r1,t0t1) a4a5 (r0,t2t3) a6a7 (r1,t2t3).
        Value lo = vector::ShuffleOp::create(b, regs[0][p][0], regs[1][p][0],
                                             ArrayRef<int64_t>{0, 1, 2, 3});
        Value hi = vector::ShuffleOp::create(b, regs[0][p][1], regs[1][p][1],
                                             ArrayRef<int64_t>{0, 1, 2, 3});
        Value step = vector::ShuffleOp::create(
            b, lo, hi, ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
        result = vector::InsertOp::create(b, step, result,
                                          ArrayRef<int64_t>{2 * w + p});
      }
    }
    return result;
  }
};

struct DequantCodesLowering : OpConversionPattern<DequantCodesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantCodesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    E2M1ToF16 dq(b);
    Value scale = vector::BroadcastOp::create(
        b, VectorType::get({2}, b.getI8Type()),
        arith::BitcastOp::create(b, b.getI8Type(), adaptor.getScale()));
    Value scaled = dq.splat(dq.scalePair(scale), 0);
    // Even nibbles hold values 0, 2, 4, 6 (bytes 0..3), odd ones 1, 3, 5, 7:
    // halves (0, 2), (4, 6) and (1, 3), (5, 7).
    Value even = dq.toE4M3(dq.nibbles(adaptor.getCodes(), false));
    Value odd = dq.toE4M3(dq.nibbles(adaptor.getCodes(), true));
    Value e02 = dq.half(even, false, scaled), e46 = dq.half(even, true, scaled);
    Value o13 = dq.half(odd, false, scaled), o57 = dq.half(odd, true, scaled);
    Value lo =
        vector::ShuffleOp::create(b, e02, o13, ArrayRef<int64_t>{0, 2, 1, 3});
    Value hi =
        vector::ShuffleOp::create(b, e46, o57, ArrayRef<int64_t>{0, 2, 1, 3});
    rewriter.replaceOp(
        op, vector::ShuffleOp::create(
                b, lo, hi, ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    return success();
  }
};

/// Chunk q of a token row into the B tile: value pairs (j, j + 2) as one
/// 32-bit store each, at column wgmmaFragmentK(j) + 64 (q % 2) + 2 (q / 2)
/// of the K block, in 128-byte-swizzled [rows, 64] atoms.
struct StoreTokensLowering : OpConversionPattern<StoreTokensOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreTokensOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    nvfp4::KernelArith k(b);
    int64_t rows = op.getTile().getType().getDimSize(0);
    Value row = adaptor.getRow(), q = adaptor.getChunk();
    // wgmmaFragmentK(j) is a multiple of 8 below 64 for the first value of
    // each pair, and 2 (q / 2) <= 6: the pair sits in 16-byte unit
    // wgmmaFragmentK(j) / 8 of atom q % 2, at byte 4 (q / 2) of it.
    Value rowBase =
        k.add(k.mul(k.remu(q, k.c(2)), k.c(rows * 128)), k.mul(row, k.c(128)));
    Value inUnit = k.mul(k.divu(q, k.c(2)), k.c(4));
    Value rowPhase = k.remu(row, k.c(8));
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, adaptor.getTile());
    auto sharedPtr = LLVM::LLVMPointerType::get(op.getContext(), 3);
    auto f16x2 = VectorType::get({2}, b.getF16Type());
    for (int64_t j : {0, 1, 4, 5, 8, 9, 12, 13}) {
      int64_t column = nvfp4k::wgmmaFragmentK(j);
      assert(column % 8 == 0 && column < 64 &&
             nvfp4k::wgmmaFragmentK(j + 2) == column + 1 &&
             "pairs of a chunk share a 32-bit word");
      Value unit = arith::XOrIOp::create(b, k.c(column / 8), rowPhase);
      Value offset = k.add(k.add(rowBase, k.mul(unit, k.c(16))), inUnit);
      Value address = k.toI64(k.add(base, offset));
      Value pair = vector::FromElementsOp::create(
          b, f16x2,
          ValueRange{vector::ExtractOp::create(b, adaptor.getValues(), j),
                     vector::ExtractOp::create(b, adaptor.getValues(), j + 2)});
      LLVM::StoreOp::create(b, LLVM::BitcastOp::create(b, b.getI32Type(), pair),
                            LLVM::IntToPtrOp::create(b, sharedPtr, address), 4);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct WgmmaRSLowering : OpConversionPattern<WgmmaRSOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The asm of one m64n<n>k16 step: accumulators $0..$(n/2-1), A
  /// $(n/2)..$(n/2+3), the descriptor $(n/2+4) plus `descOffset` (16-byte
  /// units, added in the asm), the scale-d predicate $(n/2+5) when
  /// `predicated`.
  static std::string asmText(int64_t n, int64_t descOffset, bool predicated,
                             StringRef type) {
    int64_t regs = n / 2;
    std::string outs;
    for (int64_t i = 0; i < regs; ++i)
      outs += (i ? ", $" : "$") + std::to_string(i);
    std::string desc = "$" + std::to_string(regs + 4);
    std::string text =
        "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
        "k16.f32." + type.str() + "." + type.str() + " {" + outs + "}, {$" +
        std::to_string(regs) + ", $" +
        std::to_string(regs + 1) + ", $" + std::to_string(regs + 2) + ", $" +
        std::to_string(regs + 3) + "}, " + (descOffset ? "d" : desc) +
        (predicated ? ", p" : ", 1") + ", 1, 1, 0;";
    // The offset goes into the descriptor's low word (start address, bits
    // 0-13): a 32-bit add, since nothing carries into the high word (the
    // leading-dimension field in bits 16-29 stays below bit 32), where a
    // 64-bit add cost ptxas an add with carry and moves of both halves.
    std::string prologue;
    if (descOffset)
      prologue += ".reg .b32 lo, hi;\n.reg .b64 d;\nmov.b64 {lo, hi}, " + desc +
                  ";\nadd.u32 lo, lo, " + std::to_string(descOffset) +
                  ";\nmov.b64 d, {lo, hi};\n";
    if (predicated)
      prologue += ".reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(regs + 5) +
                  ", 0;\n";
    return prologue.empty() ? text : "{\n" + prologue + text + "\n}";
  }
  static std::string constraints(int64_t n, bool predicated) {
    int64_t regs = n / 2;
    std::string c;
    for (int64_t i = 0; i < regs; ++i)
      c += "=f,";
    c += "r,r,r,r,l";
    if (predicated)
      c += ",r";
    for (int64_t i = 0; i < regs; ++i)
      c += "," + std::to_string(i);
    return c;
  }

  /// fence, the k16 steps of width n, commit.
  Value issue(ImplicitLocOpBuilder &b, WgmmaRSOp op, OpAdaptor adaptor,
              int64_t n) const {
    MLIRContext *ctx = op.getContext();
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    int64_t regs = n / 2;
    Type narrow =
        LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(regs, f32));
    MemRefType tile = op.getDescriptor().getType().getTensor();
    int64_t atomBytes = tile.getDimSize(0) * 128; // rows x 64 f16
    Value desc = UnrealizedConversionCastOp::create(b, b.getI64Type(),
                                                    adaptor.getDescriptor())
                     .getResult(0);
    Value accumulate;
    if (adaptor.getScaleD())
      accumulate = arith::ExtUIOp::create(b, i32, adaptor.getScaleD());
    Value acc = adaptor.getAccumulator();
    VectorType a = op.getA().getType();
    NVVM::WgmmaFenceAlignedOp::create(b);
    for (int64_t s = 0; s < a.getDimSize(0); ++s) {
      int64_t k = op.getKOffset() + 16 * s;
      int64_t offset =
          ((k / kWgmmaAtomK) * atomBytes + (k % kWgmmaAtomK) * 2) / 16;
      bool predicated = s == 0 && accumulate;
      Value step = vector::ExtractOp::create(b, adaptor.getA(), s);
      Value words =
          vector::BitCastOp::create(b, VectorType::get({4}, i32), step);
      SmallVector<Value> operands;
      for (int64_t j = 0; j < 4; ++j)
        operands.push_back(vector::ExtractOp::create(b, words, j));
      operands.push_back(desc);
      if (predicated)
        operands.push_back(accumulate);
      for (int64_t i = 0; i < regs; ++i)
        operands.push_back(vector::ExtractOp::create(b, acc, i));
      Value out =
          LLVM::InlineAsmOp::create(
              b, narrow, operands,
              asmText(n, offset, predicated,
                      a.getElementType().isBF16() ? "bf16" : "f16"),
              constraints(n, predicated), /*has_side_effects=*/true,
              /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
              LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
              /*operand_attrs=*/ArrayAttr())
              .getResult(0);
      for (int64_t i = 0; i < regs; ++i)
        acc = vector::InsertOp::create(
            b, LLVM::ExtractValueOp::create(b, out, i), acc, i);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    return acc;
  }

  LogicalResult
  matchAndRewrite(WgmmaRSOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    ArrayRef<int64_t> widths = op.getN();
    // A binary tree of uniform branches over the widths. The fence and the
    // commit stay in each leaf, next to the wgmmas whose registers they
    // order (at a join ptxas would insert a warpgroup.arrive of its own).
    std::function<Value(size_t, size_t)> from = [&](size_t lo,
                                                    size_t hi) -> Value {
      if (lo == hi)
        return issue(b, op, adaptor, widths[lo]);
      size_t mid = (lo + hi) / 2;
      Value low = arith::CmpIOp::create(b, arith::CmpIPredicate::ule,
                                        adaptor.getWidth(), cIndex(b, mid));
      auto branch = scf::IfOp::create(b, TypeRange{op.getResult().getType()},
                                      low, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&branch.getThenRegion().front());
      scf::YieldOp::create(b, from(lo, mid));
      b.setInsertionPointToStart(&branch.getElseRegion().front());
      scf::YieldOp::create(b, from(mid + 1, hi));
      return branch.getResult(0);
    };
    rewriter.replaceOp(op, from(0, widths.size() - 1));
    return success();
  }
};

struct WgmmaWaitLowering : OpConversionPattern<WgmmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WgmmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    int64_t pending = op.getPending();
    if (adaptor.getValues().empty()) {
      NVVM::WgmmaWaitGroupSyncOp::create(b, b.getI64IntegerAttr(pending));
      rewriter.eraseOp(op);
      return success();
    }
    // One asm statement: the wait, with every 32-bit register of `values`
    // tied through it ("=r"/"=f" outputs, "0".."n-1" inputs).
    SmallVector<Value> scalars;
    for (Value v : adaptor.getValues()) {
      auto vector = dyn_cast<VectorType>(v.getType());
      if (!vector) {
        scalars.push_back(v);
        continue;
      }
      Value flat = vector::ShapeCastOp::create(
          b,
          VectorType::get({vector.getNumElements()}, vector.getElementType()),
          v);
      for (int64_t i = 0; i < vector.getNumElements(); ++i)
        scalars.push_back(vector::ExtractOp::create(b, flat, i));
    }
    std::string constraints;
    SmallVector<Type> types;
    for (Value v : scalars) {
      constraints += v.getType().isF32() ? "=f," : "=r,";
      types.push_back(v.getType());
    }
    for (size_t i = 0; i < scalars.size(); ++i)
      constraints += (i ? "," : "") + std::to_string(i);
    auto structType = LLVM::LLVMStructType::getLiteral(op.getContext(), types);
    Value out =
        LLVM::InlineAsmOp::create(
            b, structType, scalars,
            "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";",
            constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None,
            LLVM::AsmDialectAttr::get(op.getContext(),
                                      LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/ArrayAttr())
            .getResult(0);
    SmallVector<Value> results;
    int64_t next = 0;
    for (Value v : adaptor.getValues()) {
      auto vector = dyn_cast<VectorType>(v.getType());
      if (!vector) {
        results.push_back(LLVM::ExtractValueOp::create(b, out, next++));
        continue;
      }
      auto flatType =
          VectorType::get({vector.getNumElements()}, vector.getElementType());
      SmallVector<Value> elements;
      for (int64_t i = 0; i < vector.getNumElements(); ++i)
        elements.push_back(LLVM::ExtractValueOp::create(b, out, next++));
      results.push_back(vector::ShapeCastOp::create(
          b, vector, vector::FromElementsOp::create(b, flatType, elements)));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mlir::nvfp4k::lowering::populateSM90MmaPatterns(const TypeConverter &converter,
    RewritePatternSet &patterns) {
  patterns.add<FragmentALoadLowering, DequantFragmentALowering,
               DequantCodesLowering, StoreTokensLowering, WgmmaRSLowering,
               WgmmaWaitLowering>(converter, patterns.getContext());
}
