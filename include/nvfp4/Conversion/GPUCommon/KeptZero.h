//===- KeptZero.h - buffers the kernels leave zero --------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A contract between the compiler and the runtime (lib/Runner): host code
// calls kKeptZeroFunction(address, bytes) on a device buffer it has just
// allocated when its kernels need the buffer zero and leave it zero (the
// stream-K arrival flags, the amax kernel's running max and block count).
// The runtime zeroes it only where it cannot know it zero: a workspace
// buffer that the previous call of the same program declared kept zero is
// not touched, so a warm call queues no memset and a CUDA graph recorded
// from one holds none (emitKeptZero in GPUCodegen.h builds the call).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUCOMMON_KEPTZERO_H
#define NVFP4_CONVERSION_GPUCOMMON_KEPTZERO_H

namespace mlir {
namespace nvfp4 {

/// `void nvfp4KeptZero(i64 address, i64 bytes)`.
inline constexpr const char kKeptZeroFunction[] = "nvfp4KeptZero";

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUCOMMON_KEPTZERO_H
