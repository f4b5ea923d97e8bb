//===- NVFP4ToSM90.cpp - nvfp4 matmuls on Hopper tensor cores -------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// NVFP4 matmuls become, on the host: an exact NVFP4 -> f16 pre-pass over the
// token operand (A) written in the K order the GEMM kernel consumes, a TMA
// descriptor of that buffer, and one launch of the persistent RS-wgmma kernel
// (GroupedGemmKernel.cpp) over every tile of every group. Everything else
// (and the matmuls this kernel does not cover) goes through the portable
// convert-nvfp4-to-gpu patterns.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToSM90/NVFP4ToSM90.h"

#include "nvfp4/Conversion/GPUCommon/ChipGemm.h"
#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"
#include "nvfp4/Conversion/GPUCommon/GPUConversion.h"
#include "nvfp4/Conversion/GPUCommon/GemmProblem.h"
#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToSM90/GroupedGemmKernel.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"
#include "nvfp4/Dialect/NVFP4/Utils/Storage.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4TOSM90
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// The widest token tile (wgmma N). Each tile runs the narrowest wgmma N in
/// steps of 32 that covers its tokens, so small groups waste little at any
/// width, and wider tiles dequantize each weight block for more tokens. The
/// choice weighs the waves of persistent CTAs against a tile's cost: a K
/// block's dequantization and loads cost about as much as a 128-wide
/// block's MMAs, so a tile of width T costs about (1 + T/128) / 2 of a
/// 128-wide one (device calls of 2026-11-24: 128-wide tiles beat 64-wide
/// ones on every GPU-mode shape, where both fill the GPU; with 4 weight
/// tiles, as in docs/examples/moe_grouped.mlir, 64-wide tiles are faster:
/// 64.4 against 66.4 us for the whole job). 32 is never chosen: its
/// fixed per-block cost is higher than the model says (68.7 us there).
/// Group sizes are static for independent groups and estimated as the mean
/// (contiguous) or the maximum (masked) otherwise.
int64_t chooseTokenTile(const SM90KernelOptions &options,
                        const SM90GemmConfig &cfg) {
  if (options.tokenTile)
    return options.tokenTile;
  int64_t best = 128;
  double bestTime = 0;
  for (int64_t tile : {128, 64}) {
    int64_t tokenTiles = 0;
    if (cfg.mode == Grouping::independent)
      for (int64_t rows : cfg.rowsPerGroup)
        tokenTiles += ceilDiv(rows, tile);
    else
      tokenTiles = cfg.groups * ceilDiv(cfg.typicalRows(), tile);
    int64_t tiles = std::max<int64_t>(tokenTiles * cfg.nTiles(), 1);
    double time = double(ceilDiv(tiles, cfg.ctas)) * (1.0 + tile / 128.0);
    if (tile == 128 || time < bestTime) {
      best = tile;
      bestTime = time;
    }
  }
  return best;
}

/// Whether one kernel can read the token operand itself: it is one operand
/// (independent groups each have their own).
bool canConvertTokens(const GemmShape &shape) {
  return shape.mode != Grouping::independent || shape.groups == 1;
}

/// Rows of the widest group the kernel should expect (static for
/// independent and masked groups; contiguous groups vary at run time, the
/// mean stands for them).
int64_t expectedGroupRows(const GemmShape &shape) {
  if (shape.mode != Grouping::independent)
    return shape.typicalRows();
  return *llvm::max_element(shape.rowsPerGroup);
}

/// Whether the narrow-token kernel, if it runs `shape`, reads FP4 tokens
/// itself (the operand's codes and scales, dequantized like the weights)
/// instead of the f16 pre-pass's: with two token tiles (9-16 tokens), where
/// the f16 tokens a warp loads per block are 4x its code bytes (H200,
/// 2026-11-28: the layer's stall); not for f16 activations (weight-only),
/// nor where tokens=prepass asks for the pre-pass.
bool gemvReadsFp4(const SM90KernelOptions &options, const GemmShape &shape) {
  return shape.maxRows > 8 && !shape.weightOnly() &&
         options.tokens != "prepass";
}

/// Whether a matmul runs on the narrow-token kernel (GemvKernel.cpp):
/// one group (a dense matmul) of 1 to 16 tokens, NVFP4 weights, an f16 MMA
/// (FP4 tokens, a fused quantize, or f16 activations). `auto` takes it
/// where it measured faster than the wgmma kernel (H100 and H200,
/// 2026-11-28, L2-cold layers, one process: benchmarks/results/
/// 2026-11-28-gemv.md, 2026-11-28-gemv-fp4-tokens.md): up to 8 tokens at
/// any shape (M = 1, 4096 x 4096: the GEMM 8.3 against 11.0 us on the
/// H100); 9 to 16 read as FP4 tokens at any shape (H200, M = 16, fe01a4a,
/// 2026-11-28-gemv-registers-prefetch.md: 4096 x 14336 and 14336 x 4096
/// layers 0.5-1.9 us faster than on the wgmma kernel), as f16 pre-pass
/// tokens where N and K are at most 8192 (4096 x 4096 GEMM 11.5 against
/// 12.0; 4096 x 14336 27.6 against 22.8, 7d763ea).
bool useGemv(const SM90KernelOptions &options, const GemmShape &shape) {
  // tokens=in-kernel asks for the wgmma kernel's own token conversion.
  if (options.gemv == "off" || options.tokens == "in-kernel" ||
      shape.mode != Grouping::independent || shape.groups != 1 || shape.mxfp4 ||
      shape.n == 0 || shape.k == 0 ||
      (shape.weightOnly() && !shape.activationElement.isF16()))
    return false;
  int64_t rows = shape.maxRows;
  if (rows < 1 || rows > kSM90GemvMaxTokens)
    return false;
  return options.gemv == "on" || rows <= 8 || gemvReadsFp4(options, shape) ||
         (shape.n <= 8192 && shape.k <= 8192);
}

/// The narrow-token kernel's CTAs per SM (nvvm.minctasm; 0: none). Left
/// to itself ptxas targets about 80 registers a thread for 16 tokens and
/// meets it by issuing a token row's load after the block's first MMAs,
/// two memory round trips a block instead of one (SASS, sm_90a, 16 x 4096
/// x 4096: 80 registers; with .minnctapersm 2, 88 and every load first).
/// So: the CTAs the grid puts on an SM (all resident at once), where that
/// leaves at least 64 registers a thread; at more, ptxas's own target
/// (bounding it harder spilled: 896 CTAs of 160 threads at 56).
int64_t gemvCtasPerSM(const SM90KernelOptions &options,
                      const SM90GemmConfig &cfg) {
  int64_t threads = cfg.gemvThreads();
  // An SM holds at most 2048 threads and 64K registers.
  int64_t fit = 2048 / threads;
  if (options.gemvCtasPerSM > 0)
    return std::min(options.gemvCtasPerSM, fit);
  if (options.gemvCtasPerSM < 0)
    return 0;
  int64_t resident = std::min(ceilDiv(cfg.gemvGrid(), options.ctas), fit);
  return 65536 / (resident * threads) >= 64 ? resident : 0;
}

