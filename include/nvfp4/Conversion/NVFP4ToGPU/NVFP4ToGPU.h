//===- NVFP4ToGPU.h - nvfp4 to GPU kernels ------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
#define NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

#define GEN_PASS_DECL_CONVERTNVFP4TOGPU
#include "nvfp4/Conversion/Passes.h.inc"

/// Patterns lowering bufferized nvfp4 ops to gpu.launch kernels (one thread
/// per block / tile / element, the shared Codegen bodies) and the host's
/// memref alloc/dealloc/copy to gpu.alloc/dealloc/memcpy: every buffer of a
/// GPU program lives in device memory. Matmuls get a plain SIMT kernel here;
/// the chip-specific conversions add faster ones with a higher benefit.
void populateNVFP4ToGPUConversionPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns);

/// Legality for the patterns above: nvfp4 illegal, narrow memrefs illegal,
/// host memref allocations illegal outside GPU kernels.
void configureNVFP4ToGPULegality(ConversionTarget &target,
                                 const TypeConverter &converter);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
