//===- DependentLaunch.h - programmatic dependent launch --------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Programmatic dependent launch (Hopper on): a kernel launched with
// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION may start before the
// kernel ahead of it in the stream has finished, as soon as every CTA of
// that kernel has executed griddepcontrol.launch_dependents (or exited); it
// must then execute griddepcontrol.wait, which returns once the kernels ahead
// have completed and their memory is visible, before it reads anything they
// wrote. The launch latency of a program's chain of kernels (an amax, a
// quantize, a GEMM) then overlaps the kernels ahead, and a kernel's own
// prologue (barriers, tensor-map prefetches) can run before its wait.
//
// The contract between the compiler and the runtime: nvfp4-gpu-dependent-
// launch gives every kernel of a gpu.module the trigger at its entry and a
// wait (at its entry, unless the kernel placed its own: emitGridDependency-
// Wait) and marks the module with the device global kDependentLaunchMarker;
// the runtime launches the kernels of a module that has the marker with the
// attribute, every other kernel without it.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUCOMMON_DEPENDENTLAUNCH_H
#define NVFP4_CONVERSION_GPUCOMMON_DEPENDENTLAUNCH_H

namespace mlir {
class Location;
class OpBuilder;
namespace nvfp4 {

/// The device global (an i32 in the constant space) of a gpu.module whose
/// kernels all wait for the kernels ahead of them.
inline constexpr const char kDependentLaunchMarker[] = "nvfp4_dependent_launch";
/// The unit attribute of a gpu.func that has its wait (emitGridDependencyWait
/// sets it: nvfp4-gpu-dependent-launch adds a wait at the entry of a kernel
/// without it).
inline constexpr const char kOwnGridWaitAttr[] = "nvfp4.grid_dependency_wait";

/// griddepcontrol.wait at the builder's position, inside a gpu.func kernel,
/// which it marks (kOwnGridWaitAttr). Inline assembly with a memory
/// clobber: LLVM's intrinsic is IntrNoMem, which would let loads move above
/// it.
void emitGridDependencyWait(OpBuilder &b, Location loc);
/// griddepcontrol.launch_dependents at the builder's position.
void emitLaunchDependents(OpBuilder &b, Location loc);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUCOMMON_DEPENDENTLAUNCH_H