/// The kernel instance of a matmul: token tile, token source, schedule,
/// ring depth. `converted` is the in-kernel token source the op allows
/// (fp4, or quantize for a fused quantize, whose input elements are
/// `quantizeElement`: the raw tokens' bytes in a stage), or prepass.
SM90GemmConfig configure(const SM90KernelOptions &options,
                         const GemmShape &shape, SM90TokenSource converted,
                         Type quantizeElement = Type()) {
  SM90GemmConfig cfg;
  static_cast<GemmShape &>(cfg) = shape;
  cfg.quantize.element = quantizeElement;
  cfg.ctas = options.ctas;
  cfg.promoteEvery = options.promoteEvery;
  if (useGemv(options, shape)) {
    // The narrow-token kernel: f16 tokens from the pre-pass. Its warps
    // split K: at most 32 per SM over the grid, so that its CTAs all fit
    // at once with 64 registers a thread (gemvCtasPerSM; H100: 14336 x 4096
    // at one token, 896 CTAs, ran fastest with 4 warps, 4096 x 14336 with
    // 16; H200, 16 tokens: 14336 x 4096 with 4 warps and 7 CTAs an SM
    // 21.1 us against 23.7 with 5 warps, two waves), at least 4 K blocks
    // each, at most 8 with two token tiles.
    cfg.gemv = true;
    cfg.tokens =
        converted == SM90TokenSource::fp4 && gemvReadsFp4(options, shape)
            ? SM90TokenSource::fp4
            : SM90TokenSource::prepass;
    cfg.tokenTile = cfg.granule = 8 * cfg.gemvTokenTiles();
    int64_t most = kSM90GemvMaxWarps / cfg.gemvTokenTiles();
    int64_t perSM =
        std::max<int64_t>(1, 32 / ceilDiv(cfg.gemvGrid(), options.ctas));
    cfg.gemvWarps =
        options.gemvWarps
            ? options.gemvWarps
            : std::clamp<int64_t>(std::min(perSM, cfg.kStages() / 4), 1, most);
    cfg.gemvCtasPerSM = gemvCtasPerSM(options, cfg);
    cfg.gemvPrefetch = options.gemvPrefetch;
    return cfg;
  }
  // In-kernel tokens (auto): groups of at most 16 tokens (decode), where a
  // pre-pass launch costs as much as the GEMM and each CTA's conversions
  // are few; wider token tiles keep the pre-pass (measured on an H100,
  // 2026-11-26: at 64 tokens the three converter warps halve the kernel's
  // rate). Contiguous groups vary at run time: a tile of 16 for a mean of
  // at most 8 (a group of more tokens takes several tiles).
  int64_t rows = expectedGroupRows(shape);
  bool inKernel =
      converted != SM90TokenSource::prepass && options.tokens != "prepass" &&
      (options.tokens == "in-kernel" || rows <= kSM90MaxPairedTokenTile) &&
      options.tokenTile <= kSM90MaxConvertedTokenTile;
  if (inKernel) {
    cfg.tokens = converted;
    int64_t fit = std::max<int64_t>(8, ceilDiv(rows, 8) * 8);
    if (shape.mode == Grouping::contiguous)
      fit = rows <= 8 ? kSM90MaxPairedTokenTile : kSM90MaxConvertedTokenTile;
    cfg.tokenTile = options.tokenTile
                        ? options.tokenTile
                        : std::min<int64_t>(kSM90MaxConvertedTokenTile, fit);
  } else {
    cfg.tokenTile = chooseTokenTile(options, cfg);
  }
  int64_t granule = options.granule ? options.granule : inKernel ? 8 : 32;
  cfg.granule = std::min(granule, cfg.tokenTile);
  int64_t tokenTiles = 0;
  if (cfg.mode == Grouping::independent)
    for (int64_t r : cfg.rowsPerGroup)
      tokenTiles += ceilDiv(r, cfg.tokenTile);
  else
    tokenTiles = cfg.groups * ceilDiv(cfg.typicalRows(), cfg.tokenTile);
  int64_t tiles = tokenTiles * cfg.nTiles();
  // Stream-K when whole tiles would leave at least half the SMs idle and
  // K is long enough that a tile's share of it outweighs the fixup of its
  // partials (H100, 2026-11-26, L2-cold decode layers: 32 tiles of 32-112
  // K stages ran 1.2-2x faster stream-K; 112 tiles, or 56 of 16 stages with
  // 128-token partials, ran 1.3-1.5x slower).
  cfg.streamK = options.schedule == "stream-k" ||
                (options.schedule == "auto" && 2 * tiles <= cfg.ctas &&
                 cfg.kStages() >= 32);
  // Cluster split (asked for: `cluster`): every tile's K stages over the
  // CTAs of a cluster, one tile per cluster (the cluster barrier of
  // nvfp4k.scheduler.cluster_sum is passed once per CTA), so only where the
  // tile count is static, and only where the clusters fit the SMs at once
  // (H100, 2026-11-28: 112 tiles in clusters of 2, two waves, ran 1.3x
  // slower than data-parallel; clusters of 4 CTAs of ~220 KiB of shared
  // memory: at most 30 at once, not 33).
  if (options.cluster > 1 && options.schedule != "stream-k" &&
      cfg.mode == Grouping::independent && cfg.kStages() >= options.cluster &&
      tiles > 0 && tiles * options.cluster <= cfg.ctas) {
    cfg.cluster = options.cluster;
    cfg.streamK = false;
    cfg.ctas = tiles * cfg.cluster;
  }
  // Narrow tiles: two CTAs per SM, twice the warps in flight, when there is
  // work for all of them (stream-K, or two whole tiles per SM): a
  // data-parallel grid of fewer tiles would put two on some SMs and none
  // on others (H100: 112 tiles on 264 CTAs ran 1.2-1.4x slower than on
  // 132).
  cfg.ctasPerSM = cfg.cluster == 1 &&
                          cfg.tokenTile <= kSM90MaxPairedTokenTile &&
                          (cfg.streamK || tiles >= 2 * cfg.ctas)
                      ? 2
                      : 1;
  // Decode on one CTA per SM: the K stages of each unit split between two
  // consumer pairs, twice the warps on the dequantization chain (a tile's
  // work is one SM's, however many SMs idle). Where the pairs' registers
  // fit: token tiles of at most 16.
  bool splittable =
      cfg.ctasPerSM == 1 && cfg.tokenTile <= kSM90MaxSplitTokenTile;
  bool wanted = options.kSplit ? options.kSplit == 2
                               : rows <= kSM90MaxSplitTokenTile;
  auto chooseStages = [&] {
    cfg.stages = options.stages ? std::min(options.stages, cfg.maxStages())
                                : cfg.maxStages();
  };
  cfg.kSplit = splittable && wanted ? 2 : 1;
  chooseStages();
  // A ring too shallow for the split (stages=2) runs unsplit.
  if (cfg.kSplit == 2 && cfg.stages < kSM90MinSplitStages) {
    cfg.kSplit = 1;
    chooseStages();
  }
  return cfg;
}

