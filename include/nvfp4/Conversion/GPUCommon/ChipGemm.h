//===- ChipGemm.h - the frame of the chip GEMM patterns ---------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUCOMMON_CHIPGEMM_H
#define NVFP4_CONVERSION_GPUCOMMON_CHIPGEMM_H

#include "nvfp4/Conversion/BufferizedOpPattern.h"
#include "nvfp4/Conversion/GPUCommon/GemmProblem.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {

/// A kernel writing beta * acc (0 without `acc`) to the rows of a masked
/// grouped matmul's output [groups, maxRows, n] at or past masked_m[g]:
/// the chip-specific kernels compute only the valid rows.
void emitMaskedRowsFill(OpBuilder &b, Location loc, const GemmProblem &p);

/// The frame of the chip-specific GEMM patterns (nvfp4.matmul and
/// nvfp4.grouped_matmul, benefit 2 over the portable ones): buffer form,
/// one kernel shape (GemmProblem), then `lowerGemm` builds the kernel and
/// its launch or declines; masked groups then get their rows past
/// masked_m filled, and the op goes. Zero sizes never reach the kernels:
/// an op without an output element needs no code, and K = 0 (outputs of
/// beta * acc alone) is left to the portable kernel.
template <typename OpTy>
struct ChipGemmPattern : public BufferizedOpPattern<OpTy> {
  ChipGemmPattern(const TypeConverter &converter, MLIRContext *ctx,
                  StringRef kernel)
      : BufferizedOpPattern<OpTy>(converter, ctx, /*benefit=*/2),
        kernel(kernel.str()) {}
  virtual LogicalResult
  lowerGemm(Operation *op, const GemmProblem &problem,
            ConversionPatternRewriter &rewriter) const = 0;
  LogicalResult lower(OpTy op, typename OpTy::Adaptor adaptor,
                      ConversionPatternRewriter &rewriter) const final {
    std::string why;
    FailureOr<GemmProblem> problem = GemmProblem::get(op, adaptor, why);
    if (failed(problem))
      return rewriter.notifyMatchFailure(op, kernel + ": " + why);
    const GemmShape &shape = problem->shape;
    if (shape.n == 0 || shape.empty())
      return success();
    if (shape.k == 0)
      return rewriter.notifyMatchFailure(
          op, kernel + ": K is 0 (the portable kernel writes beta * acc)");
    if (failed(lowerGemm(op, *problem, rewriter)))
      return failure();
    if (problem->shape.mode == Grouping::masked)
      emitMaskedRowsFill(rewriter, op.getLoc(), *problem);
    return success();
  }
  std::string kernel;
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUCOMMON_CHIPGEMM_H
