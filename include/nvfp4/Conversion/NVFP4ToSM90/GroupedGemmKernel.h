//===- GroupedGemmKernel.h - the sm_90a block-scaled GEMM -------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The Hopper kernel behind nvfp4.matmul / nvfp4.grouped_matmul (NVFP4),
// built from the kernel-level nvfp4k ops: persistent, warp-specialised,
// register-A ("RS") wgmma with fp32 accumulation. docs/design/sm90-gemm.md
// describes it; in short, per CTA tile of 128 weight rows x up to
// `tokenTile` tokens:
//
// * swap-AB: the weight operand (the op's B, [G, N, K], large N) is wgmma's
//   M side, 64 rows per consumer warpgroup; tokens (the op's A) are wgmma's
//   N side, sized to the tile;
// * one producer thread fills an S-stage ring: per stage of 128 K, two TMA
//   boxes of the f16 token tile (128B swizzle), one TMA box of the raw FP4
//   weight bytes [128 rows, 64 bytes] and one bulk copy of the two 512-byte
//   swizzled scale units that cover them;
// * each consumer thread reads its 16 code bytes of two weight rows and
//   their scale bytes from the stage (two 16-byte and one 8-byte shared
//   loads), dequantizes them exactly to f16 (nvfp4k.dequant.fragment_a)
//   and issues the stage's 8 k16 steps as two nvfp4k.wgmma.rs steps;
// * tokens come from a pre-pass (exact NVFP4 -> f16), written in the K
//   order the fragments need (nvfp4k::wgmmaFragmentK);
// * every `promoteEvery` K blocks the tensor-core partial sum is added to an
//   fp32 total in registers (the tensor core's accumulation truncates);
// * the epilogue pairs neighbouring outputs with one shuffle and stores
//   them with nvfp4k.store.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOSM90_GROUPEDGEMMKERNEL_H
#define NVFP4_CONVERSION_NVFP4TOSM90_GROUPEDGEMMKERNEL_H