/// A fused quantize's operands (converted): its input, the i64 address of
/// its scale source, its seed (null without stochastic rounding); for a
/// quantize in the pre-pass, the buffer its decode scale goes to (the
/// GEMM's a_decode: [] or [groups] f32).
struct FusedTokens {
  Value input, scaleSource, seed, decodeOut;
};

/// The token operand, exactly in the MMA's element type (f16; bf16 for
/// MXFP4 tokens and bf16 activations): dst[row, :] holds token-matrix row
/// `row` (the groups' rows one after another; FP4 codes times their block
/// scales, or a weight-only matmul's activations) without its decode scale,
/// permuted inside each 128-block as the kernel consumes K
/// (nvfp4k::wgmmaFragmentK), zero in the K padding. One launch, one thread per
/// 16-value chunk. `values`/`scales` hold one operand per group (independent,
/// rows `rowsPerGroup`) or one [rows] / [groups, rows] operand. With
/// `fused` (a fused quantize, cfg.quantize) the values are its input's,
/// quantized in the pre-pass as the quantize would (the codes and scales
/// are never written: the fusion's intermediates have no other reader),
/// and the first thread of each batch entry writes its decode scale.
void emitTokenPrepass(OpBuilder &builder, Location loc,
                      const SM90GemmConfig &cfg, ArrayRef<Value> values,
                      ArrayRef<Value> scales, Value dst,
                      const FusedTokens *fused = nullptr) {
  ImplicitLocOpBuilder b(loc, builder);
  KernelArith ix(b);
  int64_t k = cfg.k, chunks = cfg.kPadded() / kChunk;
  bool batched = cfg.mode == Grouping::masked;
  int64_t totalRows = batched ? cfg.groups * cfg.maxRows : cfg.maxRows;
  auto f32x16 = VectorType::get({kChunk}, b.getF32Type());
  // No scales: f16 activations of a weight-only matmul.
  auto scaleOf = [&](size_t i) { return scales.empty() ? Value() : scales[i]; };
  // The body for token-matrix chunk `linear`; `blockAmax` the fused
  // quantize's amax where the block reduced it (Scale::blockAmax).
  auto body = [&](Value linear, Value blockAmax) {
    NumericsBuilder nb(b, loc, b.getF32Type());
    SmallVector<Value> id = ix.delinearize(linear, {totalRows, chunks});
    Value row = id[0], chunk = id[1];
    // A fused quantize's S_enc, S_dec and decode scale of batch entry
    // `bIdx` (null: the one tensor's).
    auto entryScales = [&](Value bIdx) {
      if (blockAmax)
        return QuantizeCodegen(b, loc, cfg.quantize.spec, Value(), Value(),
                               Value(), fused->seed)
            .tensorScales(blockAmax);
      return cfg.quantize.load(b, fused->scaleSource, fused->seed,
                               bIdx ? bIdx : ix.c(0));
    };
    // The 16 values of chunk `chunk` of row r of one operand, as f32:
    // FP4 codes times their block scale, or f16 activations (weight-only)
    // as they are.
    auto chunkValues = [&](Value operand, Value scaleOperand, Value bIdx,
                           Value r) {
      Value k0 = ix.mul(chunk, ix.c(kChunk));
      if (fused) {
        // The fused quantize's 16 input values, quantized and read back.
        const SM90TokenQuantize &q = cfg.quantize;
        Value in = vector::LoadOp::create(
            b, loc, VectorType::get({kChunk}, q.element), fused->input,
            withBatch(bIdx, {r, k0}), false, llvm::Align(16));
        if (!q.element.isF32())
          in = arith::ExtFOp::create(b, loc, f32x16, in);
        SmallVector<Value> x;
        for (int64_t i = 0; i < kChunk; ++i)
          x.push_back(vector::ExtractOp::create(b, loc, in, i));
        return Value(vector::FromElementsOp::create(
            b, loc, f32x16,
            q.dequantizedChunk(b, fused->seed, x, entryScales(bIdx), bIdx, r,
                               k0)));
      }
      if (!scaleOperand) {
        Type element = cast<MemRefType>(operand.getType()).getElementType();
        Value half = vector::LoadOp::create(
            b, loc, VectorType::get({kChunk}, element), operand,
            withBatch(bIdx, {r, k0}), false, llvm::Align(16));
        return Value(arith::ExtFOp::create(b, loc, f32x16, half));
      }
      Value packed = vector::LoadOp::create(
          b, loc, VectorType::get({kChunk / 2}, b.getI8Type()), operand,
          withBatch(bIdx, {r, ix.divu(k0, ix.c(2))}), false, llvm::Align(8));
      // The chunk's block scale: E4M3 per 16 values, or E8M0 per 32 (MXFP4
      // tokens: bf16 holds their products exactly, f16 does not).
      Value scale =
          cfg.mxfp4
              ? nb.e8m0Decode(loadScaleByte(b, loc, scaleOperand,
                                            /*swizzled=*/true, bIdx, r,
                                            ix.divu(chunk, ix.c(2))))
              : nb.e4m3Decode(loadScaleByte(b, loc, scaleOperand,
                                            /*swizzled=*/true, bIdx, r, chunk));
      SmallVector<Value> out;
      for (int64_t i = 0; i < kChunk; ++i) {
        Value byte = arith::ExtUIOp::create(
            b, loc, b.getI32Type(),
            vector::ExtractOp::create(b, loc, packed, i / 2));
        Value code = arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, byte, nb.i32(4 * (i % 2))),
            nb.i32(0xF));
        out.push_back(nb.mul(nb.e2m1Decode(code), scale));
      }
      return Value(vector::FromElementsOp::create(b, loc, f32x16, out));
    };
    auto valuesOf = scf::IfOp::create(b, loc, TypeRange{f32x16},
                                      ix.lt(chunk, ix.c(k / kChunk)),
                                      /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&valuesOf.getThenRegion().front());
      Value vals;
      if (cfg.mode != Grouping::independent || cfg.groups == 1) {
        Value bIdx = batched ? ix.divu(row, ix.c(cfg.maxRows)) : Value();
        Value r = batched ? ix.remu(row, ix.c(cfg.maxRows)) : row;
        vals = chunkValues(values.front(), scaleOf(0), bIdx, r);
      } else {
        // The group of the row, the last whose first row is at or before
        // it (a compare per group: G is small; empty groups are skipped
        // over), then its own operand.
        Value g = ix.c(0);
        SmallVector<int64_t> starts;
        int64_t start = 0;
        for (int64_t rows : cfg.rowsPerGroup) {
          starts.push_back(start);
          if (starts.size() > 1)
            g = arith::SelectOp::create(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row,
                                      ix.c(start)),
                ix.c(starts.size() - 1), g);
          start += rows;
        }
        // The groups' operands differ only in their row count: as memrefs
        // of a dynamic first dimension one of them is picked (a select
        // per group) and one body reads it, not a copy of the body per
        // group (the canonicalizer's time grew with G x body).
        ImplicitLocOpBuilder ib(loc, b);
        KernelArith k(ib);
        auto pickOperand = [&](function_ref<Value(size_t)> operand) {
          SmallVector<Value> picks;
          for (int64_t i = 0; i < cfg.groups; ++i) {
            Value v = operand(i);
            auto type = cast<MemRefType>(v.getType());
            SmallVector<int64_t> shape(type.getShape());
            shape[0] = ShapedType::kDynamic;
            auto dynamic = MemRefType::get(shape, type.getElementType(),
                                           type.getLayout(),
                                           type.getMemorySpace());
            picks.push_back(memref::CastOp::create(b, loc, dynamic, v));
          }
          return k.pick(picks, g);
        };
        Value operand = pickOperand([&](size_t i) { return values[i]; });
        Value scaleOperand =
            scales.empty() ? Value()
                           : pickOperand([&](size_t i) { return scales[i]; });
        vals = chunkValues(operand, scaleOperand, Value(),
                           k.sub(row, k.pick(starts, g)));
      }
      scf::YieldOp::create(b, loc, ValueRange{vals});
      b.setInsertionPointToStart(&valuesOf.getElseRegion().front());
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::ConstantOp::create(
              b, loc,
              DenseElementsAttr::get(f32x16, b.getF32FloatAttr(0.0f)))});
    }
    // A fused quantize's decode scale (the epilogue's a_decode), from the
    // first thread of each batch entry.
    if (fused) {
      Value entryRow = batched ? ix.remu(row, ix.c(cfg.maxRows)) : row;
      ix.ifThen(
          arith::AndIOp::create(b, loc, ix.eq(entryRow, ix.c(0)),
                                ix.eq(chunk, ix.c(0))),
          [&] {
            Value bIdx = batched ? ix.divu(row, ix.c(cfg.maxRows)) : Value();
            memref::StoreOp::create(b, loc, entryScales(bIdx).decodeScale,
                                    fused->decodeOut,
                                    bIdx ? ValueRange{bIdx} : ValueRange{});
          });
    }
    Value dstRow = row;
    Value vals = valuesOf.getResult(0);
    // Permuted positions: value pairs (i, i+2) land in adjacent columns.
    // nvfp4k::wgmmaFragmentK(16 q + i) = nvfp4k::wgmmaFragmentK(i) + 64 (q % 2)
    // + 2 (q / 2) for chunk q of a 128-block; gemvTokenColumn(q, i) =
    // gemvTokenColumn(0, i) + 16 q.
    Value blockBase = ix.mul(ix.divu(chunk, ix.c(8)), ix.c(kSM90StageK));
    Value inBlock = ix.remu(chunk, ix.c(8));
    Value chunkPart = cfg.gemv
                          ? ix.mul(inBlock, ix.c(16))
                          : ix.add(ix.mul(ix.remu(inBlock, ix.c(2)), ix.c(64)),
                                   ix.mul(ix.divu(inBlock, ix.c(2)), ix.c(2)));
    auto columnOf = [&](int64_t i) {
      return cfg.gemv ? gemvTokenColumn(0, i) : nvfp4k::wgmmaFragmentK(i);
    };
    // The MMA's element type: f16, or bf16 (weight-only bf16 activations):
    // either way the values are exact in it.
    auto f16x2 = VectorType::get({2}, cfg.mmaElement(b.getContext()));
    for (int64_t i : {0, 1, 4, 5, 8, 9, 12, 13}) {
      Value pair = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, b.getF32Type()),
          ValueRange{vector::ExtractOp::create(b, loc, vals, i),
                     vector::ExtractOp::create(b, loc, vals, i + 2)});
      Value half = arith::TruncFOp::create(b, loc, f16x2, pair);
      Value col = ix.add(ix.add(blockBase, ix.c(columnOf(i))), chunkPart);
      vector::StoreOp::create(b, loc, half, dst, ValueRange{dstRow, col}, false,
                              llvm::Align(4));
    }
  };
  int64_t total = totalRows * chunks;
  if (!fused || cfg.quantize.scale != SM90TokenQuantize::Scale::blockAmax) {
    launchLinear(b, loc, total, [&](Value linear) { body(linear, Value()); });
    return;
  }
  // One small entry whose amax every block reduces itself: no amax kernel
  // ahead of this one.
  int64_t threads = kBlockAmaxThreads;
  launchGrid(
      b, loc, {ceilDiv(total, threads), 1, 1}, {threads, 1, 1},
      [&](gpu::LaunchOp launch) {
        Value amax = emitBlockAmax(b, loc, launch, cfg.quantize.spec,
                                   fused->input, fused->seed, Value());
        Value linear = ix.add(ix.mul(launch.getBlockIds().x, ix.c(threads)),
                              launch.getThreadIds().x);
        ix.ifThen(ix.lt(linear, ix.c(total)), [&] { body(linear, amax); });
      });
}

