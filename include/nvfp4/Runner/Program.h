//===- Program.h - compile and call an nvfp4 program --------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNNER_PROGRAM_H
#define NVFP4_RUNNER_PROGRAM_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class ExecutionEngine;
namespace nvfp4 {

enum class Target { CPU, GPU };

struct ProgramOptions {
  Target target = Target::CPU;
  /// GPU chip, e.g. "sm_90a".
  std::string chip;
  /// Portable SIMT kernels even where the chip has its own lowering
  /// (sm_90a: convert-nvfp4-to-sm90, sm_100a: convert-nvfp4-to-sm100).
  bool portableKernels = false;
  /// The sm_100a kernels with their tcgen05 ops emulated
  /// (nvfp4-emulate-tcgen05), compiled for `chip` (any chip with TMA):
  /// executes the Blackwell GEMM on a Hopper GPU, for testing.
  bool emulateTcgen05 = false;
  /// Persistent CTAs of the chip-specific GEMMs (the device's SM count);
  /// 0 keeps the pipeline's default.
  int64_t ctas = 0;
  /// Options of the chip's pipeline, as nvfp4-opt takes them (e.g.
  /// "token-tile=128 stages=4" for nvfp4-lower-to-sm90); they override
  /// the ones above.
  std::string pipelineOptions;
  /// Print the lowered (LLVM dialect) module here when set.
  llvm::raw_ostream *dumpLowered = nullptr;
};

/// A program lowered for a target and JIT-compiled for the host.
class Program {
public:
  /// Lowers a clone of `module` and JIT-compiles it; `entry` gets a C
  /// interface (`_mlir_ciface_<entry>`: memrefs by descriptor pointer,
  /// results as trailing out-params).
  /// With `bitcode`, also returns the host module's LLVM bitcode (before
  /// optimization), from which load() rebuilds the program.
  static llvm::Expected<std::unique_ptr<Program>>
  compile(ModuleOp module, llvm::StringRef entry,
          const ProgramOptions &options, std::string *bitcode = nullptr);
  /// JIT-compiles the bitcode an earlier compile() returned: no lowering,
  /// no ptxas (a GPU module is embedded in it). `context` only hosts the
  /// empty module the JIT API takes.
  static llvm::Expected<std::unique_ptr<Program>>
  load(MLIRContext *context, llvm::StringRef bitcode, llvm::StringRef entry,
       const ProgramOptions &options);
  ~Program();

  /// Only lowers a clone of `module` for the target (for GPUs, down to the
  /// embedded cubin); no JIT, no device needed.
  static llvm::Error lower(ModuleOp module, llvm::StringRef entry,
                           const ProgramOptions &options);

  /// Calls the entry function; `args[i]` points at argument i (a pointer to
  /// a memref descriptor, or a scalar).
  llvm::Error invoke(llvm::MutableArrayRef<void *> args);

private:
  Program() = default;
  static llvm::Expected<OwningOpRef<ModuleOp>>
  lowerClone(ModuleOp module, llvm::StringRef entry,
             const ProgramOptions &options);
  using ModuleBuilder =
      std::function<std::unique_ptr<llvm::Module>(Operation *,
                                                  llvm::LLVMContext &)>;
  static llvm::Expected<std::unique_ptr<Program>>
  createEngine(Operation *module, const ModuleBuilder &builder,
               llvm::StringRef entry, const ProgramOptions &options);
  std::unique_ptr<ExecutionEngine> engine;
  std::string symbol;
  void (*packed)(void **) = nullptr;
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_RUNNER_PROGRAM_H
