//===- NVFP4KernelToNVVM.cpp - nvfp4k ops to NVGPU/NVVM -------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// One pattern per nvfp4k op, in the style of upstream NVGPUToNVVM: each
// expands to upstream nvgpu/nvvm ops (mbarrier groups, TMA, descriptors,
// conversions) plus the index arithmetic around them. The only inline PTX
// is the register-A wgmma, which MLIR 22 lacks (test/Canary pins the gap).
// The patterns live in one file per op family (Patterns.h lists them);
// this file holds the pass and the type conversions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4KernelToNVVM/NVFP4KernelToNVVM.h"
#include "Patterns.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"

#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4KERNELTONVVM
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4k;

namespace {

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertNVFP4KernelToNVVMPass
    : public nvfp4::impl::ConvertNVFP4KernelToNVVMBase<
          ConvertNVFP4KernelToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    nvfp4::populateNVFP4KernelTypeConversions(converter);
    RewritePatternSet patterns(ctx);
    nvfp4::populateNVFP4KernelToNVVMConversionPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<NVFP4KernelDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateNVFP4KernelTypeConversions(TypeConverter &converter) {
  converter.addConversion([](RingType ring) -> Type {
    MLIRContext *ctx = ring.getContext();
    return nvgpu::MBarrierGroupType::get(
        ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
        2 * ring.getStages());
  });
  converter.addConversion([](SchedulerType scheduler) -> Type {
    return IntegerType::get(scheduler.getContext(), 64);
  });
}

void mlir::nvfp4::populateNVFP4KernelToNVVMConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  using namespace mlir::nvfp4k::lowering;
  populateRingPatterns(converter, patterns);
  populateSchedulerPatterns(converter, patterns);
  populateLoadPatterns(converter, patterns);
  populateSM90MmaPatterns(converter, patterns);
  populateSM100MmaPatterns(converter, patterns);
  populateEpiloguePatterns(converter, patterns);
}
