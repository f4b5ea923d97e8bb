//===- GemvKernel.cpp - the sm_90a kernel of narrow dense matmuls ---------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Builds the kernel of dense matmuls of at most 16 tokens (decode layers;
// the narrow-token kernel of docs/design/sm90-gemm.md): no shared-memory ring,
// no warp roles. Each CTA owns 16 weight rows; its warps split K. A thread
// loads its 16 code bytes of two rows and their two scale bytes per 128-K
// block straight from global memory into registers, dequantizes them
// exactly (nvfp4k.dequant.fragment_a, the A fragments the wgmma kernel
// builds) and issues `mma.sync.m16n8k16` (nvgpu.mma.sync) against the f16
// tokens a pre-pass wrote in the order the fragments need. The warps' fp32
// sums meet in shared memory and warp 0 adds them in warp order (the same
// bits on every run) and stores the outputs (nvfp4k.store).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUCommon/DependentLaunch.h"
#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Conversion/NVFP4ToSM90/GroupedGemmKernel.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

class GemvBuilder : KernelArith {
public:
  GemvBuilder(ImplicitLocOpBuilder &b, const SM90GemmConfig &cfg)
      : KernelArith(b), cfg(cfg), ctx(b.getContext()) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name);

private:
  /// `type` loaded from byte `offset` of the device address `base`.
  /// `invariant`: memory no kernel writes while this one runs (the
  /// weights: ld.global.nc); the tokens are not, since with a dependent
  /// launch this kernel is resident while the pre-pass writes them (it
  /// reads them after griddepcontrol.wait, with plain loads).
  Value load(Type type, Value base, Value offset, unsigned align,
             bool invariant) {
    return LLVM::LoadOp::create(b, type, globalAt(base, offset), align,
                                /*isVolatile=*/false,
                                /*isNonTemporal=*/false, invariant);
  }
  Value zeros(Type type) {
    auto shaped = cast<VectorType>(type);
    Type element = shaped.getElementType();
    Attribute zero = isa<FloatType>(element)
                         ? Attribute(b.getFloatAttr(element, 0.0))
                         : Attribute(b.getIntegerAttr(element, 0));
    return arith::ConstantOp::create(b, DenseElementsAttr::get(shaped, zero));
  }
  /// `v` (1-D, rows x cols elements) as rows x cols, row by row
  /// (n-D shape casts have no LLVM lowering; inserts of rows do).
  Value asRows(Value v, int64_t rows, int64_t cols) {
    auto type = cast<VectorType>(v.getType());
    Value out = zeros(VectorType::get({rows, cols}, type.getElementType()));
    for (int64_t r = 0; r < rows; ++r) {
      SmallVector<int64_t> mask;
      for (int64_t i = 0; i < cols; ++i)
        mask.push_back(r * cols + i);
      out = vector::InsertOp::create(
          b, vector::ShuffleOp::create(b, v, v, mask), out, r);
    }
    return out;
  }
  /// The device address `base` + `offset` (bytes), a global pointer.
  Value globalAt(Value base, Value offset) {
    auto global = LLVM::LLVMPointerType::get(ctx, 1);
    return LLVM::GEPOp::create(b, global, b.getI8Type(),
                               LLVM::IntToPtrOp::create(b, global, base),
                               ValueRange{toI64(offset)});
  }
  /// The CTA's weights (its rows' codes, their scale bytes) brought into
  /// L2 by bulk prefetches before the kernel waits for the one ahead.
  void prefetchWeights(Value tid);
  /// The thread's fp32 sums over its warp's K blocks: one m16n8
  /// accumulator per 8 tokens.
  SmallVector<Value> mainLoop(Value warp, Value lane);
  /// Warp 0: the other warps' sums added in warp order, then the outputs.
  void epilogue(ArrayRef<Value> sums, Value warp, Value lane);

  const SM90GemmConfig &cfg;
  MLIRContext *ctx;
  /// The token operand: f16 from the pre-pass, or FP4 codes and their
  /// swizzled scales (cfg.tokens == fp4).
  Value tokens, tokenScales, weights, scales, row0;
  EpilogueArgs args;
};

