//===- BufferizedOpPattern.h - frame of every nvfp4 op lowering --*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Every conversion of an nvfp4 op (to loops, to portable GPU kernels, to the
// sm_90a / sm_100a GEMMs) works on the bufferized form, where the results
// are out-params: it emits code that writes them and then erases the op.
// This frame does the check and the erase once for all of them.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_BUFFERIZEDOPPATTERN_H
#define NVFP4_CONVERSION_BUFFERIZEDOPPATTERN_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {

template <typename OpTy>
struct BufferizedOpPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  /// Emits the code that writes `op`'s out-params; the frame erases `op`
  /// when it succeeds.
  virtual LogicalResult lower(OpTy op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const = 0;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!op.hasBufferSemantics())
      return rewriter.notifyMatchFailure(
          op, "expected the bufferized form (run one-shot-bufferize first)");
    if (failed(lower(op, adaptor, rewriter)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// nvfp4.fused where a lowering runs the quantize and the matmul as they
/// are: the body is inlined and each op lowered on its own (lowerings that
/// fuse add a pattern of a higher benefit).
struct InlineFusedPattern : OpConversionPattern<FusedOp> {
  using OpConversionPattern<FusedOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FusedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const final {
    op.inlineBody(rewriter);
    return success();
  }
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_BUFFERIZEDOPPATTERN_H