#include "nvfp4/Conversion/GPUCommon/GemmProblem.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir {
namespace nvfp4 {

/// Weight rows per consumer warpgroup (wgmma M) and per CTA.
constexpr int64_t kSM90WarpgroupRows = 64;
constexpr int64_t kSM90ConsumerWarpgroups = 2;
constexpr int64_t kSM90TileRows = kSM90WarpgroupRows * kSM90ConsumerWarpgroups;
/// setmaxnreg budgets: 2 x 128 consumer threads and 128 producer threads
/// (the producer's tile walk and four copies per stage spill with 24). The
/// consumers' setmaxnreg.inc takes only what the producer's .dec released
/// from the launch's allocation, 168 registers a thread (65536 / 384,
/// rounded down to a multiple of 8): a split that asks for more waits
/// forever (kSM90RegisterSplitFits).
constexpr int64_t kSM90LaunchRegisters = 168;
constexpr int64_t kSM90ConsumerRegisters = 232;
constexpr int64_t kSM90ProducerRegisters = 40;
constexpr bool kSM90RegisterSplitFits(int64_t producer, int64_t consumer,
                                      int64_t launch = kSM90LaunchRegisters) {
  return 128 * producer + 256 * consumer <= 384 * launch && producer % 8 == 0 &&
         consumer % 8 == 0;
}
static_assert(kSM90RegisterSplitFits(kSM90ProducerRegisters,
                                     kSM90ConsumerRegisters));
/// Two CTAs per SM (narrow token tiles, decode): twice the warps to hide
/// the latency of the dequantization chain; each CTA gets 80 registers a
/// thread at launch (65536 / 768, a multiple of 8) and half the shared
/// memory. The consumers' accumulators of at most 16 tokens fit in 96.
constexpr int64_t kSM90PairLaunchRegisters = 80;
constexpr int64_t kSM90PairProducerRegisters = 48;
constexpr int64_t kSM90PairConsumerRegisters = 96;
static_assert(kSM90RegisterSplitFits(kSM90PairProducerRegisters,
                                     kSM90PairConsumerRegisters,
                                     kSM90PairLaunchRegisters));
/// The widest token tile that runs two CTAs per SM.
constexpr int64_t kSM90MaxPairedTokenTile = 16;
/// K split between two pairs of consumer warpgroups (narrow token tiles on
/// one CTA per SM): the second pair takes every other stage of a work unit
/// and hands its sum to the first through shared memory, twice the warps on
/// the dequantization chain. Five warpgroups of 96 registers a thread
/// (65536 / 640, a multiple of 8), and no setmaxnreg: ptxas allocates no
/// more than that to any code of a 640-thread kernel. The consumers of
/// token tiles of at most 16 fit, on either MMA (32-token tiles spill).
constexpr int64_t kSM90MaxSplitTokenTile = 16;
/// A split pair waits for its stage i still holding its previous one,
/// i - 2 (released after the wait, as an unsplit consumer releases i - 1):
/// the producer refills stage i's slot once stage i - stages is released,
/// so the ring needs at least three stages (with two, each pair waited on
/// the slot it held: a hang).
constexpr int64_t kSM90MinSplitStages = 3;
/// The named barriers of the split's hand-over: the second pair's sum is
/// in shared memory (full), the first pair has read it (free).
constexpr int64_t kSM90SplitFullBarrier = 2;
constexpr int64_t kSM90SplitFreeBarrier = 3;
/// K per ring stage: two 128-byte swizzle atoms of f16 tokens, 64 bytes of
/// each weight row, two scale units; 8 k16 steps.
constexpr int64_t kSM90StageK = 128;
/// The largest ring that fits the 227 KiB of shared memory per block, less
/// the launch's alignment slack and the barriers.
constexpr int64_t kSM90MaxSharedBytes = 227 * 1024 - 2048;
/// With two CTAs per SM: half of the SM's 228 KiB, less the 1 KiB each CTA
/// reserves and the launch's alignment slack.
constexpr int64_t kSM90PairMaxSharedBytes = 113 * 1024 - 1024;

/// setmaxnreg budgets of kernels whose producer warpgroup also converts the
/// token operand (three of its warps): the converters' dequantization or
/// quantization needs more than the TMA issuer's 40; the consumers' token
/// tiles (at most 64 wide) need less than 232. 128 x 88 + 256 x 208 =
/// 384 x 168. (The first decode kernel asked for 96 and 208, 1024
/// registers more than the producer released, and hung in its consumers'
/// setmaxnreg.inc on the H100.)
constexpr int64_t kSM90ConverterRegisters = 88;
constexpr int64_t kSM90ConverterConsumerRegisters = 208;
static_assert(kSM90RegisterSplitFits(kSM90ConverterRegisters,
                                     kSM90ConverterConsumerRegisters));

/// The narrow-token kernel (GemvKernel.cpp): dense matmuls of at most
/// kSM90GemvMaxTokens tokens, 16 weight rows per CTA (two m16n8k16 A
/// fragment rows of 8), at most kSM90GemvMaxWarps warps splitting K.
constexpr int64_t kSM90GemvMaxTokens = 16;
constexpr int64_t kSM90GemvRows = 16;
constexpr int64_t kSM90GemvMaxWarps = 16;

/// The named barrier the 256 consumer threads synchronise on in the
/// stream-K fixup (0 is the CTA's).
constexpr int64_t kSM90FixupBarrier = 1;
/// The named barriers of the output quantize's block amaxes, one per
/// consumer warpgroup (its 128 threads): 4 and 5.
constexpr int64_t kSM90AmaxBarrier = 4;
/// Threads of the producer warpgroup that convert tokens (warps 1-3).
constexpr int64_t kSM90ConverterThreads = 96;
/// The widest token tile whose tokens the kernel converts itself.
constexpr int64_t kSM90MaxConvertedTokenTile = 64;

/// Where the kernel's token operand (wgmma B, exact f16) comes from.
enum class SM90TokenSource {
  /// An f16 buffer that a pre-pass launch wrote (K permuted as the A
  /// fragments are), read by TMA: every CTA reads converted tokens.
  prepass,
  /// The token operand's FP4 codes (TMA) and swizzled E4M3 scales (bulk
  /// copies), converted to f16 in the kernel by the producer warpgroup's
  /// other three warps: no pre-pass launch; each CTA converts the tokens of
  /// its own tiles (cheap while the token tile is narrow).
  fp4,
  /// High-precision tokens (bf16, f16, f32; TMA), quantized to NVFP4 in the
  /// kernel (the activation quantization of a fused nvfp4.quantize, bit for
  /// bit) and dequantized to f16 by the same three warps.
  quantize,
};

/// The fused activation quantization of SM90TokenSource::quantize: an
/// NVFP4 quantize with 1x16 blocks and one decode scale per tensor (per
/// batch entry: masked groups), as nvfp4.fused holds it (spec F4).
struct SM90TokenQuantize {
  /// The quantize (its shape, rounding, transform, scale rule).
  QuantizeSpec spec;
  /// bf16, f16 or f32: the element type of its input.
  Type element;
  /// Where S_enc / S_dec come from, an i64 address the kernel reads per
  /// batch entry: the amax bits an amax kernel reduced before the GEMM, the
  /// caller's amax (f32), or a given encode or decode scale (f32); or
  /// (blockAmax, a pre-pass of one small entry) no address: every block of
  /// the pre-pass reduces the amax itself (emitBlockAmax).
  enum class Scale {
    amaxBits,
    amax,
    encode,
    decode,
    blockAmax
  } scale = Scale::amaxBits;

