//===- Pipelines.h - named nvfp4 pipelines ------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_PIPELINES_PIPELINES_H
#define NVFP4_PIPELINES_PIPELINES_H

#include "nvfp4/Conversion/Passes.h"
#include "nvfp4/Pipelines/GPUTarget.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace nvfp4 {

struct LowerToCPUOptions : public PassPipelineOptions<LowerToCPUOptions> {};

/// The target options every GPU pipeline has, with the chip and its help
/// from `Derived` (kDefaultChip, kChipHelp, kFeaturesHelp).
template <typename Derived>
struct GPUTargetOptions : public PassPipelineOptions<Derived> {
  using Base = PassPipelineOptions<Derived>;
  typename Base::template Option<std::string> chip{
      *this, "chip", llvm::cl::desc(Derived::kChipHelp),
      llvm::cl::init(Derived::kDefaultChip)};
  typename Base::template Option<std::string> features{
      *this, "features", llvm::cl::desc(Derived::kFeaturesHelp),
      llvm::cl::init("")};
  typename Base::template Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("NVVM/ptxas optimization level"),
      llvm::cl::init(3)};
  typename Base::template Option<std::string> format{
      *this, "format",
      llvm::cl::desc("what gpu.binary holds: bin (cubin), isa (PTX), fatbin"),
      llvm::cl::init("bin")};
  typename Base::template Option<bool> dependentLaunch{
      *this, "dependent-launch",
      llvm::cl::desc("launch each kernel while the kernel ahead of it runs "
                     "(programmatic dependent launch, sm_90 on; "
                     "nvfp4-gpu-dependent-launch)"),
      llvm::cl::init(true)};
  typename Base::template Option<bool> earlyTrigger{
      *this, "early-trigger",
      llvm::cl::desc("with dependent-launch: each kernel lets the next one "
                     "launch at its entry (off: when it completes)"),
      llvm::cl::init(true)};
};

struct LowerToGPUOptions : public GPUTargetOptions<LowerToGPUOptions> {
  static constexpr const char *kDefaultChip = "sm_90a";
  static constexpr const char *kChipHelp =
      "GPU to compile for (sm_50 ... sm_121f, e.g. sm_90a)";
  static constexpr const char *kFeaturesHelp =
      "PTX features, e.g. +ptx86 (default: the PTX ISA version the chip "
      "needs, at least 8.0)";
};

