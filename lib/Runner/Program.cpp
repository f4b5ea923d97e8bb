//===- Program.cpp - compile and call an nvfp4 program ---------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runner/Program.h"

#include "nvfp4/Pipelines/GPUTarget.h"
#include "nvfp4/Pipelines/Pipelines.h"
#include "nvfp4/Runner/CudaRuntime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::nvfp4;

Program::~Program() = default;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<OwningOpRef<ModuleOp>>
Program::lowerClone(ModuleOp module, llvm::StringRef entry,
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
  std::string pipelineError;
  auto onPipelineError = [&](const Twine &message) {
    pipelineError = message.str();
    return failure();
  };
  LogicalResult built = success();
  switch (options.target) {
  case Target::CPU: {
    // nvfp4-lower-to-cpu takes no options today: anything given is an error
    // rather than silently ignored.
    std::unique_ptr<LowerToCPUOptions> cpu =
        LowerToCPUOptions::createFromString(options.pipelineOptions);
    if (!cpu)
      return makeError("bad --pipeline-options for nvfp4-lower-to-cpu: '" +
                       options.pipelineOptions +
                       "' (the CPU pipeline takes no options)");
    buildLowerToCPUPipeline(pm, *cpu);
    break;
  }
  case Target::GPU: {
    // The chip's own lowering where it has one (GPUTarget.h knows which
    // chips have tcgen05 and wgmma), the portable kernels otherwise.
    if (options.emulateTcgen05 && options.portableKernels)
      return makeError("tcgen05 emulation runs the sm_100a kernels; it "
                       "cannot be combined with the portable kernels");
    if ((chipHas(options.chip, ChipFeature::tcgen05) &&
         !options.portableKernels) ||
        options.emulateTcgen05) {
      std::unique_ptr<LowerToSM100Options> sm100 =
          LowerToSM100Options::createFromString(options.pipelineOptions);
      if (!sm100)
        return makeError("bad --pipeline-options for nvfp4-lower-to-sm100: '" +
                         options.pipelineOptions + "'");
      if (sm100->chip.getNumOccurrences() == 0)
        sm100->chip = options.chip;
      if (options.emulateTcgen05)
        sm100->emulateTcgen05 = true;
      if (options.ctas > 0 && sm100->ctas.getNumOccurrences() == 0)
        sm100->ctas = options.ctas;
      built = buildLowerToSM100Pipeline(pm, *sm100, onPipelineError);
      break;
    }
    if (chipHas(options.chip, ChipFeature::wgmma) && !options.portableKernels) {
      std::unique_ptr<LowerToSM90Options> sm90 =
          LowerToSM90Options::createFromString(options.pipelineOptions);
      if (!sm90)
        return makeError("bad --pipeline-options for nvfp4-lower-to-sm90: '" +
                         options.pipelineOptions + "'");
      if (sm90->chip.getNumOccurrences() == 0)
        sm90->chip = options.chip;
      if (options.ctas > 0 && sm90->ctas.getNumOccurrences() == 0)
        sm90->ctas = options.ctas;
      built = buildLowerToSM90Pipeline(pm, *sm90, onPipelineError);
      break;
    }
    std::unique_ptr<LowerToGPUOptions> parsed =
        LowerToGPUOptions::createFromString(options.pipelineOptions);
    if (!parsed)
      return makeError("bad --pipeline-options for nvfp4-lower-to-gpu: '" +
                       options.pipelineOptions + "'");
    LowerToGPUOptions &gpuOptions = *parsed;
    if (gpuOptions.chip.getNumOccurrences() == 0)
      gpuOptions.chip = options.chip;
    built = buildLowerToGPUPipeline(pm, gpuOptions, onPipelineError);
    break;
  }
  }
  if (failed(built))
    return makeError(pipelineError);
  if (failed(pm.run(*lowered)))
    return makeError("lowering failed:\n" + diagnostics);
  if (options.dumpLowered)
    *options.dumpLowered << *lowered << "\n";
  return std::move(lowered);
}

llvm::Error Program::lower(ModuleOp module, llvm::StringRef entry,
                           const ProgramOptions &options) {
  return lowerClone(module, entry, options).takeError();
}

