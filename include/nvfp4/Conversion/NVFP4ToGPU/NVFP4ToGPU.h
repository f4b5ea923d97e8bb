//===- NVFP4ToGPU.h - nvfp4 to GPU kernels ----------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
#define NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H

#include "nvfp4/Conversion/BufferizedOpPattern.h"
#include "nvfp4/Conversion/GPUCommon/GemmProblem.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
class ConversionTarget;
class Location;
class OpBuilder;
class Type;
class Value;
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

/// The largest batch entry (rows x K) an NVFP4 quantize that reduces its
/// own amax quantizes in one kernel, by default.
constexpr int64_t kFusedQuantizeMaxElements = 1 << 15;

#define GEN_PASS_DECL_CONVERTNVFP4TOGPU
#define GEN_PASS_DECL_NVFP4BUFFERGPUCONSTANTS
#include "nvfp4/Conversion/Passes.h.inc"

/// What the chip-specific conversions change in the portable kernels.
struct GPUKernelOptions {
  /// E2M1 round-to-nearest-even through the hardware conversion
  /// (cvt.rn.satfinite.e2m1x2.f32, sm_100a and later) instead of the
  /// fp32 emulation (Numerics.h). Stochastic rounding keeps the emulation
  /// unless hardwareStochastic is set.
  bool hardwareE2M1 = false;
  /// Stochastic rounding through cvt.rs.satfinite.e2m1x4.f32 (sm_100a),
  /// given the same Philox bytes the emulation uses. The PTX ISA leaves
  /// how the hardware spends the random bits unspecified at the bit level,
  /// so the codes are not bit-exact with the reference: opt-in only.
  bool hardwareStochastic = false;
  /// NVFP4 quantizes reducing their own amax over at most this many
  /// elements per batch entry run as one kernel (a block per entry).
  int64_t fusedQuantizeMaxElements = kFusedQuantizeMaxElements;
};

/// Patterns lowering bufferized nvfp4 ops to gpu.launch kernels (one thread
/// per block / tile / element, the shared Codegen bodies) and the host's
/// memref alloc/dealloc/copy to gpu.alloc/dealloc/memcpy: every buffer of a
/// GPU program lives in device memory. Matmuls get a plain SIMT kernel here;
/// the chip-specific conversions add faster ones with a higher benefit.
void populateNVFP4ToGPUConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const GPUKernelOptions &options = GPUKernelOptions());

/// A grid-stride kernel reducing the amax of each batch entry of an NVFP4
/// quantize's input (after the Hadamard transform, if any) into
/// `amaxBits` (i32 [batch], the fp32 bits: |x| orders like its bits, so an
/// integer atomic max works), which must be zero before it runs.
void emitTensorAmaxKernel(OpBuilder &b, Location loc, const QuantizeSpec &spec,
                          Value input, Value amaxBits);

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

/// Legality for the patterns above: nvfp4 illegal, narrow memrefs illegal,
/// host memref allocations illegal outside GPU kernels.
void configureNVFP4ToGPULegality(ConversionTarget &target,
                                 const TypeConverter &converter);

/// The body of every GPU conversion pass: the portable patterns (with
/// `options`) plus those `populateChip` adds (a chip's GEMMs, at a higher
/// benefit; none for the portable pass), applied to `root` under the
/// legality above.
LogicalResult applyNVFP4ToGPUConversion(
    Operation *root, const GPUKernelOptions &options,
    function_ref<void(const TypeConverter &, RewritePatternSet &)>
        populateChip = nullptr);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
