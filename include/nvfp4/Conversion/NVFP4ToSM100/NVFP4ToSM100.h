//===- NVFP4ToSM100.h - nvfp4 on Blackwell tcgen05 ----------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOSM100_NVFP4TOSM100_H
#define NVFP4_CONVERSION_NVFP4TOSM100_NVFP4TOSM100_H

// The SM counts the pass options default to.
#include "nvfp4/Pipelines/GPUTarget.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

#define GEN_PASS_DECL_CONVERTNVFP4TOSM100
#include "nvfp4/Conversion/Passes.h.inc"

/// The tcgen05 kernel's knobs: the pass's options (Passes.td owns their
/// defaults).
using SM100KernelOptions = ConvertNVFP4ToSM100Options;

/// Patterns lowering bufferized NVFP4 and MXFP4 matmuls / grouped matmuls
/// to the sm_100a tcgen05 kernel (BlockScaledGemmKernel.h), with benefit 2
/// over the portable SIMT matmuls of populateNVFP4ToGPUConversionPatterns,
/// which stay the fallback (K not a multiple of 32, independent groups of
/// different shapes).
void populateNVFP4ToSM100ConversionPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            const SM100KernelOptions &options);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOSM100_NVFP4TOSM100_H
