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
//   order the fragments need (sm90FragmentK);
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

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir {
namespace nvfp4 {

/// Weight rows per consumer warpgroup (wgmma M) and per CTA.
constexpr int64_t kSM90WarpgroupRows = 64;
constexpr int64_t kSM90ConsumerWarpgroups = 2;
constexpr int64_t kSM90TileRows = kSM90WarpgroupRows * kSM90ConsumerWarpgroups;
/// setmaxnreg budgets: 2 x 128 consumer threads and 128 producer threads
/// within the 64K registers of an SM (the producer's tile walk and four
/// copies per stage spill with 24).
constexpr int64_t kSM90ConsumerRegisters = 232;
constexpr int64_t kSM90ProducerRegisters = 40;
/// K per ring stage: two 128-byte swizzle atoms of f16 tokens, 64 bytes of
/// each weight row, two scale units; 8 k16 steps.
constexpr int64_t kSM90StageK = 128;
/// The largest ring that fits the 227 KiB of shared memory per block, less
/// the launch's alignment slack and the barriers.
constexpr int64_t kSM90MaxSharedBytes = 227 * 1024 - 2048;

/// Everything that is static about one GEMM kernel instance.
/// The lowering fills in every field from convert-nvfp4-to-sm90's options
/// (whose defaults Passes.td owns) and the shape.
struct SM90GemmConfig : GemmShape {
  int64_t tokenTile = 0; // the widest wgmma N
  /// Token tiles are balanced over a group's rows and each runs the
  /// narrowest wgmma N, in steps of this granule, that covers its tokens.
  int64_t granule = 0;
  int64_t stages = 0;
  int64_t ctas = 0;
  /// K blocks of 64 summed in the tensor core before the partial sum is
  /// added to an fp32 total in registers (0: all of K in the tensor core).
  /// Even: a whole number of stages. The tensor core's fp32 accumulation
  /// truncates, so its error grows linearly with K; chunking bounds that.
  int64_t promoteEvery = 0;

  int64_t kStages() const { return ceilDiv(k, kSM90StageK); }
  int64_t kPadded() const { return kStages() * kSM90StageK; }
  int64_t nTiles() const { return ceilDiv(n, kSM90TileRows); }
  /// 512-byte scale units per 128 weight rows (each covers 64 of K), and
  /// their bytes.
  int64_t scaleUnits() const { return Swizzled128x4Attr::colTiles(k / 16); }
  int64_t scaleRowTileBytes() const {
    return Swizzled128x4Attr::rowTileBytes(k / 16);
  }
  /// Scale units stage `kb` carries: 2, or 1 in a last stage that K fills
  /// at most halfway.
  int64_t stageUnits(int64_t kb) const {
    return std::min<int64_t>(2, scaleUnits() - 2 * kb);
  }

  // Bytes of one stage: the token tile (two [tokenTile, 64] f16 atoms),
  // the weight bytes [128, 64], the scale units.
  int64_t tokenBytes() const { return tokenTile * kSM90StageK * 2; }
  int64_t weightBytes() const { return kSM90TileRows * kSM90StageK / 2; }
  int64_t scaleBytes() const { return 2 * Swizzled128x4Attr::kUnitBytes; }
  int64_t stageBytes() const {
    return tokenBytes() + weightBytes() + scaleBytes();
  }
  int64_t bufferBytes() const { return stages * stageBytes(); }
  /// The deepest ring (at most 8 stages) that fits.
  int64_t maxStages() const {
    return std::min<int64_t>(8, kSM90MaxSharedBytes / stageBytes());
  }
  int64_t threads() const { return 128 * (kSM90ConsumerWarpgroups + 1); }
};

/// Kernel arguments, in order: the token tensor map (!llvm.ptr),
/// operandPointers() weight tensor maps (!llvm.ptr; [rows, K/2] bytes,
/// boxes of [128, 64]), then i64 device addresses: as many weight scale
/// bases, then EpilogueArgs (outputs, accumulators, the group table,
/// a_decode, b_decode, alpha as present).
gpu::GPUFuncOp buildSM90GroupedGemmKernel(OpBuilder &b, Location loc,
                                          gpu::GPUModuleOp module,
                                          StringRef name,
                                          const SM90GemmConfig &config);

/// The tensor-map type of the weights' FP4 bytes, viewed as [rows, K/2]
/// ui8 and read [128, 64] at a time, unswizzled.
nvgpu::TensorMapDescriptorType sm90WeightMapType(MLIRContext *ctx);

/// Position, in the token operand the kernel reads, of value `k` (0..127)
/// of a 128-wide K block: the inverse of the fragment order of
/// nvfp4k.dequant.fragment_a as the kernel feeds it (a thread with
/// lane % 4 == c holds chunks 2c and 2c + 1 of the block; chunk 2c feeds
/// k16 steps 0-3, chunk 2c + 1 steps 4-7).
int64_t sm90FragmentK(int64_t k);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOSM90_GROUPEDGEMMKERNEL_H
