//===- ModuleToBinary.cpp - gpu.modules to binaries, concurrently ---------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Serializing a gpu.module (translation to LLVM IR, the NVPTX backend,
// ptxas) is most of a GPU program's compile time, and each module's is
// independent of the others': they run on the context's threads. Making the
// objects and the gpu.binary ops, which change the IR, stays serial.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4GPUMODULETOBINARY
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// One gpu.module and its serialized object per target.
struct Serialization {
  gpu::GPUModuleOp module;
  SmallVector<gpu::TargetAttrInterface> targets;
  SmallVector<SmallVector<char, 0>> objects;
};

struct NVFP4GPUModuleToBinaryPass
    : public nvfp4::impl::NVFP4GPUModuleToBinaryBase<
          NVFP4GPUModuleToBinaryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp host = getOperation();
    std::optional<gpu::CompilationTarget> format =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(
            compilationTarget)
            .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
            .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
            .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!format) {
      host.emitError() << "nvfp4-gpu-module-to-binary: unknown format '"
                       << compilationTarget
                       << "' (offloading, assembly, binary or fatbinary)";
      return signalPassFailure();
    }

    SmallVector<Serialization> jobs;
    for (gpu::GPUModuleOp module : host.getOps<gpu::GPUModuleOp>()) {
      Serialization &job = jobs.emplace_back();
      job.module = module;
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets || targets.empty()) {
        module.emitError("the module has no target attributes");
        return signalPassFailure();
      }
      for (Attribute attr : targets) {
        auto target = dyn_cast<gpu::TargetAttrInterface>(attr);
        if (!target) {
          module.emitError() << "target " << attr
                             << " does not implement TargetAttrInterface";
          return signalPassFailure();
        }
        job.targets.push_back(target);
      }
    }
    if (jobs.empty())
      return;

    // The symbol table a target may ask for, built before the threads
    // start (lazily building it from several threads would race).
    SymbolTable table(host);
    gpu::TargetOptions options(/*toolkitPath=*/"", /*librariesToLink=*/{},
                               /*cmdOptions=*/"", /*elfSection=*/"", *format,
                               [&]() { return &table; });
    // Each task reads only its own module (and creates attributes, which
    // the context guards); the diagnostics of failing tasks come out in
    // module order.
    if (failed(failableParallelForEach(
            &getContext(), jobs, [&](Serialization &job) -> LogicalResult {
              for (gpu::TargetAttrInterface target : job.targets) {
                std::optional<SmallVector<char, 0>> object =
                    target.serializeToObject(job.module, options);
                if (!object)
                  return job.module.emitError(
                      "An error happened while serializing the module.");
                job.objects.push_back(std::move(*object));
              }
              return success();
            })))
      return signalPassFailure();

    OpBuilder builder(&getContext());
    for (Serialization &job : jobs) {
      SmallVector<Attribute> objects;
      for (auto [target, object] : llvm::zip(job.targets, job.objects)) {
        Attribute made = target.createObject(job.module, object, options);
        if (!made) {
          job.module.emitError("An error happened while creating the object.");
          return signalPassFailure();
        }
        objects.push_back(made);
      }
      builder.setInsertionPointAfter(job.module);
      gpu::BinaryOp::create(
          builder, job.module.getLoc(), job.module.getName(),
          dyn_cast_or_null<gpu::OffloadingLLVMTranslationAttrInterface>(
              job.module.getOffloadingHandlerAttr()),
          builder.getArrayAttr(objects));
      job.module->erase();
    }
  }
};

} // namespace
