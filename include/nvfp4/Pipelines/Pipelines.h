//===- Pipelines.h - named nvfp4 pipelines ------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_PIPELINES_PIPELINES_H
#define NVFP4_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace nvfp4 {

struct LowerToCPUOptions : public PassPipelineOptions<LowerToCPUOptions> {};

/// Tensor programs to buffers: canonicalize, One-Shot Bufferize across
/// function boundaries (identity layouts), results turned into out-params
/// (the caller owns every output buffer), deallocation of temporaries.
/// Post-condition: no tensors; nvfp4 ops in their memref form.
void buildBufferizationPipeline(OpPassManager &pm);

/// nvfp4 programs to LLVM for the host CPU (the reference execution):
/// bufferization, convert-nvfp4-to-scf, then the standard lowerings to the
/// LLVM dialect. Post-condition: only llvm dialect ops.
void buildLowerToCPUPipeline(OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// Registers `nvfp4-bufferize` and `nvfp4-lower-to-cpu`.
void registerPipelines();

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_PIPELINES_PIPELINES_H