void GemvBuilder::prefetchWeights(Value tid) {
  int64_t kBlocks = cfg.kStages(), warps = cfg.gemvWarps;
  int64_t per = ceilDiv(kBlocks, warps);
  int64_t depth = std::min(cfg.gemvPrefetch, per);
  auto i32 = [&](Value v) {
    return arith::IndexCastOp::create(b, b.getI32Type(), v).getResult();
  };
  // Codes: thread 16w + r, for warp w's first `depth` K blocks of row
  // row0 + r, 64 bytes a block, contiguous, up to the row's end (K is a
  // multiple of 32: its K / 2 bytes a multiple of 16); rows past N none.
  ifThen(lt(tid, c(kSM90GemvRows * warps)), [&] {
    Value row = add(row0, remu(tid, c(kSM90GemvRows)));
    Value begin = mul(divu(tid, c(kSM90GemvRows)), c(per));
    Value count = clamp(sub(c(kBlocks), begin), c(0), c(depth));
    ifThen(arith::AndIOp::create(b, lt(row, c(cfg.n)), lt(c(0), count)), [&] {
      NVVM::CpAsyncBulkPrefetchOp::create(
          b,
          globalAt(weights,
                   add(mul(row, c(cfg.k / 2)), mul(begin, c(kSM90StageK / 2)))),
          i32(minsi(mul(count, c(kSM90StageK / 2)),
                    sub(c(cfg.k / 2), mul(begin, c(kSM90StageK / 2))))),
          Value());
    });
  });
  // Scales: a K block is two 128x4 units of the row tile; the CTA's 16
  // rows (of one 32-row group) fill 256 bytes of each, 16 a row, a span
  // that starts where row row0 & ~96 (the same row of the tile's first
  // 32) has the unit's first column.
  int64_t units = ceilDiv(cfg.k / 16, Swizzled128x4Attr::kTileCols);
  int64_t unitsPerBlock = kSM90StageK / 16 / Swizzled128x4Attr::kTileCols;
  Value spanRow = add(sub(row0, remu(row0, c(Swizzled128x4Attr::kTileRows))),
                      remu(row0, c(32)));
  scf::ForOp::create(
      b, tid, c(warps * depth * unitsPerBlock), c(cfg.gemvThreads()),
      ValueRange{}, [&](OpBuilder &, Location, Value e, ValueRange) {
        Value w = divu(e, c(depth * unitsPerBlock));
        Value u = add(mul(mul(w, c(per)), c(unitsPerBlock)),
                      remu(e, c(depth * unitsPerBlock)));
        ifThen(lt(u, c(units)), [&] {
          Value at = Swizzled128x4Attr::buildOffset(
              b, b.getLoc(), spanRow, mul(u, c(Swizzled128x4Attr::kTileCols)),
              cfg.k / 16);
          NVVM::CpAsyncBulkPrefetchOp::create(
              b, globalAt(scales, at),
              arith::ConstantIntOp::create(b, b.getI32Type(),
                                           16 * kSM90GemvRows),
              Value());
        });
        scf::YieldOp::create(b);
      });
}

