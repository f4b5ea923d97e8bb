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
    shape.append({ceilDiv(rows, Swizzled128x4Attr::kTileRows),
                  Swizzled128x4Attr::colTiles(cols), 32, 4, 4});
  } else {
    shape.append({rows, cols});
  }
  if (isa<MemRefType>(like))
    return MemRefType::get(shape, elementType);
  Attribute encoding =
      swizzled ? Swizzled128x4Attr::get(like.getContext()) : Attribute();
  return RankedTensorType::get(shape, elementType, encoding);
}

//===----------------------------------------------------------------------===//
// The 128x4 scale layout
//===----------------------------------------------------------------------===//

namespace {
/// Index arithmetic of the layout's builders.
struct LayoutMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value div(Value v, int64_t d) {
    return arith::DivUIOp::create(b, loc, v, c(d));
  }
  Value rem(Value v, int64_t d) {
    return arith::RemUIOp::create(b, loc, v, c(d));
  }
  Value mul(Value v, int64_t f) {
    return arith::MulIOp::create(b, loc, v, c(f));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
};
} // namespace

Value Swizzled128x4Attr::buildOffsetInUnit(OpBuilder &b, Location loc, Value r,
                                           Value c) {
  LayoutMath m{b, loc};
  return m.add(
      m.add(m.mul(m.rem(r, 32), 16), m.mul(m.div(m.rem(r, kTileRows), 32), 4)),
      m.rem(c, kTileCols));
}

Value Swizzled128x4Attr::buildOffset(OpBuilder &b, Location loc, Value r,
                                     Value c, int64_t cols) {
  LayoutMath m{b, loc};
  Value unit =
      m.add(m.mul(m.div(r, kTileRows), colTiles(cols)), m.div(c, kTileCols));
  return m.add(m.mul(unit, kUnitBytes), buildOffsetInUnit(b, loc, r, c));
}

SmallVector<Value> Swizzled128x4Attr::buildIndices(OpBuilder &b, Location loc,
                                                   Value r, Value c) {
  LayoutMath m{b, loc};
  return {m.div(r, kTileRows), m.div(c, kTileCols), m.rem(r, 32),
          m.div(m.rem(r, kTileRows), 32), m.rem(c, kTileCols)};
}
