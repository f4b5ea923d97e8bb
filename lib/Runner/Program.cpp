//===- Program.cpp - compile and call an nvfp4 program ---------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runner/Program.h"

#include "nvfp4/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::nvfp4;

Program::~Program() = default;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::unique_ptr<Program>>
Program::compile(ModuleOp module, llvm::StringRef entry,
                 const ProgramOptions &options) {
  OwningOpRef<ModuleOp> lowered(cast<ModuleOp>(module->clone()));
  auto func = lowered->lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return makeError("no function @" + entry + " in the program");
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(module.getContext()));

  // Collect the diagnostics of a failing pipeline into the error.
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    diagStream << diag.getLocation() << ": " << diag << "\n";
    for (Diagnostic &note : diag.getNotes())
      diagStream << "  note: " << note << "\n";
    return success();
  });

  PassManager pm(module.getContext());
  switch (options.target) {
  case Target::CPU:
    buildLowerToCPUPipeline(pm, LowerToCPUOptions());
    break;
  case Target::GPU:
    return makeError("this runner was built without GPU support");
  }
  if (failed(pm.run(*lowered)))
    return makeError("lowering failed:\n" + diagnostics);
  if (options.dumpLowered)
    *options.dumpLowered << *lowered << "\n";

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = makeOptimizingTransformer(
      /*optLevel=*/3, /*sizeLevel=*/0, /*targetMachine=*/nullptr);
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(*lowered, engineOptions);
  if (!engine)
    return makeError("JIT compilation failed: " +
                     llvm::toString(engine.takeError()) + "\n" + diagnostics);

  std::unique_ptr<Program> program(new Program());
  program->engine = std::move(*engine);
  program->symbol = ("_mlir_ciface_" + entry).str();
  return program;
}

llvm::Error Program::invoke(llvm::MutableArrayRef<void *> args) {
  return engine->invokePacked(symbol, args);
}