/// The matmul, described for the kernel: operands in device memory.
/// Emits the pre-pass, the descriptor and the kernel launch; `fused` gives
/// the activations of quantized tokens.
void emitSM90Gemm(ConversionPatternRewriter &rewriter, Operation *op,
                  const SM90GemmConfig &cfg, const GemmProblem &ops,
                  const FusedTokens *fused = nullptr) {
  Location loc = op->getLoc();
  ImplicitLocOpBuilder b(loc, rewriter);
  MLIRContext *ctx = b.getContext();
  auto module = op->getParentOfType<ModuleOp>();
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  KernelArith ix(b);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  int64_t totalRows =
      cfg.mode == Grouping::masked ? cfg.groups * cfg.maxRows : cfg.maxRows;
  SmallVector<Value> kernelArgs, temporaries;
  switch (cfg.tokens) {
  case SM90TokenSource::prepass: {
    // Token operand in f16, permuted K, and its TMA descriptor (the runtime
    // caches it per buffer): [tokenTile, 64] boxes, 128-byte swizzle, the
    // layout wgmma's B descriptor reads.
    auto xType = MemRefType::get(
        {std::max<int64_t>(totalRows, 1), cfg.kPadded()}, cfg.mmaElement(ctx));
    Value x = allocDevice(b, loc, xType);
    temporaries.push_back(x);
    if (totalRows)
      emitTokenPrepass(b, loc, cfg, ops.aValues, ops.aScales, x, fused);
    if (cfg.gemv) {
      kernelArgs.push_back(deviceAddress(b, loc, x));
      break;
    }
    Value unranked = memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(cfg.mmaElement(ctx), Attribute()), x);
    Value desc = nvgpu::TmaCreateDescriptorOp::create(
        b, loc, sm90TokenMapType(ctx, cfg), unranked,
        ValueRange{ix.c(cfg.tokenTile), ix.c(nvfp4k::kWgmmaAtomK)});
    // gpu.func arguments cannot be tensor-map descriptors: pass the pointer.
    kernelArgs.push_back(
        UnrealizedConversionCastOp::create(b, loc, ptr, desc).getResult(0));
    break;
  }
  case SM90TokenSource::fp4:
    // The raw codes ([rows, K/2] bytes, [tokenTile, 64] boxes; the narrow
    // kernel loads them itself) and the swizzled scales of the one token
    // operand.
    kernelArgs.push_back(
        cfg.gemv ? deviceAddress(b, loc, ops.aValues.front())
                 : createByteTensorMap(b, loc, ops.aValues.front(), totalRows,
                                       cfg.k / 2, sm90TokenMapType(ctx, cfg)));
    kernelArgs.push_back(deviceAddress(b, loc, ops.aScales.front()));
    break;
  case SM90TokenSource::quantize: {
    // The high-precision activations as [rows, K] ([tokenTile, 128] boxes,
    // unswizzled), the scale source, the seed.
    Type element = cfg.quantize.element;
    Value flat = memref::ReinterpretCastOp::create(
        b, loc, MemRefType::get({totalRows, cfg.k}, element), fused->input,
        /*offset=*/0, ArrayRef<int64_t>{totalRows, cfg.k},
        ArrayRef<int64_t>{cfg.k, 1});
    Value unranked = memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(element, Attribute()), flat);
    Value desc = nvgpu::TmaCreateDescriptorOp::create(
        b, loc, sm90TokenMapType(ctx, cfg), unranked,
        ValueRange{ix.c(cfg.tokenTile), ix.c(kSM90StageK)});
    kernelArgs.push_back(
        UnrealizedConversionCastOp::create(b, loc, ptr, desc).getResult(0));
    kernelArgs.push_back(fused->scaleSource);
    if (cfg.quantize.spec.stochastic)
      kernelArgs.push_back(fused->seed);
    break;
  }
  }
  // The weights' raw FP4 bytes: stacked [G, N, K] operands are one map of
  // G * N rows.
  int64_t weightRows = cfg.stackedWeights() ? cfg.groups * cfg.n : cfg.n;
  for (Value w : ops.weights)
    kernelArgs.push_back(
        cfg.gemv ? deviceAddress(b, loc, w)
                 : createByteTensorMap(b, loc, w, weightRows, cfg.k / 2,
                                       sm90WeightMapType(ctx)));
  for (Value s : ops.weightScales)
    kernelArgs.push_back(deviceAddress(b, loc, s));
  // Stream-K: the partial accumulators and the tiles' arrival flags, which
  // start at zero and which the kernel leaves so: kept zero (emitKeptZero),
  // a warm call queues no memset for them. Allocated at the start of the
  // block, ahead of the kernels that make the GEMM's operands (the token
  // quantize): a memset between two kernels, where one is needed, would keep
  // the GEMM from launching while the quantize runs (programmatic dependent
  // launch).
  if (cfg.streamK) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(b.getInsertionBlock());
    auto alloc = [&](MemRefType type) {
      Value buffer = allocDevice(b, loc, type);
      temporaries.push_back(buffer);
      return buffer;
    };
    Value partials =
        alloc(MemRefType::get({cfg.partialFloats()}, b.getF32Type()));
    Value flags = alloc(MemRefType::get({cfg.gridSize()}, b.getI32Type()));
    Value flagsAddress = emitKeptZero(b, loc, flags);
    kernelArgs.push_back(deviceAddress(b, loc, partials));
    kernelArgs.push_back(flagsAddress);
  }
  ops.appendEpilogueArgs(b, loc, kernelArgs);

  // The kernel, in its own gpu.module.
  std::string name = uniqueSymbolName(module, cfg.gemv ? "nvfp4_sm90_gemv"
                                                       : "nvfp4_sm90_gemm");
  gpu::GPUFuncOp kernel;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, loc, name);
    kernel = cfg.gemv
                 ? buildSM90GemvKernel(b, loc, gpuModule, name, cfg)
                 : buildSM90GroupedGemmKernel(b, loc, gpuModule, name, cfg);
  }
  Value smem = arith::ConstantIntOp::create(
      b, loc, b.getI32Type(),
      nvfp4k::sharedMemoryLaunchBytes(cfg.gemv ? cfg.gemvSharedBytes()
                                               : cfg.bufferBytes()));
  std::optional<gpu::KernelDim3> cluster;
  if (cfg.cluster > 1)
    cluster = gpu::KernelDim3{ix.c(cfg.cluster), ix.c(1), ix.c(1)};
  int64_t grid = cfg.gemv ? cfg.gemvGrid() : cfg.gridSize();
  int64_t threads = cfg.gemv ? cfg.gemvThreads() : cfg.threads();
  gpu::LaunchFuncOp::create(
      b, loc, kernel, gpu::KernelDim3{ix.c(grid), ix.c(1), ix.c(1)},
      gpu::KernelDim3{ix.c(threads), ix.c(1), ix.c(1)}, smem, kernelArgs,
      /*asyncTokenType=*/Type(), /*asyncDependencies=*/ValueRange{}, cluster);
  for (Value buffer : temporaries)
    gpu::DeallocOp::create(b, loc, Type(), ValueRange{}, buffer);
}

