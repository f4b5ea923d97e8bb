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
class Operation;
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

/// The body of every GPU conversion pass: the storage patterns, host memref
/// alloc/dealloc/copy as gpu.alloc/dealloc/memcpy (every buffer of a GPU
/// program, the entry's arguments included, lives in device memory), plus
/// the patterns `populate` adds (the portable kernels'; a chip's GEMMs at a
/// higher benefit), applied to `root` with nvfp4 ops, narrow memrefs and
/// host memref allocations outside GPU kernels illegal.
/// A program whose host code reads or writes a device buffer element by
/// element gets a diagnostic first.
LogicalResult applyGPUConversion(
    Operation *root,
    function_ref<void(const TypeConverter &, RewritePatternSet &)> populate);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUCOMMON_GPUCONVERSION_H
