//===- Loads.cpp - nvfp4k lowering: loads into the ring ---------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::nvfp4k;
using namespace mlir::nvfp4k::lowering;

namespace {

//===----------------------------------------------------------------------===//
// Loads
//===----------------------------------------------------------------------===//

struct TmaLoadLowering : OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingPosition p =
        ringPosition(b, op.getRing().getType(), adaptor.getPosition());
    nvgpu::TmaAsyncLoadOp::create(
        b, adaptor.getDestination(), adaptor.getRing(), adaptor.getMap(),
        adaptor.getCoordinates(), p.stage, Value(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkLoadLowering : OpConversionPattern<BulkLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BulkLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingPosition p =
        ringPosition(b, op.getRing().getType(), adaptor.getPosition());
    Value barrier = nvgpu::MBarrierGetOp::create(b, b.getI64Type(),
                                                 adaptor.getRing(), p.stage);
    auto shared = LLVM::LLVMPointerType::get(op.getContext(), 3);
    auto global = LLVM::LLVMPointerType::get(op.getContext(), 1);
    // The shared::cluster form (PTX 8.0, sm_90): a CTA's own shared address
    // is a valid shared::cluster address; the .shared::cta destination
    // needs PTX 8.6.
    auto cluster = LLVM::LLVMPointerType::get(op.getContext(), 7);
    NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
        b,
        LLVM::AddrSpaceCastOp::create(
            b, cluster, sharedPointer(b, adaptor.getDestination())),
        LLVM::IntToPtrOp::create(b, global, adaptor.getSource()),
        LLVM::IntToPtrOp::create(b, shared, barrier),
        arith::IndexCastOp::create(b, b.getI32Type(), adaptor.getBytes()),
        Value(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::nvfp4k::lowering::populateLoadPatterns(const TypeConverter &converter,
    RewritePatternSet &patterns) {
  patterns.add<TmaLoadLowering, BulkLoadLowering>(converter, patterns.getContext());
}