  /// S_enc, S_dec and the decode scale of batch entry `entry` (an index; 0
  /// unless masked), read from `scaleSource` (an i64 address, written
  /// before the launch).
  TensorScales load(ImplicitLocOpBuilder &b, Value scaleSource, Value seed,
                    Value entry) const;
  /// The 16 input values `x` (f32: the input's elements widened) of the
  /// chunk at K `k0` of row `row` of batch entry `batch` (null unless
  /// masked) quantized as the quantize would (its transform, rounding and
  /// block scale) and read back as the MMA reads them: e2m1(code) x the
  /// block scale, f32, exact in f16 (S_dec is the epilogue's).
  SmallVector<Value> dequantizedChunk(ImplicitLocOpBuilder &b, Value seed,
                                      ArrayRef<Value> x,
                                      const TensorScales &scales, Value batch,
                                      Value row, Value k0) const;
};

/// Everything that is static about one GEMM kernel instance.
/// The lowering fills in every field from convert-nvfp4-to-sm90's options
/// (whose defaults Passes.td owns) and the shape.
struct SM90GemmConfig : GemmShape {
  int64_t tokenTile = 0; // the widest wgmma N
  /// Token tiles are balanced over a group's rows and each runs the
  /// narrowest wgmma N, in steps of this granule, that covers its tokens.
  int64_t granule = 0;
  int64_t stages = 0;
  /// CTAs per SM (the launch has ctas x ctasPerSM): 2 for token tiles of
  /// at most kSM90MaxPairedTokenTile.
  int64_t ctas = 0;
  int64_t ctasPerSM = 1;
  int64_t gridSize() const { return ctas * ctasPerSM; }
  /// K blocks of 64 summed in the tensor core before the partial sum is
  /// added to an fp32 total in registers (0: all of K in the tensor core).
  /// Even: a whole number of stages. The tensor core's fp32 accumulation
  /// truncates, so its error grows linearly with K; chunking bounds that.
  int64_t promoteEvery = 0;
  /// Tiles are split between CTAs stream-K (an equal share of the
  /// (tile, K stage) iterations each, partial tiles summed in K order by
  /// nvfp4k.scheduler.fixup) instead of whole tiles per CTA.
  bool streamK = false;
  /// CTAs of a thread-block cluster that split each tile's K stages (1:
  /// none): one tile per cluster, the partials summed through distributed
  /// shared memory (nvfp4k.scheduler.cluster_sum); the grid is the tiles
  /// times the cluster.
  int64_t cluster = 1;
  /// Consumer warpgroup pairs that share a work unit's K stages (1 or 2:
  /// kSM90MaxSplitTokenTile); each pair covers the tile's 128 rows.
  int64_t kSplit = 1;
  SM90TokenSource tokens = SM90TokenSource::prepass;
  SM90TokenQuantize quantize; // tokens == quantize
  /// The narrow-token kernel (buildSM90GemvKernel) instead of the wgmma
  /// one: a dense matmul of at most kSM90GemvMaxTokens tokens, its f16
  /// tokens from the pre-pass in the kernel's order (gemvTokenColumn).
  bool gemv = false;
  /// Its warps per CTA, which split K (1..kSM90GemvMaxWarps).
  int64_t gemvWarps = 0;
  int64_t gemvThreads() const { return 32 * gemvWarps; }
  /// CTAs per SM it is compiled to fit (nvvm.minctasm: ptxas keeps its
  /// registers to 64K / (CTAs x threads)); 0: no bound.
  int64_t gemvCtasPerSM = 0;
  /// K blocks of each warp's weights its CTA brings into L2 before the
  /// grid dependency wait (0: none).
  int64_t gemvPrefetch = 0;
  /// m16n8k16 token tiles of 8 (1 or 2).
  int64_t gemvTokenTiles() const { return maxRows <= 8 ? 1 : 2; }
  int64_t gemvGrid() const { return ceilDiv(n, kSM90GemvRows); }
  /// The warps' hand-over of their sums (all but warp 0's).
  int64_t gemvSharedBytes() const {
    return (gemvWarps - 1) * 4 * gemvTokenTiles() * 32 * 4;
  }