struct LowerToSM90Options : public GPUTargetOptions<LowerToSM90Options> {
  static constexpr const char *kDefaultChip = "sm_90a";
  static constexpr const char *kChipHelp =
      "GPU to compile for (a chip with wgmma: sm_90a)";
  static constexpr const char *kFeaturesHelp =
      "PTX features, e.g. +ptx83 (default: +ptx80)";
  // Defaults: convert-nvfp4-to-sm90's (Passes.td), the one owner.
  Option<int64_t> ctas{*this, "ctas",
                       llvm::cl::desc("persistent CTAs per GEMM (SM count)"),
                       llvm::cl::init(ConvertNVFP4ToSM90Options().ctas)};
  Option<int64_t> tokenTile{
      *this, "token-tile",
      llvm::cl::desc("GEMM widest token tile (32, 64 or 128; 0 chooses)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().tokenTile)};
  Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("GEMM shared-memory ring depth (0: the deepest that "
                     "fits)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().stages)};
  Option<int64_t> promoteEvery{
      *this, "promote-every",
      llvm::cl::desc("GEMM K blocks per tensor-core partial sum (even; 0: "
                     "all of K)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().promoteEvery)};
  Option<int64_t> kSplit{
      *this, "k-split",
      llvm::cl::desc("GEMM consumer pairs sharing a unit's K stages (1, 2; "
                     "0 chooses: 2 at decode sizes)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().kSplit)};
  Option<int64_t> cluster{
      *this, "cluster",
      llvm::cl::desc("GEMM CTAs per cluster splitting each tile's K stages "
                     "(1: none; 2, 4)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().cluster)};
  Option<bool> quantizeInPrepass{
      *this, "quantize-in-prepass",
      llvm::cl::desc("GEMM pre-pass quantizing a fused activation quantize "
                     "(wide token tiles; off: the ops unfused)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().quantizeInPrepass)};
  Option<bool> quantizeInEpilogue{
      *this, "quantize-in-epilogue",
      llvm::cl::desc("GEMM epilogue computing a fused output quantize "
                     "(off: the quantize's own kernel after the matmul)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().quantizeInEpilogue)};
  Option<int64_t> granule{
      *this, "granule",
      llvm::cl::desc("GEMM step of the tile widths (8, 16, 32; 0 chooses)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().granule)};
  Option<std::string> gemv{
      *this, "gemv",
      llvm::cl::desc("narrow-token kernel for dense matmuls of 1-16 tokens: "
                     "on, off or auto"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().gemv)};
  Option<int64_t> gemvWarps{
      *this, "gemv-warps",
      llvm::cl::desc("narrow-token kernel warps splitting K (0 chooses)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().gemvWarps)};
  Option<int64_t> gemvPrefetch{
      *this, "gemv-prefetch",
      llvm::cl::desc("narrow-token kernel K blocks per warp prefetched into "
                     "L2 before its grid dependency wait (0: none)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().gemvPrefetch)};
  Option<int64_t> gemvCtasPerSM{
      *this, "gemv-ctas-per-sm",
      llvm::cl::desc("narrow-token kernel CTAs per SM it is compiled to fit "
                     "(.minnctapersm; 0 chooses, -1 none)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().gemvCtasPerSM)};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("GEMM tiles to CTAs: data-parallel, stream-k or auto"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().schedule)};
  Option<std::string> tokens{
      *this, "tokens",
      llvm::cl::desc("GEMM token operand to f16: prepass, in-kernel or auto"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().tokens)};
  Option<bool> bf16Mma{
      *this, "bf16-mma",
      llvm::cl::desc("Weight-only matmuls on bf16 activations and MXFP4 on "
                     "the kernel (bf16 MMA; checked on an H200 for NVFP4 "
                     "weights, not yet on an H100 nor for MXFP4)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().bf16Mma)};
  Option<int64_t> fusedQuantizeMaxElements{
      *this, "fused-quantize-max-elements",
      llvm::cl::desc("largest activation (rows x K) quantized with its own "
                     "amax in one kernel (0: the amax kernel first)"),
      llvm::cl::init(ConvertNVFP4ToSM90Options().fusedQuantizeMaxElements)};
};

struct LowerToSM100Options : public GPUTargetOptions<LowerToSM100Options> {
  static constexpr const char *kDefaultChip = "sm_100a";
  static constexpr const char *kChipHelp =
      "GPU to compile for (a chip with tcgen05: sm_100a)";
  // PTX 8.8: tcgen05.mma's .block16 / .block32 qualifiers.
  static constexpr const char *kFeaturesHelp =
      "PTX features, e.g. +ptx90 (default: +ptx88)";
  // Defaults: convert-nvfp4-to-sm100's (Passes.td), the one owner.
  Option<int64_t> ctas{*this, "ctas",
                       llvm::cl::desc("persistent CTAs per GEMM (SM count)"),
                       llvm::cl::init(ConvertNVFP4ToSM100Options().ctas)};
  Option<int64_t> tokenTile{
      *this, "token-tile",
      llvm::cl::desc("GEMM token tile (64, 128 or 256; 0 chooses)"),
      llvm::cl::init(ConvertNVFP4ToSM100Options().tokenTile)};
  Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("GEMM shared-memory ring depth (0: deepest that fits)"),
      llvm::cl::init(ConvertNVFP4ToSM100Options().stages)};
  Option<bool> hardwareE2m1{
      *this, "hardware-e2m1",
      llvm::cl::desc("quantize with cvt.rn.satfinite.e2m1x2.f32"),
      llvm::cl::init(ConvertNVFP4ToSM100Options().hardwareE2m1)};
  Option<bool> hardwareStochastic{
      *this, "hardware-stochastic",
      llvm::cl::desc("stochastic rounding with cvt.rs.satfinite.e2m1x4.f32 "
                     "(hardware-defined, not bit-exact with the reference)"),
      llvm::cl::init(ConvertNVFP4ToSM100Options().hardwareStochastic)};
  Option<bool> emulateTcgen05{
      *this, "emulate-tcgen05",
      llvm::cl::desc("run the tcgen05 ops (and the E2M1 conversion) under "
                     "nvfp4-emulate-tcgen05, for a chip without them (any "
                     "chip with TMA: sm_90 on); `chip` names the chip that "
                     "runs the code"),
      llvm::cl::init(false)};
  Option<std::string> emulationPasses{
      *this, "emulation-passes",
      llvm::cl::desc("with emulate-tcgen05: a pass pipeline run on the "
                     "compiled kernels before they are emulated, for tests "
                     "(the mutation test's nvfp4-test-mutate-tcgen05, which "
                     "nvfp4-opt and nvfp4-runner register), e.g. "
                     "emulation-passes={nvfp4-test-mutate-tcgen05{field=sbo}}"),
      llvm::cl::init("")};
};

/// Tensor programs to buffers: canonicalize, One-Shot Bufferize across
/// function boundaries (identity layouts), results turned into out-params
/// (the caller owns every output buffer), deallocation of temporaries.
/// With `forGPUKernels`, constants that are read (not only copied out) get
/// a buffer of their own (nvfp4-buffer-gpu-constants): kernels cannot read
/// host globals.
/// Post-condition: no tensors; nvfp4 ops in their memref form.
void buildBufferizationPipeline(OpPassManager &pm, bool forGPUKernels = false);

/// nvfp4 programs to LLVM for the host CPU (the reference execution):
/// bufferization, convert-nvfp4-to-scf, then the standard lowerings to the
/// LLVM dialect. Post-condition: only llvm dialect ops.
void buildLowerToCPUPipeline(OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// Receives the message of a pipeline that cannot be built for its options
/// (and returns failure), as PassRegistry's pipeline builders do.
using PipelineErrorHandler = function_ref<LogicalResult(const Twine &)>;

/// nvfp4 programs to a host function that launches CUDA kernels (portable
/// SIMT kernels, convert-nvfp4-to-gpu): bufferization, conversion, kernel
/// outlining, one async stream per function, then MLIR's GPU-to-NVVM
/// pipeline (PTX, ptxas, a cubin embedded in the host module).
/// Post-condition: only llvm dialect ops; gpu.binary holds the cubin.
/// Fails (through `errorHandler`) for a chip or PTX version it cannot
/// compile for (GPUTarget.h); nothing is added to `pm` then.
LogicalResult buildLowerToGPUPipeline(OpPassManager &pm,
                                      const LowerToGPUOptions &options,
                                      PipelineErrorHandler errorHandler);

/// nvfp4 programs for Hopper: as buildLowerToGPUPipeline, with NVFP4
/// matmuls on the persistent TMA + wgmma kernel (convert-nvfp4-to-sm90).
/// The chip must have wgmma (sm_90a).
LogicalResult buildLowerToSM90Pipeline(OpPassManager &pm,
                                       const LowerToSM90Options &options,
                                       PipelineErrorHandler errorHandler);

/// nvfp4 programs for Blackwell: as buildLowerToGPUPipeline, with NVFP4
/// and MXFP4 matmuls on the tcgen05 kernel and hardware E2M1 quantize
/// (convert-nvfp4-to-sm100), PTX 8.8 or later. The chip must have tcgen05
/// (sm_100a) and the E2M1 conversions the options ask for.
LogicalResult buildLowerToSM100Pipeline(OpPassManager &pm,
                                        const LowerToSM100Options &options,
                                        PipelineErrorHandler errorHandler);

/// The GPU stages after the nvfp4 conversion (shared by the chip-specific
/// pipelines): outlining, async launches, NVVM, cubins (one thread per
/// gpu.module: nvfp4-gpu-module-to-binary), host LLVM, for a
/// target resolveGPUTarget accepted; with `dependentLaunch`, for chips that
/// have it, nvfp4-gpu-dependent-launch.
void buildGPUBackendPipeline(OpPassManager &pm, const GPUTarget &target,
                             int optLevel, StringRef format = "bin",
                             bool dependentLaunch = true,
                             bool earlyTrigger = true);

/// Registers `nvfp4-bufferize`, `nvfp4-lower-to-cpu`, `nvfp4-lower-to-gpu`,
/// `nvfp4-lower-to-sm90`, `nvfp4-lower-to-sm100`.
void registerPipelines();

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_PIPELINES_PIPELINES_H
