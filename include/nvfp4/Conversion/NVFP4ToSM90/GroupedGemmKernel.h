//===- GroupedGemmKernel.h - the sm_90a block-scaled GEMM kernel --*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The Hopper kernel behind nvfp4.matmul / nvfp4.grouped_matmul (NVFP4):
// persistent, warp-specialised, register-A ("RS") wgmma with fp32
// accumulation. docs/design/sm90-gemm.md describes it; in short:
//
// * swap-AB: the weight operand (the op's B, [G, N, K], large N) is wgmma's
//   M side, 64 rows per consumer warpgroup; tokens (the op's A) are wgmma's
//   N side (the token tile), so small groups waste little;
// * weights are read from the standard packed layout with 8-byte loads per
//   thread, prefetched in registers, and dequantized exactly to f16 in
//   registers (e2m1 -> e4m3 bit pattern -> cvt.rn.f16x2.e4m3x2, times the
//   block scale); K is permuted inside each 64-block so that a thread's
//   fragment is 8 contiguous bytes whose 16 values share one block scale;
// * tokens come from a pre-pass (exact NVFP4 -> f16, written in the same
//   permuted K order) through TMA (128B swizzle) into an S-stage ring of
//   full/empty mbarriers filled by a producer warp;
// * every `promoteEvery` K blocks the tensor-core partial sum is added to an
//   fp32 total in registers (the tensor core's accumulation truncates);
// * the epilogue applies alpha (and beta * acc) in fp32, exchanges
//   neighbouring accumulators with one shuffle and stores pairs.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOSM90_GROUPEDGEMMKERNEL_H
#define NVFP4_CONVERSION_NVFP4TOSM90_GROUPEDGEMMKERNEL_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/GemmProblem.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace nvfp4 {

/// Weight rows per consumer warpgroup (wgmma M) and per CTA.
constexpr int64_t kSM90WarpgroupRows = 64;
constexpr int64_t kSM90ConsumerWarpgroups = 2;
constexpr int64_t kSM90TileRows = kSM90WarpgroupRows * kSM90ConsumerWarpgroups;
/// Token tiles are balanced over a group's rows and each runs the narrowest
/// wgmma N, in steps of this granule, that covers its tokens.
constexpr int64_t kSM90TileGranule = 32;
/// K per pipeline stage (one TMA box of the token tile, 4 wgmma k16 steps).
constexpr int64_t kSM90BlockK = 64;

/// Everything that is static about one GEMM kernel instance.
/// The lowering fills in every field from convert-nvfp4-to-sm90's options
/// (whose defaults Passes.td owns) and the shape.
struct SM90GemmConfig : GemmShape {
  int64_t tokenTile = 0; // the widest wgmma N
  int64_t stages = 0;
  int64_t ctas = 0;
  /// K blocks (of kSM90BlockK) summed in the tensor core before the partial
  /// sum is added to an fp32 total in registers (0: all of K in the tensor
  /// core). Even. The tensor core's fp32 accumulation truncates, so its
  /// error grows linearly with K; chunking bounds that growth.
  int64_t promoteEvery = 0;
  /// K blocks of weights loaded ahead into registers (even, >= 2): covers
  /// the global-memory latency. The consumer loop is unrolled by it.
  int64_t weightPrefetch = 0;
  int64_t kBlocks() const { return ceilDiv(k, kSM90BlockK); }
  int64_t kPadded() const { return kBlocks() * kSM90BlockK; }
  int64_t nTiles() const { return ceilDiv(n, kSM90TileRows); }
  /// Bytes of one stage of the token ring and of all dynamic shared memory
  /// (plus slack to align the base to 1024 B).
  int64_t stageBytes() const { return tokenTile * kSM90BlockK * 2; }
  int64_t sharedBytes() const { return stages * stageBytes() + 1024; }
  int64_t threads() const { return 128 * (kSM90ConsumerWarpgroups + 1); }
};

/// Kernel arguments, in order: the token tensor map (!llvm.ptr), then i64
/// device addresses: operandPointers() weight bases, as many scale bases,
/// outputPointers() outputs, as many accumulators (hasAcc), the group
/// offsets (contiguous) or valid rows (masked), then a_decode, b_decode and
/// alpha when present.
gpu::GPUFuncOp buildSM90GroupedGemmKernel(OpBuilder &b, Location loc,
                                          gpu::GPUModuleOp module,
                                          StringRef name,
                                          const SM90GemmConfig &config);

/// Position of value i (0..15) of the 16-element chunk `chunk` (0..3) of a
/// 64-wide K block in the permuted K order the kernel consumes.
int64_t sm90PermutedK(int64_t chunk, int64_t i);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOSM90_GROUPEDGEMMKERNEL_H