llvm::Expected<std::unique_ptr<Program>>
Program::compile(ModuleOp module, llvm::StringRef entry,
                 const ProgramOptions &options, std::string *bitcode) {
  llvm::Expected<OwningOpRef<ModuleOp>> lowered =
      lowerClone(module, entry, options);
  if (!lowered)
    return lowered.takeError();
  ModuleBuilder translate = [&](Operation *op, llvm::LLVMContext &context) {
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(op, context);
    if (llvmModule && bitcode) {
      bitcode->clear();
      llvm::raw_string_ostream os(*bitcode);
      llvm::WriteBitcodeToFile(*llvmModule, os);
    }
    return llvmModule;
  };
  return createEngine(lowered->get(), translate, entry, options);
}

llvm::Expected<std::unique_ptr<Program>>
Program::load(MLIRContext *context, llvm::StringRef bitcode,
              llvm::StringRef entry, const ProgramOptions &options) {
  std::string parseError;
  ModuleBuilder parse = [&](Operation *, llvm::LLVMContext &llvmContext)
      -> std::unique_ptr<llvm::Module> {
    llvm::Expected<std::unique_ptr<llvm::Module>> parsed =
        llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(bitcode, "nvfp4-cache"), llvmContext);
    if (!parsed) {
      parseError = llvm::toString(parsed.takeError());
      return nullptr;
    }
    return std::move(*parsed);
  };
  OwningOpRef<ModuleOp> empty = ModuleOp::create(UnknownLoc::get(context));
  llvm::Expected<std::unique_ptr<Program>> program =
      createEngine(empty->getOperation(), parse, entry, options);
  if (!program && !parseError.empty())
    return makeError(llvm::toString(program.takeError()) + ": " + parseError);
  return program;
}

llvm::Expected<std::unique_ptr<Program>>
Program::createEngine(Operation *module, const ModuleBuilder &builder,
                      llvm::StringRef entry, const ProgramOptions &options) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // ExecutionEngineOptions::transformer is a function_ref: the function it
  // refers to must outlive ExecutionEngine::create (a temporary did not).
  // On the CPU the host module is the computation: optimize it fully. A
  // GPU program's host module only encodes tensor maps and launches the
  // (already compiled) kernels: light optimization compiles it in a
  // fraction of the time, for the same microseconds per launch.
  bool gpu = options.target == Target::GPU;
  // A GPU program's modules load (global constructors) and, on failure,
  // unload with the CUDA runtime's lock held; declared first, it is released
  // after the engine is gone.
  std::unique_lock<std::recursive_mutex> cudaLock;
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(/*optLevel=*/gpu ? 1 : 3, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.llvmModuleBuilder = builder;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      gpu ? llvm::CodeGenOptLevel::Less : llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return makeError("JIT compilation failed: " +
                     llvm::toString(engine.takeError()));

  // The GPU runtime ABI the lowered host code calls lives in this binary.
  if (gpu) {
    llvm::StringMap<void *> symbols = getCudaRuntimeSymbols();
    (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap map;
      for (auto &entry : symbols)
        map[interner(entry.getKey())] = {
            llvm::orc::ExecutorAddr::fromPtr(entry.getValue()),
            llvm::JITSymbolFlags::Exported};
      return map;
    });
  }
  // Run the global constructors now (they load the GPU modules), not in the
  // first timed call.
  if (gpu) {
    cudaLock = lockCudaRuntime();
    makeCudaContextCurrent();
  }
  (*engine)->initialize();

  std::unique_ptr<Program> program(new Program());
  program->engine = std::move(*engine);
  program->symbol = ("_mlir_ciface_" + entry).str();
  // Resolve the entry once: invoke() then calls it directly.
  llvm::Expected<void (*)(void **)> packed =
      program->engine->lookupPacked(program->symbol);
  if (!packed)
    return makeError("the compiled program has no " + program->symbol + ": " +
                     llvm::toString(packed.takeError()));
  program->packed = *packed;
  return program;
}

llvm::Error Program::invoke(llvm::MutableArrayRef<void *> args) {
  packed(args.data());
  return llvm::Error::success();
}