  bool convertsTokens() const { return tokens != SM90TokenSource::prepass; }
  /// The MMA's element type: bf16 for a weight-only matmul on bf16
  /// activations (the pre-pass copies them; weights dequantize exactly to
  /// bf16) and for MXFP4 (E8M0 scales: only bf16 holds the products; the
  /// pre-pass dequantizes MXFP4 tokens to bf16), f16 otherwise (every other
  /// token operand is exact in f16).
  Type mmaElement(MLIRContext *ctx) const {
    if (mxfp4 || (activationElement && activationElement.isBF16()))
      return BFloat16Type::get(ctx);
    return Float16Type::get(ctx);
  }
  int64_t kStages() const { return ceilDiv(k, kSM90StageK); }
  int64_t kPadded() const { return kStages() * kSM90StageK; }
  int64_t nTiles() const { return ceilDiv(n, kSM90TileRows); }
  /// The weights' block size: 16 (NVFP4, E4M3 scales) or 32 (MXFP4, E8M0
  /// scales: on the bf16 MMA only).
  int64_t blockSize() const { return mxfp4 ? 32 : 16; }
  /// 512-byte scale units per 128 weight rows (each covers 4 blocks of K:
  /// 64 for NVFP4, 128 for MXFP4), and their bytes.
  int64_t scaleUnits() const {
    return Swizzled128x4Attr::colTiles(k / blockSize());
  }
  int64_t scaleRowTileBytes() const {
    return Swizzled128x4Attr::rowTileBytes(k / blockSize());
  }
  /// Scale units per 128-K stage: 2 (NVFP4), 1 (MXFP4).
  int64_t stageScaleUnits() const { return kSM90StageK / (4 * blockSize()); }
  /// Scale units stage `kb` carries: stageScaleUnits(), or 1 in an NVFP4
  /// last stage that K fills at most halfway.
  int64_t stageUnits(int64_t kb) const {
    return std::min<int64_t>(stageScaleUnits(),
                             scaleUnits() - stageScaleUnits() * kb);
  }