/// Whether the kernel covers a matmul: NVFP4, or MXFP4 with bf16-mma (E8M0
/// scales span a range only bf16 holds: the bf16 MMA, on bf16 activations
/// or on MXFP4 tokens the pre-pass dequantizes to bf16), an even N
/// (outputs are stored in pairs), K a multiple of 32 (a TMA map's row
/// stride, K/2 bytes, is a multiple of 16).
LogicalResult supported(ConversionPatternRewriter &rewriter, Operation *op,
                        const GemmShape &shape,
                        const SM90KernelOptions &options) {
  bool bf16Activations =
      shape.weightOnly() && !shape.activationElement.isF16();
  if (shape.mxfp4 && !options.bf16Mma)
    return rewriter.notifyMatchFailure(
        op, "sm90 kernel: MXFP4 runs on the bf16 MMA (bf16-mma is off)");
  if (shape.mxfp4 && shape.weightOnly() && !bf16Activations)
    return rewriter.notifyMatchFailure(
        op, "sm90 kernel: MXFP4 weights on f16 activations (their products "
            "need bf16's range, the activations f16's precision)");
  // f16 activations are exact in the f16 MMA; bf16 ones need the bf16 MMA
  // (their range is wider), which runs only when asked for so far.
  if (bf16Activations && !options.bf16Mma)
    return rewriter.notifyMatchFailure(
        op, "sm90 kernel: bf16 activations of a weight-only matmul run "
            "portably (bf16-mma is off)");
  if (shape.n % 2)
    return rewriter.notifyMatchFailure(op, "sm90 kernel: N must be even");
  if (shape.k % 32)
    return rewriter.notifyMatchFailure(op, "sm90 kernel: K % 32 != 0");
  return success();
}

