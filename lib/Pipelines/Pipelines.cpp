//===- Pipelines.cpp - named nvfp4 pipelines -------------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "nvfp4/Conversion/Passes.h"
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"
#include "nvfp4/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::nvfp4;

void mlir::nvfp4::buildBufferizationPipeline(OpPassManager &pm,
                                             bool forGPUKernels) {
  pm.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Results become out-params: callers (the runner) allocate, poison and
  // read every output; an output computed in place needs no copy.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // Kernels cannot read host globals: the constants they read get buffers
  // (device memory, once converted), which deallocation then frees.
  if (forGPUKernels)
    pm.addPass(createNVFP4BufferGPUConstants());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createCanonicalizerPass());
}

void mlir::nvfp4::buildLowerToCPUPipeline(OpPassManager &pm,
                                          const LowerToCPUOptions &) {
  buildBufferizationPipeline(pm);
  // nvfp4 ops -> scf loops over byte storage (no narrow types left).
  pm.addPass(createConvertNVFP4ToSCF());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCSEPass());
  // Standard lowering to LLVM. bf16 casts become integer ops (no libcalls:
  // the JIT has no compiler runtime); the dot-product reductions may be
  // reassociated (the spec leaves the fp32 summation order open).
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::nvfp4::buildGPUBackendPipeline(OpPassManager &pm,
                                          const GPUTarget &target, int optLevel,
                                          StringRef format,
                                          bool dependentLaunch,
                                          bool earlyTrigger) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Constants and index arithmetic defined outside a gpu.launch (canonicalize
  // hoists every constant to the function entry) move into its body first:
  // outlining alone would pass each of them as a kernel argument, and the
  // kernel would then divide, compare and shift by runtime values.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  // gpu.launch regions -> gpu.module kernels.
  pm.addPass(createGpuKernelOutliningPass());
  // One stream per host function: launches, copies and allocations chained
  // with tokens, synchronized once at the end.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  // Upstream's gpu-lower-to-nvvm-pipeline (LLVM 22), pass for pass, but for
  // its last step: the gpu.modules become binaries concurrently.
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Every kernel waits for the kernels ahead of it and lets the one after
  // it start early (programmatic dependent launch; the runtime launches
  // them so).
  if (dependentLaunch && chipHas(target.chip, ChipFeature::gridDependency)) {
    NVFP4GPUDependentLaunchOptions launch;
    launch.earlyTrigger = earlyTrigger;
    pm.addPass(createNVFP4GPUDependentLaunch(launch));
  }
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = target.chip;
  attach.features = target.features;
  attach.optLevel = optLevel;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertIndexToLLVMPassOptions index;
  index.indexBitwidth = 64;
  pm.addPass(createConvertIndexToLLVMPass(index));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = 64;
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  // Kernels of many parameters (independent groups) or of later
  // instructions (an imported kernel's shared::cta TMA loads) get the PTX
  // version that takes them, or a diagnostic.
  NVFP4GPUPTXVersionOptions ptx;
  ptx.raisePtx = !target.ptxNamed;
  pm.addPass(createNVFP4GPUPTXVersion(ptx));
  pm.addPass(createGpuToLLVMConversionPass());
  NVFP4GPUModuleToBinaryOptions binary;
  binary.compilationTarget = format.str();
  pm.addPass(createNVFP4GPUModuleToBinary(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// The chip and PTX version of a GPU pipeline, or its error.
static FailureOr<GPUTarget> resolve(StringRef chip, StringRef features,
                                    const GPUPipelineNeeds &needs,
                                    PipelineErrorHandler errorHandler) {
  std::string error;
  FailureOr<GPUTarget> target = resolveGPUTarget(chip, features, needs, error);
  if (failed(target))
    return errorHandler(error);
  return target;
}

namespace {
/// Kernel-level input (nvfp4k ops a user wrote, or a chip conversion made)
/// against the resolved target: what the chip or the PTX version cannot
/// take is a diagnostic here, not an instruction-selection abort in the
/// back end. tcgen05 ops need the tcgen05 chips and PTX 8.8 (unless they
/// are emulated); wgmma ops wgmma; every op that lowers to mbarriers, TMA,
/// bulk copies or async-proxy fences (InGPUKernel) the TMA generation.
struct CheckKernelTarget
    : PassWrapper<CheckKernelTarget, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckKernelTarget)
  CheckKernelTarget(StringRef pipeline, GPUTarget target, bool tcgen05Emulated)
      : pipeline(pipeline.str()), target(std::move(target)),
        tcgen05Emulated(tcgen05Emulated) {}
  StringRef getArgument() const override { return "nvfp4-check-kernel-target"; }
  void runOnOperation() override {
    // A gpu.module that brings its own #nvvm.target keeps it (nvvm-attach-
    // target adds the pipeline's beside it): its chip and PTX version are
    // checked as the pipeline's own are, or LLVM aborts at serialization.
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      if (!module.getTargets())
        continue;
      for (Attribute attr : module.getTargetsAttr()) {
        auto own = dyn_cast<NVVM::NVVMTargetAttr>(attr);
        if (!own)
          continue;
        GPUPipelineNeeds needs;
        needs.pipeline = pipeline;
        needs.minPTXVersion = 0;
        std::string error;
        if (failed(resolveGPUTarget(own.getChip(), own.getFeatures(), needs,
                                    error))) {
          module.emitError() << "gpu.module @" << module.getName()
                             << " carries " << own << ": " << error;
          return signalPassFailure();
        }
      }
    }
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (!isa<nvfp4k::NVFP4KernelDialect>(op->getDialect()))
        return WalkResult::advance();
      auto reject = [&](const Twine &why) {
        op->emitError() << pipeline << ": '" << op->getName() << "' needs "
                        << why;
        return WalkResult::interrupt();
      };
      if (isa<nvfp4k::Tcgen05ScaledMmaOp, nvfp4k::Tcgen05CommitOp>(op) &&
          !tcgen05Emulated) {
        if (!chipHas(target.chip, ChipFeature::tcgen05))
          return reject("a chip with tcgen05 block-scaled MMAs, not " +
                        target.chip);
        if (target.ptxVersion < kBlockScaledTcgen05PTX)
          return reject("PTX ISA " + ptxVersionString(kBlockScaledTcgen05PTX) +
                        " (tcgen05.mma .block16/.block32); this pipeline "
                        "chose " +
                        ptxVersionString(target.ptxVersion) + " (features=+ptx" +
                        Twine(kBlockScaledTcgen05PTX) + ")");
      }
      if (isa<nvfp4k::WgmmaRSOp, nvfp4k::WgmmaWaitOp>(op) &&
          !chipHas(target.chip, ChipFeature::wgmma))
        return reject("wgmma (sm_90a), not " + target.chip);
      if (op->hasTrait<nvfp4k::InGPUKernel>() &&
          !chipHas(target.chip, ChipFeature::tma))
        return reject("mbarriers, TMA and async-proxy fences (sm_90 or "
                      "later), not " +
                      target.chip);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
  std::string pipeline;
  GPUTarget target;
  bool tcgen05Emulated;
};
} // namespace

/// Every GPU pipeline: resolve the chip against what the pipeline needs,
/// bufferize, run the pipeline's nvfp4 conversion, then the GPU back end.
template <typename Options>
static LogicalResult buildGPUPipeline(
    OpPassManager &pm, const Options &options, const GPUPipelineNeeds &needs,
    PipelineErrorHandler errorHandler, std::unique_ptr<Pass> conversion,
    function_ref<void(OpPassManager &)> kernelPasses = {},
    function_ref<void(OpPassManager &)> beforeConversion = {},
    bool tcgen05Emulated = false) {
  FailureOr<GPUTarget> target =
      resolve(options.chip, options.features, needs, errorHandler);
  if (failed(target))
    return failure();
  buildBufferizationPipeline(pm, /*forGPUKernels=*/true);
  if (beforeConversion)
    beforeConversion(pm);
  pm.addPass(std::move(conversion));
  pm.addPass(std::make_unique<CheckKernelTarget>(needs.pipeline, *target,
                                                 tcgen05Emulated));
  // The chip GEMM kernels are built from nvfp4k ops: down to NVGPU/NVVM
  // before the back end (a no-op for the portable pipeline).
  pm.addPass(createConvertNVFP4KernelToNVVM());
  if (kernelPasses)
    kernelPasses(pm);
  buildGPUBackendPipeline(pm, *target, options.optLevel, options.format,
                          options.dependentLaunch, options.earlyTrigger);
  return success();
}

LogicalResult
mlir::nvfp4::buildLowerToGPUPipeline(OpPassManager &pm,
                                     const LowerToGPUOptions &options,
                                     PipelineErrorHandler errorHandler) {
  GPUPipelineNeeds needs;
  needs.pipeline = "nvfp4-lower-to-gpu";
  return buildGPUPipeline(pm, options, needs, errorHandler,
                          createConvertNVFP4ToGPU());
}

LogicalResult
mlir::nvfp4::buildLowerToSM90Pipeline(OpPassManager &pm,
                                      const LowerToSM90Options &options,
                                      PipelineErrorHandler errorHandler) {
  GPUPipelineNeeds needs;
  needs.pipeline = "nvfp4-lower-to-sm90";
  needs.features = ChipFeature::wgmma;
  ConvertNVFP4ToSM90Options sm90;
  sm90.ctas = options.ctas;
  sm90.tokenTile = options.tokenTile;
  sm90.stages = options.stages;
  sm90.promoteEvery = options.promoteEvery;
  sm90.kSplit = options.kSplit;
  sm90.cluster = options.cluster;
  sm90.quantizeInPrepass = options.quantizeInPrepass;
  sm90.quantizeInEpilogue = options.quantizeInEpilogue;
  sm90.granule = options.granule;
  sm90.gemv = options.gemv;
  sm90.gemvWarps = options.gemvWarps;
  sm90.gemvCtasPerSM = options.gemvCtasPerSM;
  sm90.gemvPrefetch = options.gemvPrefetch;
  sm90.schedule = options.schedule;
  sm90.tokens = options.tokens;
  sm90.bf16Mma = options.bf16Mma;
  sm90.fusedQuantizeMaxElements = options.fusedQuantizeMaxElements;
  // The GEMM kernel's epilogue computes the activation and the quantize of
  // its result, and it quantizes the activations it consumes itself
  // (nvfp4.fused). The epilogue first: a quantize between two matmuls that
  // both could take is the first one's output (its codes, not bf16 values,
  // go through memory).
  return buildGPUPipeline(pm, options, needs, errorHandler,
                          createConvertNVFP4ToSM90(sm90), {},
                          [](OpPassManager &pm) {
                            pm.addPass(createNVFP4FuseMatmulEpilogue());
                            pm.addPass(createNVFP4FuseQuantizeMatmul());
                          });
}

LogicalResult
mlir::nvfp4::buildLowerToSM100Pipeline(OpPassManager &pm,
                                       const LowerToSM100Options &options,
                                       PipelineErrorHandler errorHandler) {
  GPUPipelineNeeds needs;
  needs.pipeline = "nvfp4-lower-to-sm100";
  if (options.emulateTcgen05) {
    // The emulation replaces the tcgen05 ops and the E2M1 conversion; the
    // rest of the kernel is TMA + mbarrier code. cvt.rs is not emulated.
    if (options.hardwareStochastic)
      return errorHandler("nvfp4-lower-to-sm100: hardware-stochastic cannot "
                          "be emulated (the PTX ISA does not define how "
                          "cvt.rs consumes its random bits)");
    needs.features = ChipFeature::tma;
  } else {
    if (!options.emulationPasses.empty())
      return errorHandler("nvfp4-lower-to-sm100: emulation-passes needs "
                          "emulate-tcgen05");
    needs.minPTXVersion = kBlockScaledTcgen05PTX;
    needs.minPTXReason = "tcgen05.mma .block16/.block32";
    needs.features = ChipFeature::tcgen05;
    if (options.hardwareE2m1)
      needs.features |= ChipFeature::e2m1Convert;
    if (options.hardwareStochastic)
      needs.features |= ChipFeature::e2m1StochasticConvert;
  }
  ConvertNVFP4ToSM100Options sm100;
  sm100.ctas = options.ctas;
  sm100.tokenTile = options.tokenTile;
  sm100.stages = options.stages;
  sm100.hardwareE2m1 = options.hardwareE2m1;
  sm100.hardwareStochastic = options.hardwareStochastic;
  // The test passes, parsed once here so that a pipeline this process
  // cannot parse (a pass it has not registered) is the caller's error.
  if (options.emulateTcgen05 && !options.emulationPasses.empty()) {
    OpPassManager probe(ModuleOp::getOperationName());
    std::string error;
    llvm::raw_string_ostream os(error);
    if (failed(parsePassPipeline(options.emulationPasses, probe, os)))
      return errorHandler("nvfp4-lower-to-sm100: emulation-passes: " + error);
  }
  auto emulate = [&](OpPassManager &kernels) {
    if (!options.emulateTcgen05)
      return;
    if (!options.emulationPasses.empty())
      (void)parsePassPipeline(options.emulationPasses, kernels);
    NVFP4EmulateTcgen05Options emulation;
    emulation.maxCtas = options.ctas;
    kernels.addPass(createNVFP4EmulateTcgen05(emulation));
  };
  return buildGPUPipeline(pm, options, needs, errorHandler,
                          createConvertNVFP4ToSM100(sm100), emulate, {},
                          options.emulateTcgen05);
}

/// Registers a pipeline whose builder can reject its options: the message
/// goes to the error handler of whoever parses the pipeline (nvfp4-opt
/// prints it as an error).
template <typename Options>
static void
registerCheckedPipeline(StringRef arg, StringRef description,
                        LogicalResult (*build)(OpPassManager &, const Options &,
                                               PipelineErrorHandler)) {
  registerPassPipeline(
      arg, description,
      [build](OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        return build(pm, options, errorHandler);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

void mlir::nvfp4::registerPipelines() {
  PassPipelineRegistration<>(
      "nvfp4-bufferize",
      "Bufferize an nvfp4 program (outputs become out-params)",
      [](OpPassManager &pm) { buildBufferizationPipeline(pm); });
  PassPipelineRegistration<LowerToCPUOptions>(
      "nvfp4-lower-to-cpu",
      "Lower an nvfp4 program to LLVM for the host CPU (reference execution)",
      buildLowerToCPUPipeline);
  registerCheckedPipeline<LowerToGPUOptions>(
      "nvfp4-lower-to-gpu",
      "Lower an nvfp4 program to a host module launching portable CUDA "
      "kernels",
      buildLowerToGPUPipeline);
  registerCheckedPipeline<LowerToSM90Options>(
      "nvfp4-lower-to-sm90",
      "Lower an nvfp4 program for Hopper (sm_90a): NVFP4 matmuls on a "
      "persistent TMA + wgmma kernel, the rest portable",
      buildLowerToSM90Pipeline);
  registerCheckedPipeline<LowerToSM100Options>(
      "nvfp4-lower-to-sm100",
      "Lower an nvfp4 program for Blackwell (sm_100a): block-scaled matmuls "
      "on tcgen05, hardware E2M1 quantize, the rest portable",
      buildLowerToSM100Pipeline);
}
