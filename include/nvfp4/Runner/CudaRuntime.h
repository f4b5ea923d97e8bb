//===- CudaRuntime.h - the runner's CUDA driver runtime ----------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// MLIR's GPU lowering (gpu-to-llvm) emits calls to a small runtime ABI
// (mgpuModuleLoad, mgpuLaunchKernel, mgpuMemAlloc, mgpuTensorMapEncode...);
// upstream implements it in libmlir_cuda_runtime, which Debian does not ship.
// This is the project's implementation, on the CUDA driver API. libcuda is
// opened at run time, so the runner starts (and runs on the CPU) on machines
// without a driver.
//
// Program calls go to one stream owned by the runtime (so CUDA events on that
// stream time everything a program does), or, inside a CudaLaunchScope, to a
// caller's stream in the primary context the frameworks use. Errors inside
// the ABI functions (which return nothing) are recorded and reported by the
// next synchronize() or takeCudaError().
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNNER_CUDARUNTIME_H
#define NVFP4_RUNNER_CUDARUNTIME_H

#include "nvfp4/Runner/Device.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <string>

namespace mlir {
namespace nvfp4 {

/// The first CUDA device as a runner Device, or an error saying why there is
/// none (no driver, no device, built without CUDA).
llvm::Expected<std::unique_ptr<Device>> createCudaDevice();

/// The compute capability of the device createCudaDevice() opened, as the
/// chip name with the architecture-specific suffix ("sm_90a", "sm_100a").
std::string getCudaChip();

/// Its number of SMs (the persistent GEMMs launch one CTA per SM).
int getCudaMultiprocessorCount();

/// The mgpu* ABI symbols, for the JIT's symbol map.
llvm::StringMap<void *> getCudaRuntimeSymbols();

/// Whether this build has GPU support at all.
bool isCudaRuntimeAvailable();

/// The ordinal of the device createCudaDevice() opened.
int getCudaDeviceOrdinal();

/// While alive, program calls on this thread launch on `stream` (a
/// CUstream of the primary context; null: the runtime's own stream). On a
/// caller's stream the runtime never synchronizes: the lowered host code's
/// end-of-call synchronization is skipped and the caller orders its work.
/// With a `workspaceOwner`, the temporaries a call allocates are kept per
/// (owner, stream) and reused by the next call, so a warm call allocates
/// nothing and can be recorded into a CUDA graph.
/// A scope holds the runtime's lock (lockCudaRuntime) for its life: calls
/// from several threads run one at a time. CU_STREAM_PER_THREAD calls keep
/// their workspaces per thread (each thread's stream is its own).
class CudaLaunchScope {
public:
  CudaLaunchScope(void *stream, const void *workspaceOwner);
  ~CudaLaunchScope();
  CudaLaunchScope(const CudaLaunchScope &) = delete;
  CudaLaunchScope &operator=(const CudaLaunchScope &) = delete;

private:
  std::unique_lock<std::recursive_mutex> lock;
};

/// The lock over the runtime's process-wide state (its stream, first error,
/// workspaces, tensor maps, kernel handles): held by every CudaLaunchScope,
/// by a whole launch (its checks, staging and timing included), while a GPU
/// program's modules load or unload, and while workspaces are freed.
/// Recursive: a launch holds it around the scopes of its calls.
std::unique_lock<std::recursive_mutex> lockCudaRuntime();

/// Makes the runtime's (primary) context current on this thread, for work
/// outside a launch (freeing a program's resources).
void makeCudaContextCurrent();

/// The first error a runtime call recorded since the last one taken.
llvm::Error takeCudaError();

/// Copies device bytes to the host after the work queued on `stream` (null:
/// the runtime's own), and waits for the copy. Refused, with nothing
/// queued, while a CUDA graph is being recorded on `stream`.
llvm::Error copyFromCuda(void *dst, const void *src, size_t bytes,
                         void *stream);

/// Frees the workspaces of `owner` (waiting for work that uses them); with
/// the lock held.
void releaseCudaWorkspaces(const void *owner);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_RUNNER_CUDARUNTIME_H
