//===- BlockScaledGemmKernel.h - the sm_100a tcgen05 GEMM ---------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The Blackwell kernel behind nvfp4.matmul / nvfp4.grouped_matmul (NVFP4
// and MXFP4): persistent and warp-specialised around the native
// block-scaled MMA, `tcgen05.mma.block_scale` (kind mxf4nvf4 block16 for
// NVFP4, mxf4 block32 for MXFP4). docs/design/sm100-gemm.md describes it;
// in short, for each tile of 128 weight rows (MMA M) x `tokenTile` tokens
// (MMA N, swap-AB as on sm_90a), 192 threads:
//
// * warp 0, one lane: per K stage of 256 values, TMA of the two FP4 tiles
//   (byte view, 128B swizzle) and 1-D bulk copies of their 512-byte scale
//   units into an S-stage shared-memory ring (full/empty mbarriers);
// * warp 1: allocates tensor memory; one lane copies each stage's scale
//   units to TMEM (tcgen05.cp 32x128b.warpx4), issues 4 MMAs (K = 64 each)
//   into one of two TMEM accumulators and commits the stage (and, after
//   the last stage, the accumulator) to its mbarrier;
// * warps 2-5: the epilogue of the previous tile overlaps the MMAs of the
//   next (double-buffered accumulators): tcgen05.ld, alpha and beta * acc
//   in fp32, the output cast, masked stores.
//
// Nothing here has run on Blackwell hardware: the kernels are checked by
// ptxas -arch=sm_100a, an independent decoder of the emitted descriptors
// (python/nvfp4_testing/ptx_decode.py) and SASS inspection.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOSM100_BLOCKSCALEDGEMMKERNEL_H
#define NVFP4_CONVERSION_NVFP4TOSM100_BLOCKSCALEDGEMMKERNEL_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/GemmProblem.h"

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
  int64_t ctas = 148;

  int64_t blockSize() const { return mxfp4 ? 32 : 16; }
  int64_t scaleCols() const { return k / blockSize(); }
  /// 512-byte scale units (128 rows x 4 scale columns) per 128-row block.
  int64_t unitCols() const { return ceilDiv(scaleCols(), 4); }
  /// Units per K stage: 4 (NVFP4: one per MMA) or 2 (MXFP4: one per 2).
  int64_t unitsPerStage() const { return mxfp4 ? 2 : 4; }
  int64_t kStages() const { return ceilDiv(k, kSM100StageK); }
  int64_t mmaSteps() const { return ceilDiv(k, kSM100MmaK); }
  int64_t weightTiles() const { return ceilDiv(n, kSM100TileRows); }
  /// 128-row scale blocks a token tile spans, accumulator buffers.
  int64_t tokenScaleBlocks() const { return tokenTile > 128 ? 2 : 1; }
  int64_t accBuffers() const { return tokenTile <= 128 ? 2 : 1; }

  // Shared memory, per stage and in all (plus 1 KiB to align the base).
  int64_t weightBytes() const { return kSM100TileRows * 128; }
  int64_t tokenBytes() const { return tokenTile * 128; }
  int64_t weightScaleBytes() const { return unitsPerStage() * 512; }
  int64_t tokenScaleBytes() const {
    return unitsPerStage() * 512 * tokenScaleBlocks();
  }
  int64_t stageBytes() const {
    return weightBytes() + tokenBytes() + weightScaleBytes() +
           tokenScaleBytes();
  }
  /// full[S], empty[S], accFull[2], accEmpty[2], the TMEM address slot.
  int64_t barrierBytes() const { return 8 * (2 * stages + 4) + 8; }
  int64_t sharedBytes() const {
    return stages * stageBytes() + barrierBytes() + 1024;
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

  /// Instruction descriptor (PTX ISA, tcgen05 instruction descriptor for
  /// .kind::mxf4 / mxf4nvf4): E2M1 A and B, M = 128, N = tokenTile, UE8M0
  /// scales for MXFP4, scale-factor ids `sfId` for both operands.
  uint32_t instructionDescriptor(int64_t sfId) const;
};

/// Kernel arguments, in order: operandPointers() tensor maps (!llvm.ptr)
/// of the token codes ([rows, K/2] bytes, box [tokenTile, 128], 128B
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

/// The tensor-map type of a [rows, K/2]-byte FP4 operand read `boxRows`
/// rows at a time.
nvgpu::TensorMapDescriptorType sm100CodesMapType(MLIRContext *ctx,
                                                 int64_t boxRows);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOSM100_BLOCKSCALEDGEMMKERNEL_H
