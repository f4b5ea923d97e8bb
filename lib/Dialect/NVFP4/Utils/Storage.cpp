//===- Storage.cpp - byte storage of the narrow nvfp4 types ----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Utils/Storage.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::nvfp4;

StorageTypeConverter::StorageTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](MemRefType type) -> std::optional<Type> {
    Type element = type.getElementType();
    auto i8 = IntegerType::get(type.getContext(), 8);
    if (isa<Float8E4M3FNType, Float8E8M0FNUType>(element))
      return MemRefType::get(type.getShape(), i8, type.getLayout(),
                             type.getMemorySpace());
    if (!isa<Float4E2M1FNType>(element))
      return type;
    // Packing halves the last dimension; only identity layouts keep the
    // byte offsets of every other dimension meaningful. A null type (not
    // std::nullopt, which would fall through to the identity conversion)
    // makes the conversion fail.
    if (type.getRank() == 0 || !type.getLayout().isIdentity() ||
        ShapedType::isDynamic(type.getShape().back()) ||
        type.getShape().back() % 2 != 0)
      return Type();
    SmallVector<int64_t> shape(type.getShape());
    shape.back() /= 2;
    return MemRefType::get(shape, i8, MemRefLayoutAttrInterface(),
                           type.getMemorySpace());
  });
  auto materialize = [](OpBuilder &builder, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

namespace {
template <typename AllocLikeOp>
struct ConvertAllocLike : OpConversionPattern<AllocLikeOp> {
  using OpConversionPattern<AllocLikeOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllocLikeOp op, typename AllocLikeOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<MemRefType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (!type)
      return rewriter.notifyMatchFailure(op, "no byte storage for this type");
    rewriter.replaceOpWithNewOp<AllocLikeOp>(op, type, adaptor.getDynamicSizes(),
                                             adaptor.getSymbolOperands(),
                                             op.getAlignmentAttr());
    return success();
  }
};

struct ConvertDealloc : OpConversionPattern<memref::DeallocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::DeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::DeallocOp>(op, adaptor.getMemref());
    return success();
  }
};

/// Buffer deallocation asks for the aligned pointer of buffers it may free.
struct ConvertExtractAlignedPointer
    : OpConversionPattern<memref::ExtractAlignedPointerAsIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::ExtractAlignedPointerAsIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::ExtractAlignedPointerAsIndexOp>(
        op, adaptor.getSource());
    return success();
  }
};

/// The bytes a constant of a narrow type is stored as (docs/spec.md section
/// 1): one byte per f8E4M3FN / f8E8M0FNU value (its bit pattern), two
/// f4E2M1FN codes per byte (the even element in the low nibble), shaped as
/// `storage`, the converted memref type. Other element types are kept.
FailureOr<ElementsAttr> toStorageBytes(ElementsAttr value, MemRefType storage) {
  Type element = value.getElementType();
  if (!isa<Float4E2M1FNType, Float8E4M3FNType, Float8E8M0FNUType>(element))
    return value;
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return failure();
  auto bytesType =
      RankedTensorType::get(storage.getShape(), storage.getElementType());
  auto bitsOf = [](const APFloat &v) {
    return static_cast<uint8_t>(v.bitcastToAPInt().getZExtValue());
  };
  bool packed = isa<Float4E2M1FNType>(element);
  if (dense.isSplat()) {
    uint8_t bits = bitsOf(dense.getSplatValue<APFloat>());
    if (packed)
      bits |= bits << 4;
    return cast<ElementsAttr>(
        DenseElementsAttr::get(bytesType, APInt(8, bits)));
  }
  SmallVector<uint8_t> bytes;
  bytes.reserve(bytesType.getNumElements());
  auto values = dense.getValues<APFloat>();
  for (auto it = values.begin(), end = values.end(); it != end; ++it) {
    uint8_t bits = bitsOf(*it);
    if (packed)
      bits |= bitsOf(*++it) << 4;
    bytes.push_back(bits);
  }
  return cast<ElementsAttr>(
      DenseElementsAttr::get(bytesType, ArrayRef<uint8_t>(bytes)));
}

/// memref.global of a narrow type: its type and its initial value become
/// the byte storage.
struct ConvertGlobal : OpConversionPattern<memref::GlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::GlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return rewriter.notifyMatchFailure(op, "no byte storage for this type");
    Attribute initial = op.getInitialValueAttr();
    if (auto value = dyn_cast_or_null<ElementsAttr>(initial)) {
      FailureOr<ElementsAttr> bytes = toStorageBytes(value, type);
      if (failed(bytes))
        return rewriter.notifyMatchFailure(
            op, "initial value is not a dense elements attribute");
      initial = *bytes;
    }
    rewriter.modifyOpInPlace(op, [&] {
      op.setTypeAttr(TypeAttr::get(type));
      if (initial)
        op.setInitialValueAttr(initial);
    });
    return success();
  }
};

struct ConvertGetGlobal : OpConversionPattern<memref::GetGlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::GetGlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return rewriter.notifyMatchFailure(op, "no byte storage for this type");
    rewriter.replaceOpWithNewOp<memref::GetGlobalOp>(op, type, op.getName());
    return success();
  }
};

struct ConvertCopy : OpConversionPattern<memref::CopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::CopyOp>(op, adaptor.getSource(),
                                                adaptor.getTarget());
    return success();
  }
};
} // namespace

void mlir::nvfp4::populateStorageConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  patterns.add<ConvertAllocLike<memref::AllocOp>,
               ConvertAllocLike<memref::AllocaOp>, ConvertDealloc, ConvertCopy,
               ConvertExtractAlignedPointer, ConvertGlobal, ConvertGetGlobal>(
      converter, patterns.getContext());
}

void mlir::nvfp4::configureStorageLegality(ConversionTarget &target,
                                           const TypeConverter &converter) {
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
    return converter.isSignatureLegal(op.getFunctionType()) &&
           converter.isLegal(&op.getBody());
  });
  target.addDynamicallyLegalOp<
      func::CallOp, func::ReturnOp, memref::AllocOp, memref::AllocaOp,
      memref::DeallocOp, memref::CopyOp, memref::ExtractAlignedPointerAsIndexOp,
      memref::GetGlobalOp>(
      [&](Operation *op) { return converter.isLegal(op); });
  // A global's type is an attribute, not a result.
  target.addDynamicallyLegalOp<memref::GlobalOp>(
      [&](memref::GlobalOp op) { return converter.isLegal(op.getType()); });
}
