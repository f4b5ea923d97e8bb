//===- Patterns.h - convert-nvfp4-to-gpu's patterns -------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOGPU_PATTERNS_H
#define NVFP4_LIB_CONVERSION_NVFP4TOGPU_PATTERNS_H

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"

namespace mlir {
namespace nvfp4 {

/// Quantize (with its amax kernels), dequantize and the scale swizzles:
/// one thread per tile / block / scale running the shared Codegen bodies.
void populateQuantizeToGPUPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   const GPUKernelOptions &options);

/// nvfp4.moe_route (a counting sort), moe_dispatch and moe_combine.
void populateMoEToGPUPatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns);

/// The portable matmuls: one thread per output element.
void populateMatmulToGPUPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_LIB_CONVERSION_NVFP4TOGPU_PATTERNS_H
