//===- GPUConversion.cpp - the frame of the GPU conversions ---------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUCommon/GPUConversion.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Storage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

struct AllocToGPU : OpConversionPattern<memref::AllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return rewriter.notifyMatchFailure(op, "no byte storage for this type");
    rewriter.replaceOpWithNewOp<gpu::AllocOp>(
        op, type, /*asyncToken=*/Type(), /*asyncDependencies=*/ValueRange{},
        adaptor.getDynamicSizes(), adaptor.getSymbolOperands(),
        /*hostShared=*/false);
    return success();
  }
};

struct DeallocToGPU : OpConversionPattern<memref::DeallocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::DeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
        op, /*asyncToken=*/Type(), ValueRange{}, adaptor.getMemref());
    return success();
  }
};

struct CopyToGPU : OpConversionPattern<memref::CopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::MemcpyOp>(
        op, /*asyncToken=*/Type(), ValueRange{}, adaptor.getTarget(),
        adaptor.getSource());
    return success();
  }
};

/// Host memref alloc/dealloc/copy to gpu.alloc/dealloc/memcpy (benefit 2,
/// over the storage patterns).
void populateHostMemoryPatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<AllocToGPU, DeallocToGPU, CopyToGPU>(converter,
                                                    patterns.getContext(),
                                                    /*benefit=*/2);
}

/// nvfp4 illegal, narrow memrefs illegal, host memref allocations illegal
/// outside GPU kernels.
void configureLegality(ConversionTarget &target,
                       const TypeConverter &converter) {
  target.addIllegalDialect<NVFP4Dialect>();
  target.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return converter.isLegal(op); });
  configureStorageLegality(target, converter);
  // Outside kernels, buffers are device memory: gpu.alloc and friends.
  auto inKernel = [](Operation *op) {
    return op->getParentOfType<gpu::LaunchOp>() ||
           op->getParentOfType<gpu::GPUFuncOp>();
  };
  target.addDynamicallyLegalOp<memref::AllocOp, memref::DeallocOp,
                               memref::CopyOp>([&, inKernel](Operation *op) {
    return inKernel(op) && converter.isLegal(op);
  });
}

/// Host code cannot read or write device memory element by element: the
/// entry's arguments and the buffers it allocates are device memory on GPU
/// targets, so a host-side load or store of one (a tensor.extract or
/// tensor.from_elements in the program) would fault at run time. Such
/// programs get a diagnostic instead.
LogicalResult checkNoHostElementAccess(Operation *root) {
  WalkResult result = root->walk([&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemref();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemref();
    else
      return WalkResult::advance();
    if (op->getParentOfType<gpu::LaunchOp>() ||
        op->getParentOfType<gpu::GPUModuleOp>())
      return WalkResult::advance();
    while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
      memref = view.getViewSource();
    if (!isa<BlockArgument>(memref) && !memref.getDefiningOp<memref::AllocOp>())
      return WalkResult::advance();
    op->emitError("element-wise access to a device buffer in host code: on "
                  "GPU targets the entry's arguments and intermediate buffers "
                  "are device memory (compute the value inside an nvfp4 op, "
                  "or run on the CPU target)");
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

} // namespace

LogicalResult mlir::nvfp4::applyGPUConversion(
    Operation *root,
    function_ref<void(const TypeConverter &, RewritePatternSet &)> populate) {
  if (failed(checkNoHostElementAccess(root)))
    return failure();
  MLIRContext *ctx = root->getContext();
  StorageTypeConverter converter;
  RewritePatternSet patterns(ctx);
  populateStorageConversionPatterns(converter, patterns);
  populateHostMemoryPatterns(converter, patterns);
  populate(converter, patterns);
  ConversionTarget target(*ctx);
  configureLegality(target, converter);
  return applyPartialConversion(root, target, std::move(patterns));
}
