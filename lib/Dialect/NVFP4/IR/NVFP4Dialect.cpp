//===- NVFP4Dialect.cpp - nvfp4 dialect -----------------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nvfp4;

#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsDialect.cpp.inc"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Enums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attrs.cpp.inc"

void NVFP4Dialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.cpp.inc"
      >();
}

Operation *NVFP4Dialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

int64_t mlir::nvfp4::getBlockWidth(Type scaleElementType) {
  return isa<Float8E8M0FNUType>(scaleElementType) ? 32 : 16;
}

Type mlir::nvfp4::getScaleElementType(MLIRContext *ctx, Format format) {
  if (format == Format::mxfp4)
    return Float8E8M0FNUType::get(ctx);
  return Float8E4M3FNType::get(ctx);
}

bool mlir::nvfp4::isSwizzledScales(ShapedType scales, unsigned batchRank) {
  if (auto tensor = dyn_cast<RankedTensorType>(scales))
    return isa_and_nonnull<Swizzled128x4Attr>(tensor.getEncoding());
  return scales.hasRank() && scales.getRank() == batchRank + 5;
}

ShapedType mlir::nvfp4::getScalesType(ShapedType like, ArrayRef<int64_t> batch,
                                      int64_t rows, int64_t cols,
                                      Type elementType, bool swizzled) {
  SmallVector<int64_t> shape(batch);
  if (swizzled) {
    shape.append({ceilDiv(rows, kScaleTileRows), ceilDiv(cols, kScaleTileCols),
                  32, 4, 4});
  } else {
    shape.append({rows, cols});
  }
  if (isa<MemRefType>(like))
    return MemRefType::get(shape, elementType);
  Attribute encoding =
      swizzled ? Swizzled128x4Attr::get(like.getContext()) : Attribute();
  return RankedTensorType::get(shape, elementType, encoding);
}
