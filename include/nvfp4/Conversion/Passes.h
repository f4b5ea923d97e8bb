//===- Passes.h - nvfp4 conversion passes -------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_PASSES_H
#define NVFP4_CONVERSION_PASSES_H

#include "nvfp4/Conversion/EmulateTcgen05/EmulateTcgen05.h"
#include "nvfp4/Conversion/NVFP4KernelToNVVM/NVFP4KernelToNVVM.h"
#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToSCF/NVFP4ToSCF.h"
#include "nvfp4/Conversion/NVFP4ToSM100/NVFP4ToSM100.h"
#include "nvfp4/Conversion/NVFP4ToSM90/NVFP4ToSM90.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace nvfp4 {

#define GEN_PASS_REGISTRATION
#include "nvfp4/Conversion/Passes.h.inc"

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_PASSES_H