/// Where the kernel takes a matmul's A operand from (no fused quantize):
/// weight-only f16 activations go through the pre-pass (a permuting
/// copy); FP4 tokens are converted in the kernel where it can.
SM90TokenSource operandTokenSource(const GemmShape &shape) {
  return canConvertTokens(shape) && !shape.weightOnly() && !shape.mxfp4
             ? SM90TokenSource::fp4
             : SM90TokenSource::prepass;
}

/// nvfp4.matmul and nvfp4.grouped_matmul (a dense matmul is one independent
/// group) on the kernel.
template <typename OpTy> struct GemmToSM90 : ChipGemmPattern<OpTy> {
  GemmToSM90(const TypeConverter &converter, MLIRContext *ctx,
             SM90KernelOptions options)
      : ChipGemmPattern<OpTy>(converter, ctx, "sm90 kernel"), options(options) {
  }
  LogicalResult lowerGemm(Operation *op, const GemmProblem &problem,
                          ConversionPatternRewriter &rewriter) const override {
    if (failed(supported(rewriter, op, problem.shape, options)))
      return failure();
    SM90GemmConfig cfg =
        configure(options, problem.shape, operandTokenSource(problem.shape));
    emitSM90Gemm(rewriter, op, cfg, problem);
    return success();
  }
  SM90KernelOptions options;
};

/// Whether the GEMM kernel takes the work of nvfp4.fused's `quantize`
/// for a matmul of `shape`.
bool kernelTakesQuantize(const SM90KernelOptions &options,
                         const GemmShape &shape, QuantizeOp quantize) {
  // Zero sizes, K = 0 and what the kernel does not cover: the ops' own
  // lowerings.
  if (shape.n == 0 || shape.empty() || shape.k == 0 || shape.n % 2 ||
      shape.k % 32 || shape.mxfp4)
    return false;
  SM90GemmConfig cfg = configure(
      options, shape, SM90TokenSource::quantize,
      cast<ShapedType>(quantize.getInput().getType()).getElementType());
  // Wide token tiles take the f16 tokens from a pre-pass: the quantize
  // is done there (one kernel where the unfused ops run two, the
  // quantize and the FP4 -> f16 pre-pass). Narrow ones could quantize in
  // the GEMM, but every CTA quantizes the tokens of its own tiles, once
  // per weight tile, and a CTA's first stages wait for its quantization:
  // on the H100 (2026-11-26, L2-cold layers, a calibrated scale) that
  // cost more than the launch it saves in every decode layer measured
  // (M = 1, 4096 x 4096: 16.4 us fused against 16.1 for the quantize's
  // one kernel and the GEMM on FP4 tokens; M = 16, 4096 x 14336: 42.7
  // against 33.8; MoE 128 x 4: 318.9 against 271.8). So they run unfused
  // unless tokens=in-kernel asks for the fused kernel.
  if (cfg.convertsTokens() ? options.tokens != "in-kernel"
                           : !options.quantizeInPrepass)
    return false;
  // A narrow-token kernel reading FP4 tokens: the quantize's own kernel
  // writes them (no f16 pre-pass to fold it into).
  return !(cfg.gemv && gemvReadsFp4(options, shape));
}

/// Whether the GEMM kernel's epilogue takes nvfp4.fused's output quantize
/// (F6) of a matmul of `shape` (its swiglu included) whose tokens come from
/// `source`: when quantize-in-epilogue asks for it (the option says why
/// not by default), in the wgmma kernel on one CTA per tile (no cluster
/// split), whole 16-column blocks of a dense or contiguous result; the
/// narrow-token kernel leaves it to the quantize's own kernel.
bool kernelTakesOutputQuantize(const SM90KernelOptions &options,
                               GemmShape shape, SM90TokenSource source,
                               Type quantizeElement = Type()) {
  if (!options.quantizeInEpilogue || shape.n == 0 || shape.empty() ||
      shape.k == 0 || shape.n % 2 || shape.k % 32 ||
      shape.resultColumns() % 16 || shape.mode == Grouping::masked ||
      (shape.mode == Grouping::independent && shape.groups != 1))
    return false;
  shape.outputQuantize = GemmShape::OutputQuantize{};
  SM90GemmConfig cfg = configure(options, shape, source, quantizeElement);
  return !cfg.gemv && cfg.cluster == 1;
}

/// The matmul of a verified nvfp4.fused as the kernels see it, from its
/// `operands` (converted, or the op's own before the conversion).
FailureOr<GemmProblem> fusedProblem(Operation *matmul, ValueRange operands) {
  std::string why;
  if (auto dense = dyn_cast<MatmulOp>(matmul))
    return GemmProblem::get(dense, MatmulOp::Adaptor(operands, dense), why);
  auto grouped = cast<GroupedMatmulOp>(matmul);
  return GemmProblem::get(grouped, GroupedMatmulOp::Adaptor(operands, grouped),
                          why);
}

/// nvfp4.fused as one kernel sequence. An activation quantize: the GEMM
/// quantizes its tokens itself (decode shapes), after an amax kernel when
/// the quantize computes its amax, or the token pre-pass does. A swiglu:
/// the GEMM's epilogue computes it and writes its output, never the
/// matmul's. A quantize the kernel does not take (wide token tiles, by
/// default at decode sizes) runs before the fused matmul and swiglu; what
/// the kernel does not cover runs unfused: the body is inlined and lowered
/// op by op.
struct FusedToSM90 : OpConversionPattern<FusedOp> {
  FusedToSM90(const TypeConverter &converter, MLIRContext *ctx,
              SM90KernelOptions options)
      : OpConversionPattern<FusedOp>(converter, ctx, /*benefit=*/2),
        options(options) {}

