//===- Storage.h - byte storage of the narrow nvfp4 types ---------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// After bufferization, memrefs of f4E2M1FN, f8E4M3FN and f8E8M0FNU still have
// one element per value. Every lowering rewrites them to the bytes they are
// stored as (docs/spec.md, section 1):
//
//   memref<...xKxf4E2M1FN>  -> memref<...x(K/2)xi8>   two values per byte,
//                                                      even element low nibble
//   memref<...xf8E4M3FN>    -> memref<...xi8>          (and f8E8M0FNU)
//
// Functions, calls, returns and the memref ops bufferization produces
// (alloc, alloca, dealloc, copy, and the globals and get_globals of
// constants, whose initial values become the bytes above) are rewritten with
// them; nvfp4 lowerings see the byte memrefs through their adaptors.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_UTILS_STORAGE_H
#define NVFP4_DIALECT_NVFP4_UTILS_STORAGE_H

#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {

/// Maps memrefs of the narrow types to their byte storage; every other type
/// to itself. Memrefs of f4E2M1FN need an even, static last dimension.
class StorageTypeConverter : public TypeConverter {
public:
  StorageTypeConverter();
};

/// Patterns rewriting func.func/call/return and memref alloc, alloca,
/// dealloc, copy, global (type and initial value), get_global to the
/// storage types.
void populateStorageConversionPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns);

/// Marks the ops handled by populateStorageConversionPatterns legal exactly
/// when their types are.
void configureStorageLegality(ConversionTarget &target,
                              const TypeConverter &converter);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_UTILS_STORAGE_H