SmallVector<Value> GemvBuilder::mainLoop(Value warp, Value lane) {
  Type i32 = b.getI32Type();
  int64_t tiles = cfg.gemvTokenTiles(), warps = cfg.gemvWarps;
  int64_t kBlocks = cfg.kStages();
  int64_t per = ceilDiv(kBlocks, warps);
  bool fp4Tokens = cfg.tokens == SM90TokenSource::fp4;
  assert((!fp4Tokens || tiles == 2) && "FP4 tokens fill both fragment rows");
  Value g = divu(lane, c(4)), q = remu(lane, c(4));
  // Fragment rows g and g + 8 of the CTA's 16 (loads clamped to the last
  // row; rows past N are not stored).
  Value lastRow = c(cfg.n - 1);
  static_assert(kSM90GemvRows == 16, "two m16n8k16 fragment rows of 8");
  Value rowA = minsi(add(row0, g), lastRow);
  Value rowB = minsi(add(row0, add(g, c(8))), lastRow);
  // Row r's scale bytes of 16-value chunks 2q, 2q + 1 of K block j (scale
  // columns 8j + 2q, + 1) sit side by side in their 128x4 unit; a block
  // (8 columns) further along K is 2 units further on in the row's tile:
  // the offset of block 0 (hoisted out of the loop) plus 2 units a block.
  int64_t blockUnits = kSM90StageK / 16 / Swizzled128x4Attr::kTileCols;
  Value scaleBaseA = Swizzled128x4Attr::buildOffset(b, b.getLoc(), rowA,
                                                    mul(q, c(2)), cfg.k / 16);
  Value scaleBaseB = Swizzled128x4Attr::buildOffset(b, b.getLoc(), rowB,
                                                    mul(q, c(2)), cfg.k / 16);
  auto scaleOffset = [&](Value base, Value j) {
    return add(base, mul(j, c(blockUnits * Swizzled128x4Attr::kUnitBytes)));
  };
  // The thread's 8 tokens of each tile: rows 8t + g of the pre-pass
  // operand ([M, kPadded] f16), clamped (zero past M); of FP4 tokens, the
  // same rows of the codes ([M, K/2]) with their scale bytes (clamped: the
  // columns of tokens past M are not stored).
  SmallVector<Value> tokenRows, tokenLive, tokenScaleBases;
  for (int64_t t = 0; t < tiles; ++t) {
    Value n = add(c(8 * t), g);
    tokenLive.push_back(lt(n, c(cfg.maxRows)));
    tokenRows.push_back(minsi(n, c(cfg.maxRows - 1)));
    if (fp4Tokens)
      tokenScaleBases.push_back(Swizzled128x4Attr::buildOffset(
          b, b.getLoc(), tokenRows.back(), mul(q, c(2)), cfg.k / 16));
  }
  auto codesType = VectorType::get({4}, i32);
  auto tokenType = VectorType::get({16}, i32);
  auto accType = VectorType::get({2, 2}, b.getF32Type());
  auto f8 = b.getType<Float8E4M3FNType>();
  // fp32 promotion (sm90-gemm.md: the tensor core's fp32 accumulation
  // truncates, so its error grows with the K it sums): each block's MMAs
  // start from zero and their sums are added to an fp32 total per tile
  // after the block (with promote-every=0 the sums run over the warp's
  // blocks instead).
  bool promote = cfg.promoteEvery > 0;
  SmallVector<Value> init(promote ? tiles : 2 * tiles, zeros(accType));

  Value begin = minsi(mul(warp, c(per)), c(kBlocks));
  Value end = minsi(add(begin, c(per)), c(kBlocks));
  auto loop = scf::ForOp::create(
      b, begin, end, c(1), init,
      [&](OpBuilder &, Location, Value j, ValueRange acc) {
        SmallVector<Value> sums(acc);
        SmallVector<Value> totals;
        if (promote) {
          totals = sums;
          sums.assign(2 * tiles, zeros(accType));
        }
        // The thread's 32 values of the block: K 128 j + 32 q, all inside
        // K or all past it (K is a multiple of 32).
        Value inK = lt(add(mul(j, c(kSM90StageK)), mul(q, c(32))), c(cfg.k));
        Value codeAt = add(mul(j, c(kSM90StageK / 2)), mul(q, c(16)));
        // Row r's 16 code bytes of the block in `codes` ([rows, K/2]) and
        // its two scale bytes (offset `base` at block 0) in `bytes`; the
        // weights' loads invariant, the tokens' not (the kernel ahead
        // writes them).
        auto rowCodes = [&](Value codes, Value r, bool invariant = true) {
          Value at = select(inK, add(mul(r, c(cfg.k / 2)), codeAt), c(0));
          return select(inK, load(codesType, codes, at, 16, invariant),
                        zeros(codesType));
        };
        auto rowScales = [&](Value bytes, Value base, bool invariant = true) {
          Value at = select(inK, scaleOffset(base, j), c(0));
          Value bits = load(b.getI16Type(), bytes, at, 2, invariant);
          return select(inK, bits,
                        arith::ConstantIntOp::create(b, b.getI16Type(), 0));
        };
        Value codes[2] = {rowCodes(weights, rowA), rowCodes(weights, rowB)};
        Value scaleBits[2] = {rowScales(scales, scaleBaseA),
                              rowScales(scales, scaleBaseB)};
        // FP4 tokens: their two rows as the weights' (the tokens of the
        // previous kernel: plain loads).
        SmallVector<Value> tok, tokenCodes, tokenBits;
        for (int64_t t = 0; t < tiles; ++t) {
          if (fp4Tokens) {
            tokenCodes.push_back(rowCodes(tokens, tokenRows[t], false));
            tokenBits.push_back(
                rowScales(tokenScales, tokenScaleBases[t], false));
            continue;
          }
          Value at = mul(add(mul(tokenRows[t], c(cfg.kPadded())),
                             add(mul(j, c(kSM90StageK)), mul(q, c(32)))),
                         c(2));
          tok.push_back(select(tokenLive[t],
                               load(tokenType, tokens, at, 16, false),
                               zeros(tokenType)));
        }
        // Chunk 2q + h: code words 2h, 2h + 1 of each of two rows and
        // their scale bytes h give the m16n8k16 A fragments of four k16
        // steps (w, p): words w, values of parity p
        // (nvfp4k.dequant.fragment_a).
        auto fragments = [&](int64_t h, ArrayRef<Value> rowWords,
                             ArrayRef<Value> bits) -> Value {
          SmallVector<Value> words;
          for (Value row : rowWords)
            for (int64_t w = 0; w < 2; ++w)
              words.push_back(vector::ExtractOp::create(b, row, 2 * h + w));
          auto scaleByte = [&](Value pair) {
            Value byte = arith::TruncIOp::create(
                b, b.getI8Type(),
                arith::ShRUIOp::create(
                    b, pair,
                    arith::ConstantIntOp::create(b, b.getI16Type(), 8 * h)));
            return arith::BitcastOp::create(b, f8, byte).getResult();
          };
          Value scalePair = vector::FromElementsOp::create(
              b, VectorType::get({2}, f8),
              ValueRange{scaleByte(bits[0]), scaleByte(bits[1])});
          return nvfp4k::DequantFragmentAOp::create(
              b, VectorType::get({4, 8}, b.getF16Type()),
              vector::ShapeCastOp::create(
                  b, VectorType::get({2, 2}, i32),
                  vector::FromElementsOp::create(b, VectorType::get({4}, i32),
                                                 words)),
              scalePair);
        };
        for (int64_t h = 0; h < 2; ++h) {
          Value frags = fragments(h, codes, scaleBits);
          // FP4 tokens dequantized the same way, token rows g and g + 8 as
          // the fragment's two rows: a fragment's values (a0..a7) of row g
          // at K positions 2q, 2q + 1, 2q + 8, 2q + 9 (a0, a1, a4, a5) are
          // the B fragment (b0..b3) of token g, those of row g + 8 (a2, a3,
          // a6, a7) that of token 8 + g: the same K as the weights' A.
          Value tokenFrags =
              fp4Tokens ? fragments(h, tokenCodes, tokenBits) : Value();
          for (int64_t w = 0; w < 2; ++w)
            for (int64_t p = 0; p < 2; ++p) {
              Value a = asRows(vector::ExtractOp::create(b, frags, 2 * w + p),
                               4, 2);
              for (int64_t t = 0; t < tiles; ++t) {
                Value bValues;
                if (fp4Tokens) {
                  Value all =
                      vector::ExtractOp::create(b, tokenFrags, 2 * w + p);
                  bValues = vector::ShuffleOp::create(
                      b, all, all,
                      ArrayRef<int64_t>{2 * t, 2 * t + 1, 2 * t + 4,
                                        2 * t + 5});
                } else {
                  // The pre-pass wrote the token values b0..b3 of step
                  // (w, p) as f16 words 8h + 4w + 2p, + 1.
                  int64_t word = 8 * h + 4 * w + 2 * p;
                  Value pair = vector::FromElementsOp::create(
                      b, VectorType::get({2}, i32),
                      ValueRange{
                          vector::ExtractOp::create(b, tok[t], word),
                          vector::ExtractOp::create(b, tok[t], word + 1)});
                  bValues = vector::BitCastOp::create(
                      b, VectorType::get({4}, b.getF16Type()), pair);
                }
                Value bFrag = asRows(bValues, 2, 2);
                // Two accumulators (step parity) halve the chain of
                // dependent MMAs.
                Value &sum = sums[2 * t + p];
                sum = nvgpu::MmaSyncOp::create(b, a, bFrag, sum,
                                               ArrayRef<int64_t>{16, 8, 16});
              }
            }
        }
        if (promote) {
          for (int64_t t = 0; t < tiles; ++t)
            totals[t] = arith::AddFOp::create(
                b, totals[t],
                arith::AddFOp::create(b, sums[2 * t], sums[2 * t + 1]));
          sums = totals;
        }
        scf::YieldOp::create(b, sums);
      });
  if (promote)
    return SmallVector<Value>(loop.getResults());
  SmallVector<Value> out;
  for (int64_t t = 0; t < tiles; ++t)
    out.push_back(arith::AddFOp::create(b, loop.getResult(2 * t),
                                        loop.getResult(2 * t + 1)));
  return out;
}

