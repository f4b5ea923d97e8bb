//===- Device.h - where the runner keeps buffers and runs code ----*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The runner passes every argument of the entry function as a buffer of the
// device the program was compiled for: host memory for the CPU target,
// device memory for the GPU target (the lowered host code launches kernels on
// those pointers directly). A Device allocates, copies and times.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNNER_DEVICE_H
#define NVFP4_RUNNER_DEVICE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace nvfp4 {

class Device {
public:
  virtual ~Device() = default;
  /// A one-line description ("cpu", "NVIDIA H200 (sm_90a)").
  virtual std::string describe() const = 0;
  virtual llvm::Expected<void *> allocate(size_t bytes) = 0;
  virtual void release(void *ptr) = 0;
  virtual llvm::Error upload(void *dst, const void *src, size_t bytes) = 0;
  virtual llvm::Error download(void *dst, const void *src, size_t bytes) = 0;
  virtual llvm::Error fill(void *dst, uint8_t byte, size_t bytes) = 0;
  virtual llvm::Error synchronize() = 0;
  /// Runs `call` `reps` times back to back and returns the time of each
  /// call in microseconds, measured with the device's own clock. With
  /// `replayGraph`, a device that supports it records one call as a graph
  /// and times replays of it instead (no host launch overhead).
  virtual llvm::Expected<std::vector<double>>
  time(llvm::function_ref<llvm::Error()> call, int reps,
       bool replayGraph = false) = 0;
};

/// Host memory and the host clock.
std::unique_ptr<Device> createHostDevice();

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_RUNNER_DEVICE_H