  LogicalResult
  matchAndRewrite(FusedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    QuantizeOp quantize = op.getQuantize();
    SwigluOp swiglu = op.getEpilogue();
    QuantizeOp outQuantize = op.getOutputQuantize();
    Operation *consumer = op.getMatmul();
    // What comes from outside the region is converted already; the
    // intermediates inside are never read by the fused kernels.
    auto remapped = [&](Operation *inner) -> FailureOr<SmallVector<Value>> {
      SmallVector<Value> out;
      if (!inner)
        return out;
      for (Value v : inner->getOperands()) {
        Operation *def = v.getDefiningOp();
        Value mapped =
            def && op->isAncestor(def) ? v : rewriter.getRemappedValue(v);
        if (!mapped)
          return failure();
        out.push_back(mapped);
      }
      return out;
    };
    FailureOr<SmallVector<Value>> operands = remapped(consumer);
    FailureOr<SmallVector<Value>> qOperands = remapped(quantize);
    FailureOr<SmallVector<Value>> sOperands = remapped(swiglu);
    FailureOr<SmallVector<Value>> oOperands = remapped(outQuantize);
    if (failed(operands) || failed(qOperands) || failed(sOperands) ||
        failed(oOperands))
      return rewriter.notifyMatchFailure(op, "operands not converted");
    FailureOr<GemmProblem> problem = fusedProblem(consumer, *operands);
    auto unfused = [&] {
      op.inlineBody(rewriter);
      return success();
    };
    if (failed(problem))
      return unfused();
    if (swiglu) {
      // The kernel writes the swiglu's output: [rows, N/2] of its type,
      // from outputs rounded to the matmul's (the intermediate's) type.
      GemmShape &shape = problem->shape;
      SwigluOp::Adaptor s(*sOperands, swiglu);
      shape.swiglu = swiglu.getParams();
      shape.intermediateElement = shape.outElement;
      shape.outElement =
          cast<MemRefType>(s.getOut().getType()).getElementType();
      problem->outs = {s.getOut()};
    }
    if (outQuantize) {
      // The kernel writes the quantize's codes, scales and decode scale
      // from its results rounded to the quantize's input type.
      QuantizeOp::Adaptor o(*oOperands, outQuantize);
      problem->shape.outputQuantize = GemmShape::OutputQuantize{
          cast<ShapedType>(outQuantize.getInput().getType()).getElementType(),
          outQuantize.hasGivenEncodeScale(), outQuantize.hasSwizzledScales()};
      problem->outs = {o.getOuts()[0]};
      problem->outScales = o.getOuts()[1];
      problem->outDecode = o.getOuts()[2];
      problem->outScale = outQuantize.hasGivenEncodeScale()
                              ? o.getEncodeScale()
                              : o.getDecodeScale();
    }
    // The matmul and its epilogue without a quantize (a quantize the
    // kernel does not take was hoisted before the conversion).
    auto withoutQuantize = [&]() -> LogicalResult {
      if ((!swiglu && !outQuantize) || quantize)
        return unfused();
      const GemmShape &shape = problem->shape;
      if (shape.n == 0 || shape.empty() || shape.k == 0 ||
          failed(supported(rewriter, op, shape, options)))
        return unfused();
      SM90GemmConfig cfg = configure(options, shape, operandTokenSource(shape));
      emitSM90Gemm(rewriter, op, cfg, *problem);
      if (shape.mode == Grouping::masked)
        emitMaskedRowsFill(rewriter, op.getLoc(), *problem);
      rewriter.eraseOp(op);
      return success();
    };
    if (!quantize || !kernelTakesQuantize(options, problem->shape, quantize))
      return withoutQuantize();
    GemmShape &shape = problem->shape;
    SM90GemmConfig cfg = configure(
        options, shape, SM90TokenSource::quantize,
        cast<ShapedType>(quantize.getInput().getType()).getElementType());
    bool inKernel = cfg.convertsTokens();
    if (inKernel) {
      // The kernel forms a_decode (the quantize's decode scale) itself.
      problem->aDecode = Value();
      shape.aDecode = shape.aDecodePerGroup = false;
      cfg.aDecode = cfg.aDecodePerGroup = false;
    }
    QuantizeOp::Adaptor q(*qOperands, quantize);
    cfg.quantize.spec = QuantizeSpec::get(quantize);

    Location loc = op.getLoc();
    FusedTokens fused{q.getInput(), Value(), q.getSeed()};
    TensorAmax tensorAmax;
    if (Value amax = q.getAmax()) {
      cfg.quantize.scale = SM90TokenQuantize::Scale::amax;
      fused.scaleSource = deviceAddress(rewriter, loc, amax);
    } else if (Value scale = quantize.hasGivenEncodeScale()
                                 ? q.getEncodeScale()
                                 : q.getDecodeScale()) {
      cfg.quantize.scale = quantize.hasGivenEncodeScale()
                               ? SM90TokenQuantize::Scale::encode
                               : SM90TokenQuantize::Scale::decode;
      fused.scaleSource = deviceAddress(rewriter, loc, scale);
    } else if (cfg.gemv &&
               shape.maxRows * shape.k <= options.fusedQuantizeMaxElements) {
      // A narrow-token layer's few activations (at most the bound of the
      // portable quantize's one-kernel form, and for the same reason):
      // the pre-pass's blocks each reduce their amax, no amax kernel
      // before them (H200, 2026-11-28: M = 1, 4096 x 4096, 12.9 -> 9.0 us
      // for the layer; at M = 16, 64K elements, 12.9 -> 15.5: its 8 blocks
      // each read all of them).
      cfg.quantize.scale = SM90TokenQuantize::Scale::blockAmax;
    } else {
      // The tensor amax first (per batch entry): a grid-wide reduction.
      cfg.quantize.scale = SM90TokenQuantize::Scale::amaxBits;
      tensorAmax =
          emitTensorAmax(rewriter, loc, cfg.quantize.spec, q.getInput());
      fused.scaleSource = deviceAddress(rewriter, loc, tensorAmax.bits);
    }
    if (!inKernel) {
      // The pre-pass writes the decode scale the epilogue reads, to a
      // buffer of its own (the quantize's is inside the fused op).
      auto type = cast<MemRefType>(problem->aDecode.getType());
      fused.decodeOut = allocDevice(rewriter, loc, type);
      problem->aDecode = fused.decodeOut;
    }
    emitSM90Gemm(rewriter, op, cfg, *problem, &fused);
    if (shape.mode == Grouping::masked)
      emitMaskedRowsFill(rewriter, loc, *problem);
    tensorAmax.release(rewriter, loc);
    if (fused.decodeOut)
      gpu::DeallocOp::create(rewriter, loc, Type(), ValueRange{},
                             fused.decodeOut);
    rewriter.eraseOp(op);
    return success();
  }
  SM90KernelOptions options;
};