void GemvBuilder::epilogue(ArrayRef<Value> sums, Value warp, Value lane) {
  int64_t tiles = cfg.gemvTokenTiles(), warps = cfg.gemvWarps;
  int64_t perLane = 4 * tiles;
  auto f32 = b.getF32Type();
  SmallVector<Value> values;
  for (Value acc : sums)
    for (int64_t i = 0; i < 4; ++i)
      values.push_back(
          vector::ExtractOp::create(b, acc, ArrayRef<int64_t>{i / 2, i % 2}));
  // Warps 1.. store their sums (element e of lane l of warp w at
  // ((w - 1) * perLane + e) * 32 + l: conflict-free), warp 0 adds them in
  // warp order.
  Value buffer;
  auto slot = [&](Value w, int64_t e) {
    return add(mul(add(mul(sub(w, c(1)), c(perLane)), c(e)), c(32)), lane);
  };
  if (warps > 1) {
    int64_t floats = (warps - 1) * perLane * 32;
    Value smem = nvfp4k::SharedMemoryOp::create(
        b, shared({floats * 4}, b.getI8Type()));
    buffer = memref::ViewOp::create(b, shared({floats}, f32), smem, c(0),
                                    ValueRange{});
    ifThen(cmp(arith::CmpIPredicate::sgt, warp, c(0)), [&] {
      for (int64_t e = 0; e < perLane; ++e)
        memref::StoreOp::create(b, values[e], buffer, slot(warp, e));
    });
    gpu::BarrierOp::create(b);
  }
  ifThen(eq(warp, c(0)), [&] {
    for (int64_t w = 1; w < warps; ++w)
      for (int64_t e = 0; e < perLane; ++e)
        values[e] = arith::AddFOp::create(
            b, values[e], memref::LoadOp::create(b, buffer, slot(c(w), e)));
    // Element i of tile t is token 8t + 2q + i % 2 of weight row
    // row0 + g + 8 (i / 2); the output is [M, N], row-major.
    Value g = divu(lane, c(4)), q = remu(lane, c(4));
    Value group = c(0), rows = c(cfg.maxRows), columns = c(cfg.n);
    Value alpha = cfg.alphaPerOutput()
                      ? Value()
                      : args.alphaAt(b, b.getLoc(), cfg, group, Value(),
                                     Value(), Value());
    Value accIn = cfg.hasAcc ? args.accs.front() : Value();
    Value bias = args.biasRow(b, b.getLoc(), cfg, group);
    auto alphaOf = [&](Value token, Value n) {
      return alpha ? alpha
                   : args.alphaAt(b, b.getLoc(), cfg, group, token, rows, n);
    };
    auto tokenOf = [&](int64_t t, int64_t i) {
      return add(c(8 * t + i % 2), mul(q, c(2)));
    };
    if (nvfp4k::SwigluAttr swiglu = sm90EpilogueSwiglu(ctx, cfg)) {
      // A fused swiglu pairs columns 2n, 2n + 1: weight rows g, g ^ 1, in
      // lanes 4 apart, which trade their values. Each lane then computes
      // one pair of every two: the even row's lane the even token's, the
      // odd row's the odd token's (no lane idles).
      Value width = arith::ConstantIntOp::create(b, b.getI32Type(), 32);
      Value four = arith::ConstantIntOp::create(b, b.getI32Type(), 4);
      Value evenRow = eq(remu(g, c(2)), c(0));
      auto pair = VectorType::get({2}, f32);
      auto traded = [&](Value v) {
        return gpu::ShuffleOp::create(b, v, four, width, gpu::ShuffleMode::XOR)
            .getShuffleResult();
      };
      for (int64_t t = 0; t < tiles; ++t)
        for (int64_t h = 0; h < 2; ++h) {
          // Elements 2h (even token) and 2h + 1 (odd token) of rows
          // g + 8h and its neighbour.
          Value evenTok = values[4 * t + 2 * h],
                oddTok = values[4 * t + 2 * h + 1];
          Value otherEven = traded(evenTok), otherOdd = traded(oddTok);
          Value gate = select(evenRow, evenTok, otherOdd);
          Value up = select(evenRow, otherEven, oddTok);
          Value token =
              select(evenRow, tokenOf(t, 2 * h), tokenOf(t, 2 * h + 1));
          Value column =
              add(row0, add(sub(g, select(evenRow, c(0), c(1))), c(8 * h)));
          Value at = alpha ? alpha
                           : vector::FromElementsOp::create(
                                 b, pair,
                                 ValueRange{alphaOf(token, column),
                                            alphaOf(token, add(column, c(1)))});
          nvfp4k::StoreOp::create(
              b, vector::FromElementsOp::create(b, pair, ValueRange{gate, up}),
              args.outputs.front(), token, column, rows, columns, at, bias,
              accIn, TypeAttr::get(cfg.outElement), b.getI64IntegerAttr(cfg.n),
              b.getF32FloatAttr(cfg.beta), swiglu, biasElementAttr(cfg));
        }
      return;
    }
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t i = 0; i < 4; ++i) {
        Value token = tokenOf(t, i);
        Value column = add(row0, add(g, c(8 * (i / 2))));
        nvfp4k::StoreOp::create(
            b,
            vector::FromElementsOp::create(b, VectorType::get({1}, f32),
                                           ValueRange{values[4 * t + i]}),
            args.outputs.front(), token, column, rows, columns,
            alphaOf(token, column), bias, accIn, TypeAttr::get(cfg.outElement),
            b.getI64IntegerAttr(cfg.n), b.getF32FloatAttr(cfg.beta),
            nvfp4k::SwigluAttr(), biasElementAttr(cfg));
      }
  });
}

