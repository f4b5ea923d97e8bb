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
/// masked nvfp4.grouped_matmul in the same block, after it).
Operation *getFusibleConsumer(QuantizeOp quantize);

/// Wraps `quantize`, its fusible consumer and the allocations and
/// deallocations of the intermediate buffers in an nvfp4.fused op at the
/// consumer's place; fails (changing nothing) when they do not fuse.
FailureOr<FusedOp> fuseQuantizeMatmul(RewriterBase &rewriter,
                                      QuantizeOp quantize);

/// Whether nvfp4-fuse-matmul-epilogue would fuse `swiglu` into the matmul
/// producing its input, and if so, what moves: that matmul, or the
/// nvfp4.fused op holding it (with its quantize, and no epilogue yet), in
/// the same block, before it.
Operation *getFusibleProducer(SwigluOp swiglu);

/// Wraps `swiglu`, its fusible producer (or into the producer's
/// nvfp4.fused op) with the allocation and deallocations of the
/// intermediate buffer in an nvfp4.fused op at the swiglu's place; fails
/// (changing nothing) when they do not fuse.
FailureOr<FusedOp> fuseMatmulEpilogue(RewriterBase &rewriter, SwigluOp swiglu);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H
