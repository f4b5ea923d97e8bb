//===- BufferGPUConstants.cpp - constants GPU kernels read ----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// A bufferized constant is a host global; in a GPU program, whatever a
// kernel reads must be a buffer that convert-nvfp4-to-gpu places in device
// memory. This pass gives such constants a buffer of their own, filled from
// the global, before buffer deallocation decides where to free it.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4BUFFERGPUCONSTANTS
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// Whether every use of `value` only copies it into another buffer (a host
/// to device copy once converted).
bool onlyCopiedFrom(Value value) {
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    return isa<memref::CopyOp>(use.getOwner()) && use.getOperandNumber() == 0;
  });
}

struct NVFP4BufferGPUConstantsPass
    : public nvfp4::impl::NVFP4BufferGPUConstantsBase<
          NVFP4BufferGPUConstantsPass> {
  using Base::Base;
  void runOnOperation() override {
    SymbolTableCollection symbols;
    SmallVector<std::pair<memref::GetGlobalOp, memref::GlobalOp>> reads;
    getOperation().walk([&](memref::GetGlobalOp op) {
      // Kernels' own globals (shared memory) and explicit memory spaces
      // stay as they are.
      if (op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<gpu::GPUModuleOp>() ||
          op.getType().getMemorySpace())
        return;
      auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
          op, op.getNameAttr());
      if (!global || !global.getConstant() || onlyCopiedFrom(op.getResult()))
        return;
      reads.emplace_back(op, global);
    });
    for (auto [op, global] : reads) {
      OpBuilder b(op.getContext());
      b.setInsertionPointAfter(op);
      Location loc = op.getLoc();
      Value buffer = memref::AllocOp::create(b, loc, op.getType(),
                                             global.getAlignmentAttr());
      auto copy = memref::CopyOp::create(b, loc, op.getResult(), buffer);
      op.getResult().replaceAllUsesExcept(buffer, copy);
    }
  }
};

} // namespace