  // Bytes of one stage: the token tile (two [tokenTile, 64] f16 atoms),
  // the weight bytes [128, 64], the scale units, and the raw tokens the
  // kernel converts (if it does); padded to 1 KiB, so that every stage's
  // token atoms keep the 128-byte swizzle's 1024-byte alignment.
  int64_t tokenBytes() const { return tokenTile * kSM90StageK * 2; }
  int64_t weightBytes() const { return kSM90TileRows * kSM90StageK / 2; }
  int64_t scaleBytes() const {
    return stageScaleUnits() * Swizzled128x4Attr::kUnitBytes;
  }
  /// Raw FP4 tokens: the codes box [tokenTile, 64 bytes], then the scale
  /// units of up to two 128-row tiles (a token tile of at most 64 rows
  /// crosses at most one boundary), 1 KiB each.
  int64_t rawCodeBytes() const { return tokenTile * kSM90StageK / 2; }
  int64_t rawTokenScaleBytes() const { return 2 * scaleBytes(); }
  /// Raw high-precision tokens: a [tokenTile, 128] box.
  int64_t rawInputBytes() const {
    return tokenTile * kSM90StageK *
           (quantize.element ? quantize.element.getIntOrFloatBitWidth() / 8
                             : 2);
  }
  int64_t rawTokenBytes() const {
    switch (tokens) {
    case SM90TokenSource::prepass:
      return 0;
    case SM90TokenSource::fp4:
      return rawCodeBytes() + rawTokenScaleBytes();
    case SM90TokenSource::quantize:
      return rawInputBytes();
    }
    return 0;
  }
  int64_t stageBytes() const {
    return ceilDiv(tokenBytes() + weightBytes() + scaleBytes() +
                       rawTokenBytes(),
                   1024) *
           1024;
  }
  /// The split's hand-over: the second pair's accumulators, 128 x
  /// tokenTile f32.
  int64_t splitBytes() const {
    return kSplit == 2 ? kSM90TileRows * tokenTile * 4 : 0;
  }
  /// The cluster split's receive buffer: the other ranks' shares of this
  /// CTA's slice of the tile's accumulators, (cluster - 1) x 128 x
  /// tokenTile / cluster f32.
  int64_t clusterBytes() const {
    return cluster > 1 ? (cluster - 1) * kSM90TileRows * tokenTile / cluster * 4
                       : 0;
  }
  /// The output quantize's shared memory per consumer warpgroup (f32):
  /// each warp's partial amax of each of its tokens' 16-column blocks for
  /// each of the tokenTile / 4 (n8 step, half) pairs of a thread, then
  /// every (pair, token, block)'s enc_b.
  int64_t amaxFloatsPerWarpgroup() const {
    int64_t pairs = tokenTile / 4;
    return pairs * 8 * 4 + pairs * 8 * (swiglu ? 1 : 2);
  }
  int64_t amaxBytes() const {
    return outputQuantize
               ? kSM90ConsumerWarpgroups * amaxFloatsPerWarpgroup() * 4
               : 0;
  }
  /// The stages, the split's hand-over, the cluster's receive buffer, the
  /// output quantize's amaxes, then (stream-K) the fixup's broadcast word.
  int64_t splitOffset() const { return stages * stageBytes(); }
  int64_t clusterOffset() const { return splitOffset() + splitBytes(); }
  int64_t amaxOffset() const { return clusterOffset() + clusterBytes(); }
  int64_t flagOffset() const { return amaxOffset() + amaxBytes(); }
  int64_t bufferBytes() const { return flagOffset() + (streamK ? 16 : 0); }
  /// The deepest ring (at most 8 stages) that fits.
  int64_t maxStages() const {
    int64_t shared =
        ctasPerSM == 2 ? kSM90PairMaxSharedBytes : kSM90MaxSharedBytes;
    return std::min<int64_t>(
        8, (shared - 16 - splitBytes() - clusterBytes() - amaxBytes()) /
               stageBytes());
  }
  int64_t consumerWarpgroups() const {
    return kSM90ConsumerWarpgroups * kSplit;
  }
  int64_t threads() const { return 128 * (consumerWarpgroups() + 1); }
  /// The setmaxnreg budgets (0: none, the launch's for every warpgroup).
  int64_t producerRegisters() const {
    if (kSplit == 2)
      return 0;
    if (ctasPerSM == 2)
      return kSM90PairProducerRegisters;
    return convertsTokens() ? kSM90ConverterRegisters : kSM90ProducerRegisters;
  }
  int64_t consumerRegisters() const {
    if (kSplit == 2)
      return 0;
    if (ctasPerSM == 2)
      return kSM90PairConsumerRegisters;
    return convertsTokens() ? kSM90ConverterConsumerRegisters
                            : kSM90ConsumerRegisters;
  }
  /// The stream-K workspace: two partial accumulator slots per CTA, of
  /// 128 x tokenTile f32 each (nvfp4k.scheduler.fixup), and a flag per CTA.
  int64_t partialFloats() const {
    return 2 * gridSize() * kSM90TileRows * tokenTile;
  }
};

/// The narrow-token kernel of `config` (config.gemv), in `module`:
/// arguments the i64 device addresses of the pre-pass's tokens, the weight
/// codes, their swizzled scales, then the epilogue's (EpilogueArgs).
gpu::GPUFuncOp buildSM90GemvKernel(OpBuilder &b, Location loc,
                                   gpu::GPUModuleOp module, StringRef name,
                                   const SM90GemmConfig &config);

/// Where the narrow-token kernel reads value j (0..15) of 16-value chunk
/// q (0..7) of a 128-K block, as a column of the block: thread q / 2's 32
/// values of the block are contiguous, each code word's even values, then
/// its odd ones (the parity of a k16 step's A fragment).
inline int64_t gemvTokenColumn(int64_t q, int64_t j) {
  return 16 * q + 8 * (j / 8) + 4 * (j % 2) + (j % 8) / 2;
}

/// Kernel arguments, in order: the token tensor map (!llvm.ptr: the f16
/// pre-pass buffer's, the FP4 codes' or the high-precision input's), and
/// for FP4 tokens the i64 address of their swizzled scales, for quantized
/// tokens the i64 address of the scale source (amax bits or the given
/// scale) and, with stochastic rounding, the i64 seed; then
/// operandPointers() weight tensor maps (!llvm.ptr; [rows, K/2] bytes,
/// boxes of [128, 64]), as many weight scale bases (i64), with stream-K the
/// workspace and flags addresses (i64), then EpilogueArgs (outputs,
/// accumulators, the group table, a_decode, b_decode, alpha as present).
gpu::GPUFuncOp buildSM90GroupedGemmKernel(OpBuilder &b, Location loc,
                                          gpu::GPUModuleOp module,
                                          StringRef name,
                                          const SM90GemmConfig &config);

/// The nvfp4k.store bias_element of `shape` (null without a bias).
TypeAttr biasElementAttr(const GemmShape &shape);

/// The nvfp4k.store attribute of an epilogue that computes `shape`'s fused
/// swiglu; null without one.
nvfp4k::SwigluAttr sm90EpilogueSwiglu(MLIRContext *ctx, const GemmShape &shape);

/// The tensor-map type of the weights' FP4 bytes, viewed as [rows, K/2]
/// ui8 and read [128, 64] at a time, unswizzled.
nvgpu::TensorMapDescriptorType sm90WeightMapType(MLIRContext *ctx);

/// The tensor-map type of the f16 token operand as the wgmmas read it
/// (wgmma B): [tokenTile, 64] boxes with the 128-byte swizzle.
nvgpu::TensorMapDescriptorType bTileMapType(MLIRContext *ctx,
                                            int64_t tokenTile,
                                            Type element);

/// The tensor-map type of the token operand of `config`: the f16 pre-pass
/// buffer ([tokenTile, 64] boxes, 128-byte swizzle), the FP4 codes
/// ([tokenTile, 64] bytes, unswizzled) or the high-precision input
/// ([tokenTile, 128] elements, unswizzled).
nvgpu::TensorMapDescriptorType sm90TokenMapType(MLIRContext *ctx,
                                                const SM90GemmConfig &config);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOSM90_GROUPEDGEMMKERNEL_H
