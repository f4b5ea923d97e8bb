//===- Passes.h - nvfp4 GPU transforms --------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The GPU pipelines' passes that transform GPU, NVVM and host IR (Passes.td
// here); the lowerings of nvfp4 ops are in nvfp4/Conversion/Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_TRANSFORMS_PASSES_H
#define NVFP4_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace nvfp4 {

/// nvfp4-buffer-gpu-constants
/// (lib/Conversion/NVFP4ToGPU/BufferGPUConstants.cpp).
#define GEN_PASS_DECL_NVFP4BUFFERGPUCONSTANTS
/// nvfp4-gpu-ptx-version (lib/Conversion/GPUCommon/PTXVersion.cpp).
#define GEN_PASS_DECL_NVFP4GPUPTXVERSION
/// nvfp4-gpu-dependent-launch (lib/Conversion/GPUCommon/DependentLaunch.cpp).
#define GEN_PASS_DECL_NVFP4GPUDEPENDENTLAUNCH
/// nvfp4-gpu-module-to-binary (lib/Pipelines/ModuleToBinary.cpp).
#define GEN_PASS_DECL_NVFP4GPUMODULETOBINARY
#define GEN_PASS_REGISTRATION
#include "nvfp4/Transforms/Passes.h.inc"

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_TRANSFORMS_PASSES_H
