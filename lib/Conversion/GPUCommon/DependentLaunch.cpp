//===- DependentLaunch.cpp - programmatic dependent launch ----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUCommon/DependentLaunch.h"
#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4GPUDEPENDENTLAUNCH
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

static void emitGridDependencyControl(OpBuilder &b, Location loc,
                                      StringRef instruction) {
  MLIRContext *ctx = b.getContext();
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange{}, ValueRange{}, instruction, "~{memory}",
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

void mlir::nvfp4::emitGridDependencyWait(OpBuilder &b, Location loc) {
  Operation *parent = b.getInsertionBlock()->getParentOp();
  auto kernel = dyn_cast<gpu::GPUFuncOp>(parent);
  if (!kernel)
    kernel = parent->getParentOfType<gpu::GPUFuncOp>();
  assert(kernel && "griddepcontrol.wait outside a gpu.func");
  kernel->setAttr(kOwnGridWaitAttr, b.getUnitAttr());
  emitGridDependencyControl(b, loc, "griddepcontrol.wait;");
}

void mlir::nvfp4::emitLaunchDependents(OpBuilder &b, Location loc) {
  emitGridDependencyControl(b, loc, "griddepcontrol.launch_dependents;");
}

namespace {

struct NVFP4GPUDependentLaunchPass
    : public nvfp4::impl::NVFP4GPUDependentLaunchBase<
          NVFP4GPUDependentLaunchPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      bool kernels = false;
      for (auto func : module.getOps<gpu::GPUFuncOp>()) {
        if (!func.isKernel() || func.getBody().empty())
          continue;
        kernels = true;
        auto b = OpBuilder::atBlockBegin(&func.getBody().front());
        Location loc = func.getLoc();
        if (!func->hasAttr(kOwnGridWaitAttr))
          emitGridDependencyWait(b, loc);
        if (earlyTrigger)
          emitLaunchDependents(b, loc);
      }
      if (!kernels || module.lookupSymbol(kDependentLaunchMarker))
        continue;
      auto b = OpBuilder::atBlockEnd(module.getBody());
      Type i32 = b.getI32Type();
      LLVM::GlobalOp::create(b, module.getLoc(), i32, /*isConstant=*/true,
                             LLVM::Linkage::External, kDependentLaunchMarker,
                             b.getI32IntegerAttr(1), /*alignment=*/4,
                             /*addrSpace=*/4);
    }
  }
};

} // namespace
