//===- BlockScaledGemmKernel.h - the sm_100a tcgen05 GEMM -------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The Blackwell kernel behind nvfp4.matmul / nvfp4.grouped_matmul (NVFP4
// and MXFP4): persistent and warp-specialised around the native
// block-scaled MMA, `tcgen05.mma.block_scale` (kind mxf4nvf4 block16 for
// NVFP4, mxf4 block32 for MXFP4), built from the same kernel-level nvfp4k
// ops as the sm_90a kernel (scheduler, rings, loads, epilogue).
// docs/design/sm100-gemm.md describes it; in short, for each tile of 128
// weight rows (MMA M) x `tokenTile` tokens (MMA N, swap-AB as on sm_90a),
// 192 threads:
//
// * warp 0, one lane: per K stage of 256 values, TMA of the two FP4 tiles
//   (byte view, 128B swizzle) and 1-D bulk copies of their 512-byte scale
//   units into an S-stage `!nvfp4k.ring`;
// * warp 1: allocates tensor memory; one lane runs
//   nvfp4k.tcgen05.scaled_mma per stage (the scale copy to TMEM and 4 MMAs
//   of K = 64) into one of two TMEM accumulators, releases each stage with
//   nvfp4k.tcgen05.commit and hands each finished accumulator to the
//   epilogue through a second ring;
// * warps 2-5: the epilogue of the previous tile overlaps the MMAs of the
//   next: tcgen05.ld, then nvfp4k.store (alpha and beta * acc in fp32, the
//   output cast, masked stores).
//
// Nothing here has run on Blackwell hardware: the kernels are checked by
// ptxas -arch=sm_100a, an independent decoder of the emitted descriptors
// (python/nvfp4_testing/ptx_decode.py) and SASS inspection.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOSM100_BLOCKSCALEDGEMMKERNEL_H
#define NVFP4_CONVERSION_NVFP4TOSM100_BLOCKSCALEDGEMMKERNEL_H

#include "nvfp4/Conversion/GPUCommon/GemmProblem.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Pipelines/GPUTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir {
namespace nvfp4 {

/// Weight rows per tile (tcgen05 M with cta_group::1).
constexpr int64_t kSM100TileRows = 128;
/// K per pipeline stage: 256 FP4 values are one 128-byte row, one
/// 128B-swizzle atom; 4 MMAs of K = 64.
constexpr int64_t kSM100StageK = 256;
constexpr int64_t kSM100MmaK = 64;
/// 6 warps: TMA, MMA (+ TMEM allocation), 4 epilogue warps.
constexpr int64_t kSM100Threads = 192;

/// Everything that is static about one kernel instance.
struct SM100GemmConfig : GemmShape {
  int64_t tokenTile = 128; // MMA N: 64, 128 or 256
  int64_t stages = 4;
  int64_t ctas = kSM100PartSMs;

  int64_t blockSize() const { return mxfp4 ? 32 : 16; }
  int64_t scaleCols() const { return k / blockSize(); }
  /// 512-byte scale units (128 rows x 4 scale columns) per 128-row block,
  /// and that block's bytes.
  int64_t unitCols() const { return Swizzled128x4Attr::colTiles(scaleCols()); }
  int64_t rowTileBytes() const {
    return Swizzled128x4Attr::rowTileBytes(scaleCols());
  }
  /// Units per K stage: 4 (NVFP4: one per MMA) or 2 (MXFP4: one per 2).
  int64_t unitsPerStage() const { return mxfp4 ? 2 : 4; }
  int64_t kStages() const { return ceilDiv(k, kSM100StageK); }
  int64_t mmaSteps() const { return ceilDiv(k, kSM100MmaK); }
  int64_t weightTiles() const { return ceilDiv(n, kSM100TileRows); }
  /// 128-row scale blocks a token tile spans, accumulator buffers.
  int64_t tokenScaleBlocks() const { return tokenTile > 128 ? 2 : 1; }
  int64_t accBuffers() const { return tokenTile <= 128 ? 2 : 1; }

  // Shared memory, per stage and in all: the ring's stages, then the slot
  // tcgen05.alloc writes the TMEM address to (the barriers are the rings').
  int64_t weightBytes() const { return kSM100TileRows * 128; }
  int64_t tokenBytes() const { return tokenTile * 128; }
  int64_t weightScaleBytes() const {
    return unitsPerStage() * Swizzled128x4Attr::kUnitBytes;
  }
  int64_t tokenScaleBytes() const {
    return weightScaleBytes() * tokenScaleBlocks();
  }
  int64_t stageBytes() const {
    return weightBytes() + tokenBytes() + weightScaleBytes() +
           tokenScaleBytes();
  }
  int64_t bufferBytes() const { return stages * stageBytes() + 16; }
  /// Whether the buffer, its alignment slack and the rings' barriers fit
  /// the 227 KiB of shared memory per block.
  bool fitsSharedMemory() const {
    return bufferBytes() + 1024 + 8 * 2 * (stages + 2) <= 227 * 1024;
  }

  // Tensor memory columns: the accumulators, then each stage's scales.
  int64_t weightScaleCols() const { return unitsPerStage() * 4; }
  int64_t tokenScaleCols() const {
    return unitsPerStage() * 4 * tokenScaleBlocks();
  }
  int64_t tmemColumnsUsed() const {
    return accBuffers() * tokenTile +
           stages * (weightScaleCols() + tokenScaleCols());
  }
  /// The allocation: a power of two >= 32.
  int64_t tmemColumns() const {
    int64_t cols = 32;
    while (cols < tmemColumnsUsed())
      cols *= 2;
    return cols;
  }
};

/// Kernel arguments, in order: operandPointers() tensor maps (!llvm.ptr)
/// of the token codes ([rows, K/2] ui8 bytes, box [tokenTile, 128], 128B
/// swizzle), as many of the weight codes (box [128, 128]); then i64 device
/// addresses: as many token scale bases, as many weight scale bases,
/// outputPointers() outputs, as many accumulators (hasAcc), the group
/// offsets (contiguous) or valid rows (masked), a_decode, b_decode, alpha
/// when present. Contiguous token scales are the per-group repacking of
/// NVFP4ToSM100.cpp (each group's rows from a 128-row block boundary).
gpu::GPUFuncOp buildSM100BlockScaledGemmKernel(OpBuilder &b, Location loc,
                                               gpu::GPUModuleOp module,
                                               StringRef name,
                                               const SM100GemmConfig &config);

/// The tensor-map type of a [rows, K/2]-byte (ui8) FP4 operand read
/// `boxRows` rows at a time, 128-byte swizzled.
nvgpu::TensorMapDescriptorType sm100CodesMapType(MLIRContext *ctx,
                                                 int64_t boxRows);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOSM100_BLOCKSCALEDGEMMKERNEL_H
