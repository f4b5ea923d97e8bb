//===- GPUTarget.h - the chips the GPU pipelines compile for ----*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The one place that knows CUDA chips: the names LLVM 22's NVPTX backend
// accepts, the first PTX ISA version that has each, and which of the
// instructions the nvfp4 kernels use each of them can be given. Every GPU
// pipeline resolves its `chip` and `features` options here before it adds a
// pass: the PTX version follows the chip (the lowest one that has the chip
// and the pipeline's instructions), and a chip or PTX version the pipeline
// cannot compile for is rejected with a message instead of reaching the
// NVPTX backend, which aborts on them ("PTX version 8.0 does not support
// target 'sm_100a'", "Cannot select: intrinsic ...").
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_PIPELINES_GPUTARGET_H
#define NVFP4_PIPELINES_GPUTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/BitmaskEnum.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
namespace nvfp4 {

/// Instructions that only some chips have, as this compiler emits them
/// (through MLIR 22's NVVM dialect and LLVM 22's NVPTX backend, whose chip
/// checks are what the table follows).
enum class ChipFeature : unsigned {
  none = 0,
  /// wgmma.mma_async and setmaxnreg: the GEMM of convert-nvfp4-to-sm90.
  wgmma = 1u << 0,
  /// tcgen05.alloc / cp / mma.block_scale / ld: the GEMM of
  /// convert-nvfp4-to-sm100.
  tcgen05 = 1u << 1,
  /// cvt.rn.satfinite.e2m1x2.f32: the hardware E2M1 quantize.
  e2m1Convert = 1u << 2,
  /// cvt.rs.satfinite.e2m1x4.f32: hardware stochastic rounding.
  e2m1StochasticConvert = 1u << 3,
  /// cp.async.bulk.tensor (TMA), mbarrier transaction counts, elect.sync:
  /// what the chip GEMMs are built on besides their MMAs (sm_90 on); the
  /// sm_100a GEMM under tcgen05 emulation needs only this.
  tma = 1u << 4,
  /// griddepcontrol.wait / launch_dependents (sm_90 on): programmatic
  /// dependent launch (nvfp4-gpu-dependent-launch).
  gridDependency = 1u << 5,
  LLVM_MARK_AS_BITMASK_ENUM(/*LargestValue=*/gridDependency)
};
LLVM_ENABLE_BITMASK_ENUMS_IN_NAMESPACE();

/// SMs of the parts the chip kernels' defaults are sized for: a persistent
/// GEMM's grid (`ctas`), the portable grid-stride reductions, the tcgen05
/// emulation's tensor memory. The runtime passes the GPU's own count
/// instead (an H100 PCIe has 114).
/// sm_90a: H100 SXM and H200.
constexpr int64_t kSM90PartSMs = 132;
/// sm_100a: B200.
constexpr int64_t kSM100PartSMs = 148;

/// What a GPU pipeline needs of the chip it compiles for.
struct GPUPipelineNeeds {
  /// The pipeline's name, for messages ("nvfp4-lower-to-sm100").
  StringRef pipeline;
  /// The lowest PTX ISA version its kernels are emitted for (80 is 8.0).
  unsigned minPTXVersion = 80;
  /// Why, when it is above what most chips need ("" otherwise).
  StringRef minPTXReason;
  /// The instructions its kernels use.
  ChipFeature features = ChipFeature::none;
};

/// The NVVM target a GPU pipeline compiles for: what `nvvm-attach-target`
/// gets.
struct GPUTarget {
  std::string chip;
  /// "+ptxNN" and whatever other features the options named.
  std::string features;
  /// The PTX ISA version `features` selects (86 is 8.6).
  unsigned ptxVersion = 0;
  /// Whether the options named it (else it is the lowest that works, and a
  /// pass may raise it: nvfp4-gpu-ptx-version).
  bool ptxNamed = false;
};

/// Checks a pipeline's `chip` and `features` options against the chip table
/// and `needs`. `features` may leave the PTX version out (the default): it
/// is then the lowest one that has the chip and the pipeline's kernels. An
/// explicit `+ptxNN` must be at least that. On failure, `error` says why
/// (prefixed with the pipeline's name).
FailureOr<GPUTarget> resolveGPUTarget(StringRef chip, StringRef features,
                                      const GPUPipelineNeeds &needs,
                                      std::string &error);

/// Whether `chip` is in the table and has every feature in `features`.
bool chipHas(StringRef chip, ChipFeature features);

/// "8.6" for PTX ISA version 86.
std::string ptxVersionString(unsigned version);

/// The PTX ISA version whose tcgen05.mma has .block16/.block32: without
/// it LLVM cannot select the block-scaled MMA
/// (test/Canary/tcgen05-block16-ptx-version.mlir).
constexpr unsigned kBlockScaledTcgen05PTX = 88;

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_PIPELINES_GPUTARGET_H
