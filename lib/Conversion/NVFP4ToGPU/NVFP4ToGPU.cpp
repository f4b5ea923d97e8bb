//===- NVFP4ToGPU.cpp - nvfp4 ops to GPU kernels --------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Bufferized nvfp4 ops become gpu.launch regions (outlined into kernels
// later) that run the same per-tile bodies as the CPU lowering (Codegen.h),
// one thread per tile, so GPU quantization is bit-exact with the CPU. The
// host function keeps only launches and gpu.alloc/dealloc/memcpy: every
// buffer of a GPU program, the entry's arguments included, is device memory
// (the frame: GPUCommon/GPUConversion.h). The patterns by op family:
// Quantize.cpp (quantize, dequantize, swizzles), Matmul.cpp, MoE.cpp (the
// MoE routing ops).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/BufferizedOpPattern.h"
#include "nvfp4/Conversion/GPUCommon/GPUConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4TOGPU
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertNVFP4ToGPUPass
    : public nvfp4::impl::ConvertNVFP4ToGPUBase<ConvertNVFP4ToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    GPUKernelOptions options;
    options.fusedQuantizeMaxElements = fusedQuantizeMaxElements;
    if (failed(applyGPUConversion(
            getOperation(),
            [&](const TypeConverter &converter, RewritePatternSet &patterns) {
              populateNVFP4ToGPUConversionPatterns(converter, patterns,
                                                   options);
            })))
      signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateNVFP4ToGPUConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const GPUKernelOptions &options) {
  populateQuantizeToGPUPatterns(converter, patterns, options);
  populateMatmulToGPUPatterns(converter, patterns);
  populateMoEToGPUPatterns(converter, patterns);
  patterns.add<InlineFusedPattern>(converter, patterns.getContext());
}
