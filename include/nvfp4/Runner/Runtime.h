//===- Runtime.h - compile once, launch on caller-owned memory ---*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The runtime every caller of the compiler goes through: nvfp4-runner, the
// C API (nvfp4-c/Runtime.h) and the Python bindings over it.
//
// Runtime::compile() lowers and JIT-compiles a program once per (program,
// entry, target, chip, options, compiler build) and keeps it in memory and
// in an on-disk cache: a second process finds the compiled host code there
// and neither lowers nor runs ptxas again. Kernel::launch() checks the
// caller's arrays against the entry's signature (docs/spec.md section 1) and
// the group tables against their contract (section 3), then calls the
// program on those arrays in place: no copies, on the caller's CUDA stream,
// with no host synchronization, temporaries reused from call to call (CUDA
// graph capturable). A failed check launches nothing.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNNER_RUNTIME_H
#define NVFP4_RUNNER_RUNTIME_H

#include "nvfp4/Runner/Inputs.h"
#include "nvfp4/Runner/Program.h"
#include "nvfp4/Runner/Signature.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir {
class MLIRContext;
namespace nvfp4 {

/// DLPack's element type codes (dlpack.h, DLDataTypeCode), which the Python
/// bindings hand through unchanged.
enum class DTypeCode : uint8_t {
  Int = 0,
  UInt = 1,
  Float = 2,
  Opaque = 3,
  BFloat = 4,
  Bool = 6,
  /// kDLFloat8_e3m4 .. kDLFloat4_e2m1fn: the narrow float types.
  FirstNarrowFloat = 7,
  LastNarrowFloat = 17,
};

/// One argument or result of a call: caller-owned memory, never copied.
struct ArrayArg {
  void *data = nullptr;
  llvm::SmallVector<int64_t, 6> shape;
  /// Strides in elements; empty means C-contiguous.
  llvm::SmallVector<int64_t, 6> strides;
  DTypeCode code = DTypeCode::UInt;
  /// Bits per element (8 for the bytes of packed FP4 and of f8 scales).
  unsigned bits = 8;
  /// In CUDA device memory (else host memory).
  bool onDevice = false;
};

/// What a launch does besides calling the program.
struct LaunchOptions {
  /// A CUstream of the primary context (null: the runtime's own stream,
  /// synchronized before launch() returns, as nvfp4-runner wants).
  void *stream = nullptr;
  /// Check the group tables (host tables cost nothing; device tables are
  /// copied to the host, which waits for `stream`).
  bool checkTables = true;
  /// A GPU program given host arrays: copy every array to device memory
  /// (outputs too, so bytes the program leaves unwritten come back as they
  /// were), call, copy the outputs back (nvfp4-runner, tests on numpy).
  bool stageHostArrays = false;
  /// With `times`: after the checked call, `warmup` untimed calls and `reps`
  /// timed ones (on the runtime's stream; with `graph`, replays of one call
  /// recorded as a CUDA graph), each one's microseconds into `times`.
  int warmup = 0, reps = 0;
  bool graph = false;
  std::vector<double> *times = nullptr;
};

/// A compiled program, ready to be called on caller-owned arrays.
class Kernel {
public:
  ~Kernel();
  const EntrySignature &signature() const { return signature_; }
  Target target() const { return options_.target; }
  llvm::StringRef chip() const { return options_.chip; }
  /// How it was obtained: lowered and compiled now, or found in the
  /// on-disk cache (host code only, no lowering, no ptxas).
  bool fromDiskCache() const { return fromDiskCache_; }
  double compileSeconds() const { return compileSeconds_; }

  /// Checks `args` (the entry's inputs, then one array per result, which
  /// the program writes) and calls the program. Scalar inputs (i64 seeds)
  /// are 0-d host arrays. Nothing runs when a check fails.
  llvm::Error launch(llvm::ArrayRef<ArrayArg> args,
                     const LaunchOptions &options = {});

private:
  friend class Runtime;
  Kernel() = default;
  llvm::Error checkArgs(llvm::ArrayRef<ArrayArg> args,
                        const LaunchOptions &options) const;
  llvm::Error launchStaged(llvm::ArrayRef<ArrayArg> args,
                           const LaunchOptions &options);
  llvm::Error call(llvm::ArrayRef<ArrayArg> args,
                   const LaunchOptions &options);

  ProgramOptions options_;
  EntrySignature signature_;
  std::vector<GroupTable> tables_;
  std::unique_ptr<Program> program_;
  /// The parsed source module (kept for the tables' values and locations).
  OwningOpRef<ModuleOp> module_;
  std::string entry_;
  bool fromDiskCache_ = false;
  double compileSeconds_ = 0;
};

/// Counters for tests and benchmarks.
struct RuntimeStats {
  int64_t memoryHits = 0, diskHits = 0, compiles = 0, diskWrites = 0;
};

/// The process-wide compiler and kernel cache.
class Runtime {
public:
  static Runtime &get();

  /// The compiled `entry` of `program` (MLIR text) for `options.target`
  /// (a GPU target needs a GPU: its chip and SM count come from it when
  /// `options` leaves them unset). Cached in memory by everything that
  /// defines the result, and on disk (cacheDirectory()).
  llvm::Expected<std::shared_ptr<Kernel>>
  compile(llvm::StringRef program, llvm::StringRef entry,
          ProgramOptions options);

  /// The GPU, initialized on first use: its description or why there is
  /// none.
  llvm::Error requireGPU();
  bool hasGPU();
  std::string gpuDescription();

  /// $NVFP4_CACHE_DIR, else $XDG_CACHE_HOME/nvfp4, else ~/.cache/nvfp4;
  /// "" (or NVFP4_CACHE_DIR=off) disables the disk cache.
  std::string cacheDirectory() const;
  /// Identifies this build of the compiler (part of every cache key).
  const std::string &compilerVersion() const;

  RuntimeStats stats() const { return stats_; }
  /// Drops the in-memory cache (tests: the disk cache is then used).
  void clearMemoryCache();

  MLIRContext &context();

private:
  Runtime();
  ~Runtime();
  struct Impl;
  std::unique_ptr<Impl> impl;
  RuntimeStats stats_;
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_RUNNER_RUNTIME_H
