//===- EmulateTcgen05.h - tcgen05 ops as sm_90a code ------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_EMULATETCGEN05_EMULATETCGEN05_H
#define NVFP4_CONVERSION_EMULATETCGEN05_EMULATETCGEN05_H

// The SM counts the pass options default to.
#include "nvfp4/Pipelines/GPUTarget.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace nvfp4 {

#define GEN_PASS_DECL_NVFP4EMULATETCGEN05
#include "nvfp4/Conversion/Passes.h.inc"

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_EMULATETCGEN05_EMULATETCGEN05_H