struct ConvertNVFP4ToSM90Pass
    : public nvfp4::impl::ConvertNVFP4ToSM90Base<ConvertNVFP4ToSM90Pass> {
  using Base::Base;
  void runOnOperation() override {
    // The kernel's limits: wgmma N (and the accumulator registers), the
    // 227 KiB of shared memory, the pairs-of-blocks K loop.
    auto reject = [&](const Twine &message) {
      getOperation().emitError() << "convert-nvfp4-to-sm90: " << message;
      signalPassFailure();
    };
    if (tokenTile != 0 && tokenTile != 8 && tokenTile != 16 &&
        tokenTile != 32 && tokenTile != 64 && tokenTile != 128)
      return reject(
          "token-tile must be 0 (choose), 8, 16, 32, 64 or 128, got " +
          Twine(tokenTile));
    if (schedule != "auto" && schedule != "data-parallel" &&
        schedule != "stream-k")
      return reject("schedule must be auto, data-parallel or stream-k, got '" +
                    Twine(schedule) + "'");
    if (tokens != "auto" && tokens != "prepass" && tokens != "in-kernel")
      return reject("tokens must be auto, prepass or in-kernel, got '" +
                    Twine(tokens) + "'");
    // The ring must fit with the widest tile the option allows.
    SM90GemmConfig widest;
    widest.tokenTile = tokenTile ? tokenTile : 128;
    if (stages != 0 && (stages < 2 || stages > widest.maxStages()))
      return reject("stages must be 0 (the deepest that fits) or 2 to " +
                    Twine(widest.maxStages()) + " with " +
                    Twine(widest.tokenTile) + "-token tiles, got " +
                    Twine(stages));
    if (ctas < 1 || ctas > kMaxPersistentCtas)
      return reject("ctas must be 1 to " + Twine(kMaxPersistentCtas) +
                    ", got " + Twine(ctas));
    if (granule != 0 && granule != 8 && granule != 16 && granule != 32)
      return reject("granule must be 0 (choose), 8, 16 or 32, got " +
                    Twine(granule));
    if (kSplit < 0 || kSplit > 2)
      return reject("k-split must be 0 (choose), 1 or 2, got " +
                    Twine(kSplit));
    if (cluster != 1 && cluster != 2 && cluster != 4)
      return reject("cluster must be 1, 2 or 4, got " + Twine(cluster));
    if (gemv != "auto" && gemv != "on" && gemv != "off")
      return reject("gemv must be auto, on or off, got '" + Twine(gemv) + "'");
    if (gemvWarps < 0 || gemvWarps > kSM90GemvMaxWarps)
      return reject("gemv-warps must be 0 (choose) to " +
                    Twine(kSM90GemvMaxWarps) + ", got " + Twine(gemvWarps));
    if (gemvPrefetch < 0)
      return reject("gemv-prefetch must be non-negative, got " +
                    Twine(gemvPrefetch));
    if (gemvCtasPerSM < -1 || gemvCtasPerSM > 32)
      return reject("gemv-ctas-per-sm must be -1 (none), 0 (choose) or 1 "
                    "to 32, got " +
                    Twine(gemvCtasPerSM));
    if (promoteEvery < 0 || promoteEvery % 2)
      return reject("promote-every must be even and non-negative, got " +
                    Twine(promoteEvery));
    SM90KernelOptions gemm;
    gemm.ctas = ctas;
    gemm.tokenTile = tokenTile;
    gemm.stages = stages;
    gemm.granule = granule;
    gemm.promoteEvery = promoteEvery;
    gemm.kSplit = kSplit;
    gemm.cluster = cluster;
    gemm.quantizeInPrepass = quantizeInPrepass;
    gemm.quantizeInEpilogue = quantizeInEpilogue;
    gemm.schedule = schedule;
    gemm.tokens = tokens;
    gemm.bf16Mma = bf16Mma;
    gemm.gemv = gemv;
    gemm.gemvWarps = gemvWarps;
    gemm.gemvCtasPerSM = gemvCtasPerSM;
    gemm.gemvPrefetch = gemvPrefetch;
    GPUKernelOptions portable;
    portable.fusedQuantizeMaxElements = fusedQuantizeMaxElements;
    // A fused quantize the GEMM kernel does not take runs first, before a
    // matmul that keeps its fused epilogue: out of the op, on buffers the
    // conversion then treats as any other.
    // An output quantize the kernel does not take runs after it; a group
    // left with its matmul alone is the matmul.
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](FusedOp op) {
      QuantizeOp quantize = op.getQuantize();
      QuantizeOp outQuantize = op.getOutputQuantize();
      bool epilogue = op.getEpilogue() || outQuantize;
      FailureOr<GemmProblem> problem =
          fusedProblem(op.getMatmul(), op.getMatmul()->getOperands());
      if (quantize && epilogue &&
          (failed(problem) ||
           !kernelTakesQuantize(gemm, problem->shape, quantize))) {
        op.hoistQuantize(rewriter);
        quantize = QuantizeOp();
      }
      if (outQuantize) {
        bool takes = false;
        if (succeeded(problem)) {
          GemmShape shape = problem->shape;
          if (op.getEpilogue())
            shape.swiglu = op.getEpilogue().getParams();
          takes = quantize ? kernelTakesOutputQuantize(
                                 gemm, shape, SM90TokenSource::quantize,
                                 cast<ShapedType>(quantize.getInput().getType())
                                     .getElementType())
                           : kernelTakesOutputQuantize(
                                 gemm, shape, operandTokenSource(shape));
        }
        if (!takes)
          op.hoistOutputQuantize(rewriter);
      }
      if (!op.getQuantize() && !op.getEpilogue() && !op.getOutputQuantize())
        op.inlineBody(rewriter);
    });
    if (failed(applyGPUConversion(
            getOperation(),
            [&](const TypeConverter &converter, RewritePatternSet &patterns) {
              populateNVFP4ToGPUConversionPatterns(converter, patterns,
                                                   portable);
              populateNVFP4ToSM90ConversionPatterns(converter, patterns, gemm);
            })))
      signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateNVFP4ToSM90ConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const SM90KernelOptions &options) {
  patterns.add<GemmToSM90<MatmulOp>, GemmToSM90<GroupedMatmulOp>, FusedToSM90>(
      converter, patterns.getContext(), options);
}
