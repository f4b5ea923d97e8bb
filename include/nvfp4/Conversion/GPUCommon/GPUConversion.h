//===- GPUConversion.h - the frame of the GPU conversions -------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What every GPU conversion pass (convert-nvfp4-to-gpu, -sm90, -sm100)
// applies its patterns in: the narrow element types as byte storage, host
// buffers as device memory, the legality, and the check that host code
// reads no device buffer element by element.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUCOMMON_GPUCONVERSION_H
#define NVFP4_CONVERSION_GPUCOMMON_GPUCONVERSION_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class ConversionTarget;
class Operation;
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

/// Host memref alloc/dealloc/copy to gpu.alloc/dealloc/memcpy (benefit 2,
/// over the storage patterns): every buffer of a GPU program, the entry's
/// arguments included, lives in device memory.
void populateGPUHostMemoryPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);

/// Legality of a GPU conversion: nvfp4 illegal, narrow memrefs illegal,
/// host memref allocations illegal outside GPU kernels.
void configureGPUConversionLegality(ConversionTarget &target,
                                    const TypeConverter &converter);

/// The body of every GPU conversion pass: the storage and host-memory
/// patterns plus those `populate` adds (the portable kernels'; a chip's
/// GEMMs at a higher benefit), applied to `root` under the legality above.
/// A program whose host code reads or writes a device buffer element by
/// element gets a diagnostic first.
LogicalResult applyGPUConversion(
    Operation *root,
    function_ref<void(const TypeConverter &, RewritePatternSet &)> populate);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUCOMMON_GPUCONVERSION_H
