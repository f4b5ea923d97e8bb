//===- BufferizableOpInterfaceImpl.h - nvfp4 bufferization -------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace nvfp4 {

/// One-Shot Bufferize support for every nvfp4 op: each result becomes a new
/// buffer (no result aliases an operand) passed as the op's `outs`.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
