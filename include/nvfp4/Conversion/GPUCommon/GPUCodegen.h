//===- GPUCodegen.h - building GPU kernels ----------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Small helpers the GPU lowerings share: gpu.launch regions over a linear
// index space, index arithmetic, warp reductions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUCOMMON_GPUCODEGEN_H
#define NVFP4_CONVERSION_GPUCOMMON_GPUCODEGEN_H

#include "nvfp4/Conversion/GPUCommon/KeptZero.h"
#include "nvfp4/Pipelines/GPUTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <array>

namespace mlir {
namespace nvfp4 {

/// Threads per block of the elementwise kernels.
constexpr int64_t kThreadsPerBlock = 256;
/// Blocks of a grid-stride reduction: enough to fill a Hopper part's SMs
/// eight times over, few enough that the per-block atomics stay cheap.
constexpr int64_t kGridStrideBlocks = kSM90PartSMs * 8;
/// The most CTAs a persistent GEMM's `ctas` option takes: far more than any
/// chip's SMs (a grid that large is no longer persistent), and its tile
/// arithmetic stays well inside i32.
constexpr int64_t kMaxPersistentCtas = int64_t(1) << 16;

/// A gpu.launch of `grid` x `block`; `body` fills its region (the builder
/// points into it) and the terminator is added after. An empty grid (a
/// zero-size operand) launches nothing: no op is built and the result is
/// null (CUDA rejects a launch of zero blocks, and NVVM's range of the grid
/// size registers cannot be empty).
gpu::LaunchOp launchGrid(OpBuilder &b, Location loc,
                         std::array<int64_t, 3> grid,
                         std::array<int64_t, 3> block,
                         function_ref<void(gpu::LaunchOp)> body);

/// One thread per element of [0, total): `body(linear)` runs in threads
/// with linear < total (blocks of kThreadsPerBlock threads). Nothing is
/// launched when total is 0.
void launchLinear(OpBuilder &b, Location loc, int64_t total,
                  function_ref<void(Value)> body);

/// Host code: a device buffer of `type` (gpu.alloc, stream-ordered by the
/// runtime), which the caller frees with gpu.dealloc.
Value allocDevice(OpBuilder &b, Location loc, MemRefType type);

/// The raw device address (i64) of a memref (identity layout, offset 0),
/// for kernels that take operands as addresses.
Value deviceAddress(OpBuilder &b, Location loc, Value memref);

/// A TMA descriptor of the FP4 codes `codes` (their row-major byte storage)
/// viewed as [rows, rowBytes] ui8, read in boxes of `map`'s tensor shape, as
/// the !llvm.ptr a kernel takes.
Value createByteTensorMap(OpBuilder &b, Location loc, Value codes, int64_t rows,
                          int64_t rowBytes, nvgpu::TensorMapDescriptorType map);

/// Host code: `buffer` (a static memref the host code has just allocated)
/// is zero when the call's kernels read it and the kernels leave it zero. A
/// call of kKeptZeroFunction (KeptZero.h), declared in the enclosing module
/// on first use: the runtime zeroes the buffer only where it cannot know it
/// zero. Returns the buffer's device address (deviceAddress), which the
/// kernels take.
Value emitKeptZero(OpBuilder &b, Location loc, Value buffer);

/// `base_<i>` for the first i that names no symbol in `module`.
std::string uniqueSymbolName(Operation *module, StringRef base);

/// Combines `value` across the 32 lanes of a warp with butterfly shuffles;
/// every lane gets the result.
Value warpReduce(OpBuilder &b, Location loc, Value value,
                 function_ref<Value(Value, Value)> combine);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUCOMMON_GPUCODEGEN_H