gpu::GPUFuncOp GemvBuilder::build(gpu::GPUModuleOp module, StringRef name) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  Type i64 = b.getI64Type();
  bool fp4Tokens = cfg.tokens == SM90TokenSource::fp4;
  SmallVector<Type> argTypes(fp4Tokens ? 4 : 3, i64);
  argTypes.append(EpilogueArgs::count(cfg), i64);
  auto func =
      gpu::GPUFuncOp::create(b, name, FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("nvvm.maxntid",
                b.getDenseI32ArrayAttr({int32_t(cfg.gemvThreads()), 1, 1}));
  if (cfg.gemvCtasPerSM)
    func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(cfg.gemvCtasPerSM));
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  auto argIt = entry.getArguments().begin();
  tokens = *argIt++;
  if (fp4Tokens)
    tokenScales = *argIt++;
  weights = *argIt++;
  scales = *argIt++;
  args = EpilogueArgs::take(cfg, argIt);

  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warp = warpUniform(divu(tid, c(32))), lane = remu(tid, c(32));
  row0 = mul(gpu::BlockIdOp::create(b, gpu::Dimension::x),
             c(kSM90GemvRows));
  // The weights stream into L2 while the kernel ahead (the tokens' quantize
  // or pre-pass) runs: with a dependent launch this one has started by
  // then. Everything else it reads may come from that kernel.
  if (cfg.gemvPrefetch > 0)
    prefetchWeights(tid);
  emitGridDependencyWait(b, b.getLoc());
  SmallVector<Value> sums = mainLoop(warp, lane);
  epilogue(sums, warp, lane);
  gpu::ReturnOp::create(b);
  return func;
}

} // namespace

gpu::GPUFuncOp mlir::nvfp4::buildSM90GemvKernel(OpBuilder &builder,
                                                Location loc,
                                                gpu::GPUModuleOp module,
                                                StringRef name,
                                                const SM90GemmConfig &config) {
  ImplicitLocOpBuilder b(loc, builder);
  GemvBuilder kernel(b, config);
  return kernel.build(module, name);
}
