//===- NVFP4ToSCF.h - nvfp4 to loops ------------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOSCF_NVFP4TOSCF_H
#define NVFP4_CONVERSION_NVFP4TOSCF_NVFP4TOSCF_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

#define GEN_PASS_DECL_CONVERTNVFP4TOSCF
#include "nvfp4/Conversion/Passes.h.inc"

/// Patterns lowering bufferized nvfp4 ops to scf loops; `converter` maps the
/// narrow memrefs to byte storage (StorageTypeConverter).
void populateNVFP4ToSCFConversionPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOSCF_NVFP4TOSCF_H
