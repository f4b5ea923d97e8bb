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
class Location;
class OpBuilder;
class Type;
class Value;
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

#define GEN_PASS_DECL_CONVERTNVFP4TOGPU
#include "nvfp4/Conversion/Passes.h.inc"

/// What the chip-specific conversions change in the portable kernels.
struct GPUKernelOptions {
  /// E2M1 round-to-nearest-even through the hardware conversion
  /// (cvt.rn.satfinite.e2m1x2.f32, sm_100a and later) instead of the
  /// integer emulation. Stochastic rounding keeps the emulation.
  bool hardwareE2M1 = false;
};

/// Patterns lowering bufferized nvfp4 ops to gpu.launch kernels (one thread
/// per block / tile / element, the shared Codegen bodies) and the host's
/// memref alloc/dealloc/copy to gpu.alloc/dealloc/memcpy: every buffer of a
/// GPU program lives in device memory. Matmuls get a plain SIMT kernel here;
/// the chip-specific conversions add faster ones with a higher benefit.
void populateNVFP4ToGPUConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const GPUKernelOptions &options = GPUKernelOptions());

/// A kernel writing beta * acc (0 without `acc`) to the rows of a masked
/// grouped matmul's output [groups, maxRows, n] at or past masked_m[g]:
/// the chip-specific kernels compute only the valid rows.
void emitMaskedRowsFill(OpBuilder &b, Location loc, int64_t groups,
                        int64_t maxRows, int64_t n, Type outElement, Value out,
                        Value acc, Value maskedM, float beta);

/// Legality for the patterns above: nvfp4 illegal, narrow memrefs illegal,
/// host memref allocations illegal outside GPU kernels.
void configureNVFP4ToGPULegality(ConversionTarget &target,
                                 const TypeConverter &converter);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
