//===- InitAll.h - register nvfp4 dialects and passes -------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What nvfp4-opt and nvfp4-runner know: our dialect and passes plus the
// upstream dialects, interfaces and passes that our pipelines use (and no
// more: linking all of MLIR makes every tool slow to build and large).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_INITALL_H
#define NVFP4_INITALL_H

namespace mlir {
class DialectRegistry;
namespace nvfp4 {

/// Dialects and external interface models used by nvfp4 programs and
/// pipelines.
void registerAllDialects(DialectRegistry &registry);

/// nvfp4 passes and pipelines, and the upstream passes they are built from.
void registerAllPasses();

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_INITALL_H
