//===- NVFP4ToSM90.h - nvfp4 matmuls on Hopper tensor cores -------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOSM90_NVFP4TOSM90_H
#define NVFP4_CONVERSION_NVFP4TOSM90_NVFP4TOSM90_H

// The portable kernels' defaults (kFusedQuantizeMaxElements) and the SM
// counts (GPUTarget.h), which the pass's options default to.
#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Pipelines/GPUTarget.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

#define GEN_PASS_DECL_CONVERTNVFP4TOSM90
#include "nvfp4/Conversion/Passes.h.inc"

/// The kernel's tuning knobs: the options of convert-nvfp4-to-sm90, whose
/// defaults Passes.td owns (the pipelines take theirs from it too).
using SM90KernelOptions = ConvertNVFP4ToSM90Options;

/// Patterns lowering bufferized NVFP4 matmuls / grouped matmuls to the
/// sm_90a kernel (GroupedGemmKernel.h): a token pre-pass, a TMA descriptor
/// and one persistent launch. They take precedence (benefit 2) over the
/// portable SIMT matmul of populateNVFP4ToGPUConversionPatterns, which
/// stays the fallback for what the kernel does not cover (MXFP4, odd N,
/// independent groups of different shapes). `tokenTile` 0 lets the pattern
/// choose 128 or 64 from the shape (waves of CTAs x tile cost).
void populateNVFP4ToSM90ConversionPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           const SM90KernelOptions &options);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOSM90_NVFP4TOSM90_H
