//===- BufferizableOpInterfaceImpl.cpp - nvfp4 bufferization ---------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Every nvfp4 op reads its operands and writes fresh results: it bufferizes
// by allocating one buffer per result and re-creating itself in the memref
// form with those buffers as `outs`. Results alias no operand, so One-Shot
// Bufferize never has to copy an operand on their behalf.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/BufferizableOpInterfaceImpl.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::nvfp4;

namespace {

/// The identity-layout buffer type of a static tensor type. Encodings (the
/// scale layout) are dropped: the swizzled layout is already the row-major
/// storage of the tiled shape.
static MemRefType getBufferTypeFor(Type tensorType) {
  auto ranked = cast<RankedTensorType>(tensorType);
  return MemRefType::get(ranked.getShape(), ranked.getElementType());
}

/// Re-creates `op` in the memref form with `operands` (buffers in place of
/// tensors) and `outs`; specialised per op below.
template <typename OpTy>
Operation *createBufferized(RewriterBase &rewriter, OpTy op,
                            ArrayRef<Value> operands, ValueRange outs);

/// Maps the tensor operands of `op` to their buffers, in order.
static FailureOr<SmallVector<Value>>
getOperandBuffers(RewriterBase &rewriter, Operation *op,
                  const BufferizationOptions &options,
                  BufferizationState &state) {
  SmallVector<Value> buffers;
  for (Value operand : op->getOperands()) {
    if (!isa<TensorType>(operand.getType())) {
      buffers.push_back(operand);
      continue;
    }
    FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  return buffers;
}

template <typename OpTy>
struct NVFP4OpInterface
    : public BufferizableOpInterface::ExternalModel<NVFP4OpInterface<OpTy>,
                                                    OpTy> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  bool resultBufferizesToMemoryWrite(Operation *, OpResult,
                                     const AnalysisState &) const {
    return true;
  }

  FailureOr<BufferLikeType>
  getBufferType(Operation *, Value value, const BufferizationOptions &,
                const BufferizationState &, SmallVector<Value> &) const {
    return cast<BufferLikeType>(getBufferTypeFor(value.getType()));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto typedOp = cast<OpTy>(op);
    if (typedOp.hasBufferSemantics())
      return success();
    FailureOr<SmallVector<Value>> operands =
        getOperandBuffers(rewriter, op, options, state);
    if (failed(operands))
      return failure();
    rewriter.setInsertionPoint(op);
    SmallVector<Value> outs;
    for (Value result : op->getResults()) {
      FailureOr<Value> alloc = options.createAlloc(
          rewriter, op->getLoc(), getBufferTypeFor(result.getType()), {});
      if (failed(alloc))
        return failure();
      outs.push_back(*alloc);
    }
    createBufferized(rewriter, typedOp, *operands, outs);
    replaceOpWithBufferizedValues(rewriter, op, outs);
    return success();
  }
};

// The memref form takes the same operands, in the same ODS order, with the
// `outs` segment filled; the operand positions below follow NVFP4Ops.td.

template <>
Operation *createBufferized(RewriterBase &rewriter, QuantizeOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  QuantizeOp::Adaptor adaptor(operands, op);
  return QuantizeOp::create(
      rewriter, op.getLoc(), TypeRange{}, op.getFormatAttr(),
      adaptor.getInput(), adaptor.getAmax(), adaptor.getEncodeScale(),
      adaptor.getDecodeScale(), adaptor.getSeed(), outs, op.getBlockAttr(),
      op.getRoundingAttr(), op.getHadamardAttr(), op.getScaleRuleAttr(),
      op.getErrorMetricAttr(), op.getE4m3MaxAttr());
}

template <>
Operation *createBufferized(RewriterBase &rewriter, DequantizeOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  DequantizeOp::Adaptor adaptor(operands, op);
  return DequantizeOp::create(rewriter, op.getLoc(), TypeRange{},
                              adaptor.getValues(), adaptor.getScales(),
                              adaptor.getDecodeScale(), outs.front());
}

template <>
Operation *createBufferized(RewriterBase &rewriter, SwizzleScalesOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  return SwizzleScalesOp::create(rewriter, op.getLoc(), TypeRange{},
                                 operands.front(), outs.front());
}

template <>
Operation *createBufferized(RewriterBase &rewriter, UnswizzleScalesOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  return UnswizzleScalesOp::create(rewriter, op.getLoc(), TypeRange{},
                                   operands.front(), outs.front());
}

template <>
Operation *createBufferized(RewriterBase &rewriter, SwigluOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  return SwigluOp::create(rewriter, op.getLoc(), TypeRange{}, operands.front(),
                          outs.front(), op.getSigmoidScaleAttr(),
                          op.getLimitAttr(), op.getUpOffsetAttr());
}

template <>
Operation *createBufferized(RewriterBase &rewriter, MoERouteOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  return MoERouteOp::create(rewriter, op.getLoc(), TypeRange{},
                            operands.front(), outs);
}

template <>
Operation *createBufferized(RewriterBase &rewriter, MoEDispatchOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  return MoEDispatchOp::create(rewriter, op.getLoc(), TypeRange{}, operands[0],
                               operands[1], outs.front());
}

template <>
Operation *createBufferized(RewriterBase &rewriter, MoECombineOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  return MoECombineOp::create(rewriter, op.getLoc(), TypeRange{}, operands[0],
                              operands[1], operands[2], outs.front(),
                              op.getProductTypeAttr());
}

template <>
Operation *createBufferized(RewriterBase &rewriter, MatmulOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  MatmulOp::Adaptor adaptor(operands, op);
  return MatmulOp::create(
      rewriter, op.getLoc(), TypeRange{}, adaptor.getA(), adaptor.getAScales(),
      adaptor.getB(), adaptor.getBScales(), adaptor.getADecodeScale(),
      adaptor.getBDecodeScale(), adaptor.getAlpha(), adaptor.getBias(),
      adaptor.getAcc(), outs.front(), op.getBetaAttr());
}

template <>
Operation *createBufferized(RewriterBase &rewriter, GroupedMatmulOp op,
                            ArrayRef<Value> operands, ValueRange outs) {
  GroupedMatmulOp::Adaptor adaptor(operands, op);
  return GroupedMatmulOp::create(
      rewriter, op.getLoc(), TypeRange{}, op.getGroupingAttr(), adaptor.getA(),
      adaptor.getAScales(), adaptor.getB(), adaptor.getBScales(),
      adaptor.getGroupOffsets(), adaptor.getMaskedM(),
      adaptor.getADecodeScale(), adaptor.getBDecodeScale(), adaptor.getAlpha(),
      adaptor.getBias(), adaptor.getAcc(), outs, op.getBetaAttr());
}

} // namespace

void mlir::nvfp4::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NVFP4Dialect *) {
    QuantizeOp::attachInterface<NVFP4OpInterface<QuantizeOp>>(*ctx);
    DequantizeOp::attachInterface<NVFP4OpInterface<DequantizeOp>>(*ctx);
    SwizzleScalesOp::attachInterface<NVFP4OpInterface<SwizzleScalesOp>>(*ctx);
    UnswizzleScalesOp::attachInterface<NVFP4OpInterface<UnswizzleScalesOp>>(
        *ctx);
    SwigluOp::attachInterface<NVFP4OpInterface<SwigluOp>>(*ctx);
    MoERouteOp::attachInterface<NVFP4OpInterface<MoERouteOp>>(*ctx);
    MoEDispatchOp::attachInterface<NVFP4OpInterface<MoEDispatchOp>>(*ctx);
    MoECombineOp::attachInterface<NVFP4OpInterface<MoECombineOp>>(*ctx);
    MatmulOp::attachInterface<NVFP4OpInterface<MatmulOp>>(*ctx);
    GroupedMatmulOp::attachInterface<NVFP4OpInterface<GroupedMatmulOp>>(*ctx);
  });
}
