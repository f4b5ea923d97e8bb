//===- NVFP4.h - nvfp4 dialect ------------------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The nvfp4 dialect: its ops, attributes, and the type helpers that the
// verifier and the lowerings share (block widths, scale tensor shapes).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4_H
#define NVFP4_DIALECT_NVFP4_IR_NVFP4_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsDialect.h.inc"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Enums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attrs.h.inc"

#include <optional>

namespace mlir {
namespace nvfp4 {
/// The parameters of `nvfp4.swiglu` (docs/spec.md 2.10).
struct SwigluParams {
  float sigmoidScale = 1.0f;
  std::optional<float> limit;
  float upOffset = 0.0f;
};
} // namespace nvfp4
} // namespace mlir

#define GET_OP_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.h.inc"

namespace mlir {
namespace nvfp4 {

/// Elements of the last dimension that share one block scale: 16 for NVFP4
/// (`f8E4M3FN` scales), 32 for MXFP4 (`f8E8M0FNU` scales).
int64_t getBlockWidth(Type scaleElementType);

/// The scale element type of a format.
Type getScaleElementType(MLIRContext *ctx, Format format);

/// True if `scales` holds a scale matrix of `batchRank` leading batch
/// dimensions in the 128x4 tiled layout: a tensor with the
/// `#nvfp4.swizzled_128x4` encoding, or (after bufferization, where encodings
/// are gone) a memref of rank `batchRank + 5`.
bool isSwizzledScales(ShapedType scales, unsigned batchRank);

/// The type of the scales of a `[batch..., rows, cols]` scale matrix, in the
/// swizzled or row-major layout; a tensor or memref type like `like`.
ShapedType getScalesType(ShapedType like, ArrayRef<int64_t> batch,
                         int64_t rows, int64_t cols, Type elementType,
                         bool swizzled);

/// ceil(a / b) for positive b.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4_H
