//===- Passes.h - nvfp4 transformation passes ---------------------*- C++
//-*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewriterBase;
namespace nvfp4 {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"

/// Whether nvfp4-fuse-quantize-matmul would fuse `quantize` into its
/// consumer, and if so, the consumer (an nvfp4.matmul or a contiguous or
/// masked nvfp4.grouped_matmul after it, in the same block or in an
/// nvfp4.fused op there that has no activation quantize yet).
Operation *getFusibleConsumer(QuantizeOp quantize);

/// Wraps `quantize`, its fusible consumer and the allocations and
/// deallocations of the intermediate buffers in an nvfp4.fused op at the
/// consumer's place (or into the consumer's nvfp4.fused op); fails
/// (changing nothing) when they do not fuse.
FailureOr<FusedOp> fuseQuantizeMatmul(RewriterBase &rewriter,
                                      QuantizeOp quantize);

/// Whether nvfp4-fuse-matmul-epilogue would fuse `swiglu` into the matmul
/// producing its input, and if so, what moves: that matmul, or the
/// nvfp4.fused op holding it (with no epilogue yet), in the same block,
/// before it.
Operation *getFusibleProducer(SwigluOp swiglu);

/// Whether nvfp4-fuse-matmul-epilogue would fuse `quantize` (spec F6: an
/// NVFP4 quantize with a given scale) into the matmul, or the matmul and
/// swiglu, producing its input, and if so, what moves: that matmul or the
/// nvfp4.fused op holding it, in the same block, before it.
Operation *getFusibleProducer(QuantizeOp quantize);

/// Wraps `swiglu`, its fusible producer (or into the producer's
/// nvfp4.fused op) with the allocation and deallocations of the
/// intermediate buffer in an nvfp4.fused op at the swiglu's place; fails
/// (changing nothing) when they do not fuse.
FailureOr<FusedOp> fuseMatmulEpilogue(RewriterBase &rewriter, SwigluOp swiglu);

/// The same for the quantize of a matmul's (or its swiglu's) result: the
/// quantize joins its producer's nvfp4.fused op, or a new one.
FailureOr<FusedOp> fuseMatmulOutputQuantize(RewriterBase &rewriter,
                                            QuantizeOp quantize);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H
