//===- NVFP4KernelToNVVM.h - nvfp4k ops to NVGPU/NVVM -----------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4KERNELTONVVM_NVFP4KERNELTONVVM_H
#define NVFP4_CONVERSION_NVFP4KERNELTONVVM_NVFP4KERNELTONVVM_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

#define GEN_PASS_DECL_CONVERTNVFP4KERNELTONVVM
#include "nvfp4/Conversion/Passes.h.inc"

/// Adds the nvfp4k types to `converter`: a ring becomes the
/// `!nvgpu.mbarrier.group` of its 2 x stages barriers, a scheduler the i64
/// address of its group table.
void populateNVFP4KernelTypeConversions(TypeConverter &converter);

/// One pattern per nvfp4k op.
void populateNVFP4KernelToNVVMConversionPatterns(const TypeConverter &converter,
                                                 RewritePatternSet &patterns);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4KERNELTONVVM_NVFP4KERNELTONVVM_H
