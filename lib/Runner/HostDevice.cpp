//===- HostDevice.cpp - the CPU as a runner device -------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runner/Device.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace mlir::nvfp4;

namespace {
class HostDevice : public Device {
public:
  std::string describe() const override { return "cpu (host)"; }

  llvm::Expected<void *> allocate(size_t bytes) override {
    // 64-byte alignment matches what bufferization gives its own buffers.
    size_t rounded = ((bytes ? bytes : 1) + 63) / 64 * 64;
    void *ptr = std::aligned_alloc(64, rounded);
    if (!ptr)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "out of host memory allocating " +
                                         llvm::Twine(bytes) + " bytes");
    return ptr;
  }
  void release(void *ptr) override { std::free(ptr); }
  llvm::Error upload(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return llvm::Error::success();
  }
  llvm::Error download(void *dst, const void *src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return llvm::Error::success();
  }
  llvm::Error fill(void *dst, uint8_t byte, size_t bytes) override {
    std::memset(dst, byte, bytes);
    return llvm::Error::success();
  }
  llvm::Error synchronize() override { return llvm::Error::success(); }

  llvm::Expected<std::vector<double>>
  time(llvm::function_ref<llvm::Error()> call, int reps,
       bool /*replayGraph*/) override {
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (llvm::Error err = call())
        return std::move(err);
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::micro>(end - start).count());
    }
    return times;
  }
};
} // namespace

std::unique_ptr<Device> mlir::nvfp4::createHostDevice() {
  return std::make_unique<HostDevice>();
}
