//===- Ring.cpp - nvfp4k lowering: the ring and the shared memory -----------===//
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
// Shared memory
//===----------------------------------------------------------------------===//

struct SharedMemoryLowering : OpConversionPattern<SharedMemoryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SharedMemoryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
    auto module = kernel ? kernel->getParentOfType<gpu::GPUModuleOp>()
                         : gpu::GPUModuleOp();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not in a gpu.func of a gpu.module");
    MLIRContext *ctx = op.getContext();
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto bytesType = [&](int64_t n) {
      return MemRefType::get({n}, IntegerType::get(ctx, 8),
                             MemRefLayoutAttrInterface(), workgroup);
    };
    // An extern `.shared .align 1024` array: the dynamic window.
    std::string symbol = (kernel.getName() + "_smem").str();
    if (!SymbolTable::lookupSymbolIn(module, symbol)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      memref::GlobalOp::create(rewriter, op.getLoc(), symbol,
                               rewriter.getStringAttr("public"), bytesType(0),
                               Attribute(), /*constant=*/false,
                               rewriter.getI64IntegerAttr(1024));
    }
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    int64_t bytes = op.getBuffer().getType().getNumElements();
    int64_t window = sharedMemoryLaunchBytes(bytes);
    Value global = memref::GetGlobalOp::create(b, bytesType(0), symbol);
    Value all = memref::ReinterpretCastOp::create(
        b, bytesType(window), global, /*offset=*/0, ArrayRef<int64_t>{window},
        ArrayRef<int64_t>{1});
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, all);
    Value aligned = arith::AndIOp::create(
        b, arith::AddIOp::create(b, base, cIndex(b, 1023)),
        cIndex(b, ~int64_t(1023)));
    Value pad = arith::SubIOp::create(b, aligned, base);
    rewriter.replaceOpWithNewOp<memref::ViewOp>(op, op.getBuffer().getType(),
                                                all, pad, ValueRange{});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The ring
//===----------------------------------------------------------------------===//

struct RingCreateLowering : OpConversionPattern<RingCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingType ring = op.getRing().getType();
    Type groupType = getTypeConverter()->convertType(ring);
    Value group = nvgpu::MBarrierCreateOp::create(b, groupType);
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    Value first =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, cIndex(b, 0));
    int64_t stages = ring.getStages();
    for (int64_t s = 0; s < stages; ++s)
      nvgpu::MBarrierInitOp::create(b, group, cIndex(b, ring.getProducers()),
                                    cIndex(b, s), first);
    for (int64_t s = 0; s < stages; ++s)
      nvgpu::MBarrierInitOp::create(b, group, cIndex(b, ring.getConsumers()),
                                    cIndex(b, stages + s), first);
    // The asynchronous proxy (TMA complete_tx, tcgen05.commit) must see the
    // initialised barriers.
    scf::IfOp::create(b, first, [&](OpBuilder &nested, Location loc) {
      NVVM::FenceMbarrierInitOp::create(nested, loc);
      NVVM::FenceProxyOp::create(
          nested, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(nested.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      scf::YieldOp::create(nested, loc);
    });
    rewriter.replaceOp(op, group);
    return success();
  }
};

struct RingStageLowering : OpConversionPattern<RingStageOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(
        op,
        ringPosition(b, op.getRing().getType(), adaptor.getPosition()).stage);
    return success();
  }
};

/// wait_full and wait_empty: try_wait.parity on the stage's full barrier
/// with the round's parity, or on its empty barrier with the parity of the
/// round before (a fresh barrier passes a wait on parity 1).
template <typename OpTy, bool Empty>
struct RingWaitLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingType ring = op.getRing().getType();
    RingPosition p = ringPosition(b, ring, adaptor.getPosition());
    Value barrier = p.stage, parity = p.parity;
    if (Empty) {
      barrier = emptyBarrier(b, ring, p.stage);
      parity = arith::XOrIOp::create(b, parity, cInt(b, b.getI1Type(), 1));
    }
    nvgpu::MBarrierTryWaitParityOp::create(b, adaptor.getRing(), parity,
                                           cIndex(b, kWaitTicks), barrier);
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingExpectTxLowering : OpConversionPattern<RingExpectTxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingPosition p =
        ringPosition(b, op.getRing().getType(), adaptor.getPosition());
    nvgpu::MBarrierArriveExpectTxOp::create(
        b, adaptor.getRing(), adaptor.getBytes(), p.stage, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingReleaseLowering : OpConversionPattern<RingReleaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingType ring = op.getRing().getType();
    RingPosition p = ringPosition(b, ring, adaptor.getPosition());
    nvgpu::MBarrierArriveOp::create(
        b, nvgpu::MBarrierTokenType::get(op.getContext()), adaptor.getRing(),
        emptyBarrier(b, ring, p.stage));
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingArriveLowering : OpConversionPattern<RingArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingPosition p =
        ringPosition(b, op.getRing().getType(), adaptor.getPosition());
    nvgpu::MBarrierArriveOp::create(
        b, nvgpu::MBarrierTokenType::get(op.getContext()), adaptor.getRing(),
        p.stage);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::nvfp4k::lowering::populateRingPatterns(const TypeConverter &converter,
    RewritePatternSet &patterns) {
  patterns.add<SharedMemoryLowering, RingCreateLowering, RingStageLowering, RingWaitLowering<RingWaitFullOp, false>, RingWaitLowering<RingWaitEmptyOp, true>, RingExpectTxLowering, RingReleaseLowering, RingArriveLowering>(converter, patterns.getContext());
}
