//===- NVFP4Ops.cpp - nvfp4 operations -------------------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Verifiers cite the constraint ids of docs/spec.md ([Q3] etc.); the negative
// test for each id is in test/Dialect/NVFP4/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace mlir::nvfp4;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

/// A type like `like` (tensor or memref) with another shape and element type.
static ShapedType cloneShaped(ShapedType like, ArrayRef<int64_t> shape,
                              Type elementType) {
  if (isa<MemRefType>(like))
    return MemRefType::get(shape, elementType);
  return RankedTensorType::get(shape, elementType);
}

/// [C1] static shapes with identity layouts, and [C2] the hybrid form: an op
/// is either wholly on tensors (results, no `outs`) or wholly on memrefs
/// (`outs`, no results). `numTargets` is the number of results/outs.
static LogicalResult verifyHybridForm(Operation *op, ValueRange outs,
                                      unsigned numTargets) {
  bool bufferForm = op->getNumResults() == 0;
  auto checkType = [&](Type type) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped)
      return success();
    if (!shaped.hasStaticShape())
      return op->emitOpError("expected static shapes, got ") << type;
    if (bufferForm != isa<MemRefType>(type))
      return op->emitOpError()
             << (bufferForm ? "expected memref operands on an op with no "
                              "results (bufferized form), got "
                            : "expected tensor operands on an op with "
                              "results, got ")
             << type;
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && !memref.getLayout().isIdentity())
      return op->emitOpError("expected memrefs with the identity layout, got ")
             << type;
    return success();
  };
  for (Type type : op->getOperandTypes())
    if (failed(checkType(type)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(checkType(type)))
      return failure();
  if (bufferForm && outs.size() != numTargets)
    return op->emitOpError("expected ")
           << numTargets << " outs on the bufferized form, got "
           << outs.size();
  if (!bufferForm && !outs.empty())
    return op->emitOpError("expected no outs on an op with results");
  if (!bufferForm && op->getNumResults() != numTargets)
    return op->emitOpError("expected ")
           << numTargets << " results, got " << op->getNumResults();
  return success();
}

/// Checks that `actual` is `expected`, naming the operand/result.
static LogicalResult expectType(Operation *op, StringRef name, Type actual,
                                Type expected) {
  if (actual == expected)
    return success();
  return op->emitOpError("expected ")
         << name << " of type " << expected << ", got " << actual;
}

/// Checks a scale operand/result for a `[batch..., rows, cols]` scale matrix
/// with element type `elementType`. When `requireSwizzled`, the scales must
/// be in the 128x4 layout; otherwise either layout is accepted and the type
/// says which.
static LogicalResult verifyScales(Operation *op, StringRef name, Type actual,
                                  ArrayRef<int64_t> batch, int64_t rows,
                                  int64_t cols, Type elementType,
                                  bool requireSwizzled) {
  auto shaped = cast<ShapedType>(actual);
  bool swizzled = isSwizzledScales(shaped, batch.size());
  if (requireSwizzled && !swizzled)
    return op->emitOpError("expected ")
           << name
           << " in the swizzled 128x4 layout (#nvfp4.swizzled_128x4): "
              "row-major scales go through nvfp4.swizzle_scales, got "
           << actual;
  return expectType(
      op, name, actual,
      getScalesType(shaped, batch, rows, cols, elementType, swizzled));
}

/// Checks an fp32 scalar or vector operand (decode scales, alpha): shape `[]`
/// (when `allowScalar`) or `[length]` (one per group, or per row of a
/// row-scaled operand).
static LogicalResult verifyF32Vector(Operation *op, StringRef name, Value value,
                                     std::optional<int64_t> numGroups,
                                     bool allowScalar) {
  if (!value)
    return success();
  auto type = cast<ShapedType>(value.getType());
  if (allowScalar && type.getRank() == 0)
    return success();
  if (numGroups && type.getRank() == 1 && type.getDimSize(0) == *numGroups)
    return success();
  InFlightDiagnostic diag = op->emitOpError("expected ") << name << " of shape ";
  if (allowScalar)
    diag << "[]";
  if (allowScalar && numGroups)
    diag << " or ";
  if (numGroups)
    diag << "[" << *numGroups << "]";
  return diag << ", got " << value.getType();
}

/// Memory effects of a hybrid op: none on tensors; on memrefs, `outs` are
/// written and every other memref operand is read.
static void
getHybridEffects(Operation *op, OperandRange outs,
                 SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                     &effects) {
  // The bufferized form always has outs, so `outs` is not empty here.
  if (op->getNumResults() != 0 || outs.empty())
    return;
  unsigned outsBegin = outs.getBeginOperandIndex();
  unsigned outsEnd = outsBegin + outs.size();
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    unsigned idx = operand.getOperandNumber();
    if (idx >= outsBegin && idx < outsEnd)
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// [Q11] [D4] A decode scale of `data` ([B?, R, K]): f32, one
/// per tensor (batch entry, `[B?]`) or one per row (`[B?, R]`), of the
/// data's kind (tensor or memref).
static LogicalResult verifyDecodeScale(Operation *op, ShapedType data,
                                       Type actual) {
  ArrayRef<int64_t> shape = data.getShape();
  ArrayRef<int64_t> perTensor = shape.drop_back(2), perRow = shape.drop_back();
  auto decode = cast<ShapedType>(actual);
  if (!decode.getElementType().isF32() ||
      (decode.getShape() != perTensor && decode.getShape() != perRow))
    return op->emitOpError("expected decode_scale of shape ")
           << formatShape(perTensor) << " (per tensor) or "
           << formatShape(perRow) << " (per row) in f32, got " << actual;
  return expectType(op, "decode_scale", actual,
                    cloneShaped(data, decode.getShape(),
                                Float32Type::get(op->getContext())));
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t, 2> QuantizeOp::getEffectiveBlock() {
  if (std::optional<ArrayRef<int64_t>> block = getBlock())
    return SmallVector<int64_t, 2>(*block);
  if (getFormat() == Format::mxfp4)
    return {1, 32};
  return {1, 16};
}

ScaleRule QuantizeOp::getEffectiveScaleRule() {
  if (std::optional<ScaleRule> rule = getScaleRule())
    return *rule;
  return getFormat() == Format::mxfp4 ? ScaleRule::rceil : ScaleRule::max6;
}

ErrorMetric QuantizeOp::getEffectiveErrorMetric() {
  // TransformerEngine's default nvfp4_4over6_err_mode.
  return getErrorMetric().value_or(ErrorMetric::mae);
}

int64_t QuantizeOp::getEffectiveE4M3Max() {
  if (std::optional<uint64_t> max = getE4m3Max())
    return static_cast<int64_t>(*max);
  return 448;
}

bool QuantizeOp::isRowScaled() {
  Value decode = getDecodeScaleTarget();
  return decode && cast<ShapedType>(decode.getType()).getRank() ==
                       cast<ShapedType>(getInput().getType()).getRank() - 1;
}

bool QuantizeOp::hasSwizzledScales() {
  auto input = cast<ShapedType>(getInput().getType());
  return isSwizzledScales(cast<ShapedType>(getScalesTarget().getType()),
                          input.getRank() - 2);
}

void QuantizeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOuts(), effects);
}

LogicalResult QuantizeOp::verify() {
  Format format = getFormat();
  bool isNV = format == Format::nvfp4;
  unsigned numTargets = isNV ? 3 : 2;
  // [Q8] nvfp4 produces (values, scales, decode_scale), mxfp4 (values, scales).
  if (getNumResults() != 0 && getNumResults() != numTargets)
    return emitOpError("expected ")
           << numTargets << " results for " << stringifyFormat(format)
           << " (values, scales" << (isNV ? ", decode_scale" : "")
           << "), got " << getNumResults();
  if (failed(verifyHybridForm(*this, getOuts(), numTargets)))
    return failure();

  // [Q1] [R, K] or [B, R, K] input.
  auto input = cast<ShapedType>(getInput().getType());
  if (input.getRank() != 2 && input.getRank() != 3)
    return emitOpError("expected input of rank 2 ([R, K]) or 3 ([B, R, K]), "
                       "got rank ")
           << input.getRank();
  ArrayRef<int64_t> shape = input.getShape();
  ArrayRef<int64_t> batch = shape.drop_back(2);
  int64_t rows = shape[shape.size() - 2], k = shape.back();

  // [Q2] block shapes per format.
  SmallVector<int64_t, 2> block = getEffectiveBlock();
  bool blockOk = isNV ? (block == SmallVector<int64_t, 2>{1, 16} ||
                         block == SmallVector<int64_t, 2>{16, 16})
                      : block == SmallVector<int64_t, 2>{1, 32};
  if (!blockOk)
    return emitOpError("expected block ")
           << (isNV ? "[1, 16] or [16, 16] for nvfp4" : "[1, 32] for mxfp4")
           << ", got " << formatShape(block);

  // [Q3] K is a whole number of blocks.
  if (k % block[1] != 0)
    return emitOpError("expected the last dimension (")
           << k << ") to be a multiple of the block width " << block[1];

  // [Q4] scale rules per format.
  ScaleRule rule = getEffectiveScaleRule();
  bool ruleOk = isNV ? (rule == ScaleRule::max6 ||
                        rule == ScaleRule::four_over_six)
                     : (rule == ScaleRule::rceil || rule == ScaleRule::floor);
  if (!ruleOk)
    return emitOpError("expected scale_rule ")
           << (isNV ? "max6 or four_over_six for nvfp4"
                    : "rceil or floor for mxfp4")
           << ", got " << stringifyScaleRule(rule);

  // [Q5] an error metric only chooses between four_over_six candidates.
  if (getErrorMetric() && rule != ScaleRule::four_over_six)
    return emitOpError("expected error_metric only with "
                       "scale_rule four_over_six");

  // [Q12] the E4M3 maximum of the global scale: TE's two values.
  if (std::optional<uint64_t> max = getE4m3Max()) {
    if (*max != 448 && *max != 256)
      return emitOpError("expected e4m3_max 448 or 256, got ") << *max;
    // [Q13] only four_over_six has a choice (max6 is 448 by definition).
    if (rule != ScaleRule::four_over_six)
      return emitOpError("expected e4m3_max only with "
                         "scale_rule four_over_six");
  }

  // [Q6] a seed exactly when rounding stochastically.
  bool stochastic = getRounding() == Rounding::stochastic;
  if (stochastic && !getSeed())
    return emitOpError("expected a seed operand with stochastic rounding");
  if (!stochastic && getSeed())
    return emitOpError("expected no seed operand with nearest_even rounding");

  // [Q11] decode scale: fp32, one per tensor (batch entry), or one per row
  // (row-scaled NVFP4: TransformerEngine's row_scaled_nvfp4).
  if (isNV && failed(verifyDecodeScale(*this, input,
                                       getDecodeScaleTarget().getType())))
    return failure();
  bool rowScaled = isNV && isRowScaled();

  // [Q14] row-scaled NVFP4 has 1x16 blocks (a 16x16 tile would span rows
  // of different scales).
  if (rowScaled && block[0] != 1)
    return emitOpError("expected block [1, 16] with per-row decode scales, "
                       "got ")
           << formatShape(block);

  // [Q7] caller-supplied amax: nvfp4 only, shaped like the decode scale
  // (one per tensor, batch entry or row).
  if (Value amax = getAmax()) {
    if (!isNV)
      return emitOpError("expected no amax operand for mxfp4 (it has no "
                         "per-tensor scale)");
    if (failed(expectType(*this, "amax", amax.getType(),
                          cloneShaped(input,
                                      rowScaled ? shape.drop_back()
                                                : shape.drop_back(2),
                                      Float32Type::get(getContext())))))
      return failure();
  }

  // [Q15] a calibrated global scale (S_enc or S_dec, used as given) instead
  // of one derived from the amax.
  if (Value given = getGivenScale()) {
    StringRef name =
        hasGivenEncodeScale() ? "encode_scale operand" : "decode_scale operand";
    // Each of the three sets S_enc: at most one can.
    if (getAmax() || (getEncodeScale() && getDecodeScale()))
      return emitOpError("expected at most one of the amax, encode_scale and "
                         "decode_scale operands");
    if (!isNV)
      return emitOpError("expected no ")
             << name << " for mxfp4 (it has no per-tensor scale)";
    // One scale per tensor (batch entry): a row-scaled quantize reports
    // one decode scale per row, which one given scale cannot be.
    if (rowScaled)
      return emitOpError("expected a per-tensor decode_scale result with a "
                         "given ")
             << name << ", got " << getDecodeScaleTarget().getType();
    if (failed(expectType(*this, name, given.getType(),
                          cloneShaped(input, shape.drop_back(2),
                                      Float32Type::get(getContext())))))
      return failure();
    // four_over_six measures its candidates' errors against the tensor
    // amax (spec 2.5), which a given scale does not provide.
    if (rule != ScaleRule::max6)
      return emitOpError("expected scale_rule max6 with a given ")
             << name << ", got " << stringifyScaleRule(rule);
  }

  // [Q9] values: the input shape in f4E2M1FN.
  if (failed(expectType(
          *this, "values", getValuesTarget().getType(),
          cloneShaped(input, shape, Float4E2M1FNType::get(getContext())))))
    return failure();

  // [Q10] scales: the format's scale type, row-major or swizzled.
  if (failed(verifyScales(*this, "scales", getScalesTarget().getType(), batch,
                          rows, k / block[1],
                          getScaleElementType(getContext(), format),
                          /*requireSwizzled=*/false)))
    return failure();

  return success();
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

void DequantizeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOutMutable().getAsOperandRange(), effects);
}

LogicalResult DequantizeOp::verify() {
  if (failed(verifyHybridForm(*this, getOutMutable().getAsOperandRange(), 1)))
    return failure();
  // [D1] [R, K] or [B, R, K] values.
  auto values = cast<ShapedType>(getValues().getType());
  if (values.getRank() != 2 && values.getRank() != 3)
    return emitOpError("expected values of rank 2 or 3, got rank ")
           << values.getRank();
  ArrayRef<int64_t> shape = values.getShape();
  ArrayRef<int64_t> batch = shape.drop_back(2);
  int64_t rows = shape[shape.size() - 2], k = shape.back();

  // [D2] the scale type fixes the block width.
  Type scaleType = cast<ShapedType>(getScales().getType()).getElementType();
  int64_t bs = getBlockWidth(scaleType);
  if (k % bs != 0)
    return emitOpError("expected the last dimension (")
           << k << ") to be a multiple of the block width " << bs << " of "
           << scaleType << " scales";

  // [D3] scales of either layout, matching the values.
  if (failed(verifyScales(*this, "scales", getScales().getType(), batch, rows,
                          k / bs, scaleType, /*requireSwizzled=*/false)))
    return failure();

  // [D4] a decode scale only for nvfp4, one per tensor (batch entry) or
  // one per row.
  if (Value decode = getDecodeScale()) {
    if (!isa<Float8E4M3FNType>(scaleType))
      return emitOpError("expected no decode_scale with ")
             << scaleType << " (mxfp4) scales";
    if (failed(verifyDecodeScale(*this, values, decode.getType())))
      return failure();
  }

  // [D5] result: the values' shape in a float type.
  auto result = cast<ShapedType>(getTarget().getType());
  Type elt = result.getElementType();
  if (!isa<BFloat16Type, Float16Type, Float32Type>(elt))
    return emitOpError("expected a bf16, f16 or f32 result, got ") << elt;
  return expectType(*this, "result", result, cloneShaped(values, shape, elt));
}

namespace {
/// dequantize(v, unswizzle_scales(sw)) -> dequantize(v, sw): dequantize
/// reads either layout, and the padding unswizzle drops is never read.
struct DequantizeOfUnswizzle : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasBufferSemantics())
      return rewriter.notifyMatchFailure(op, "bufferized form");
    auto unswizzle = op.getScales().getDefiningOp<UnswizzleScalesOp>();
    if (!unswizzle || unswizzle.hasBufferSemantics())
      return rewriter.notifyMatchFailure(op, "scales are not unswizzled");
    rewriter.modifyOpInPlace(
        op, [&] { op.getScalesMutable().assign(unswizzle.getInput()); });
    return success();
  }
};
} // namespace

void DequantizeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<DequantizeOfUnswizzle>(context);
}

//===----------------------------------------------------------------------===//
// SwigluOp
//===----------------------------------------------------------------------===//

void SwigluOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOutMutable().getAsOperandRange(), effects);
}

LogicalResult SwigluOp::verify() {
  if (failed(verifyHybridForm(*this, getOutMutable().getAsOperandRange(), 1)))
    return failure();
  // [W1] [..., 2N]: at least one dimension, the last one even.
  auto input = cast<ShapedType>(getInput().getType());
  if (input.getRank() < 1)
    return emitOpError("expected an input of rank >= 1");
  int64_t width = input.getShape().back();
  if (width % 2 != 0)
    return emitOpError("expected an even last dimension (interleaved gate "
                       "and up columns), got ")
           << width;
  // [W3] finite parameters; a positive limit.
  auto finite = [](APFloat v) { return v.isFinite(); };
  if (!finite(getSigmoidScale()) || !finite(getUpOffset()))
    return emitOpError("expected finite sigmoid_scale and up_offset");
  if (auto limit = getLimit();
      limit && (!finite(*limit) || limit->convertToFloat() <= 0.0f))
    return emitOpError("expected a finite, positive limit");
  // [W2] the result: the input's shape with the last dimension halved.
  auto result = cast<ShapedType>(getTarget().getType());
  Type elt = result.getElementType();
  if (!isa<BFloat16Type, Float16Type, Float32Type>(elt))
    return emitOpError("expected a bf16, f16 or f32 result, got ") << elt;
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = width / 2;
  return expectType(*this, "result", result, cloneShaped(input, shape, elt));
}

//===----------------------------------------------------------------------===//
// MoERouteOp / MoEDispatchOp / MoECombineOp
//===----------------------------------------------------------------------===//

void MoERouteOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOuts(), effects);
}

/// Checks that `value` is a non-empty `[rows, cols]` matrix (rank 2).
static LogicalResult expectMatrix(Operation *op, StringRef name, Value value) {
  auto type = cast<ShapedType>(value.getType());
  if (type.getRank() != 2 || type.getNumElements() == 0)
    return op->emitOpError("expected ")
           << name << " of rank 2 with no zero dimension, got " << type;
  return success();
}

/// Row and pair indices of the MoE routing ops are i32 values: a count of
/// them must fit.
static LogicalResult expectI32Count(Operation *op, StringRef what,
                                    int64_t count) {
  if (count > std::numeric_limits<int32_t>::max())
    return op->emitOpError("expected at most 2^31 - 1 ")
           << what << " (their indices are i32), got " << count;
  return success();
}

LogicalResult MoERouteOp::verify() {
  if (failed(verifyHybridForm(*this, getOuts(), 3)))
    return failure();
  // [R1] ids [T, K] of i32 (ODS: i32).
  if (failed(expectMatrix(*this, "ids", getIds())))
    return failure();
  auto ids = cast<ShapedType>(getIds().getType());
  int64_t pairs = ids.getNumElements();
  if (failed(expectI32Count(*this, "pairs", pairs)))
    return failure();
  // [R2] sorted_pairs [T * K], pair_rows [T, K], group_offsets [E + 1],
  // E >= 1, all i32.
  Type i32 = IntegerType::get(getContext(), 32);
  if (failed(expectType(*this, "sorted_pairs", getSortedPairsTarget().getType(),
                        cloneShaped(ids, {pairs}, i32))) ||
      failed(expectType(*this, "pair_rows", getPairRowsTarget().getType(),
                        cloneShaped(ids, ids.getShape(), i32))))
    return failure();
  auto offsets = cast<ShapedType>(getGroupOffsetsTarget().getType());
  if (offsets.getRank() != 1 || offsets.getDimSize(0) < 2 ||
      !offsets.getElementType().isInteger(32))
    return emitOpError("expected group_offsets of shape [E + 1] with E >= 1 "
                       "experts, i32, got ")
           << offsets;
  return expectI32Count(*this, "group_offsets entries (E + 1)",
                        offsets.getDimSize(0));
}

void MoEDispatchOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOutMutable().getAsOperandRange(), effects);
}

int64_t MoEDispatchOp::getTopK() {
  return cast<ShapedType>(getSortedPairs().getType()).getDimSize(0) /
         cast<ShapedType>(getInput().getType()).getDimSize(0);
}

LogicalResult MoEDispatchOp::verify() {
  if (failed(verifyHybridForm(*this, getOutMutable().getAsOperandRange(), 1)))
    return failure();
  // [R3] input [T, H]; sorted_pairs [T * K], K >= 1.
  if (failed(expectMatrix(*this, "input", getInput())))
    return failure();
  auto input = cast<ShapedType>(getInput().getType());
  auto pairs = cast<ShapedType>(getSortedPairs().getType());
  int64_t tokens = input.getDimSize(0);
  if (pairs.getRank() != 1 || pairs.getDimSize(0) == 0 ||
      pairs.getDimSize(0) % tokens != 0)
    return emitOpError("expected sorted_pairs of shape [T * K], a positive "
                       "multiple of the input's ")
           << tokens << " rows, got " << pairs;
  if (failed(expectI32Count(*this, "pairs", pairs.getDimSize(0))))
    return failure();
  // [R4] result [T * K, H] of the input's element type.
  return expectType(*this, "result", getTarget().getType(),
                    cloneShaped(input,
                                {pairs.getDimSize(0), input.getDimSize(1)},
                                input.getElementType()));
}

void MoECombineOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOutMutable().getAsOperandRange(), effects);
}

LogicalResult MoECombineOp::verify() {
  if (failed(verifyHybridForm(*this, getOutMutable().getAsOperandRange(), 1)))
    return failure();
  // [R5] input [S, H]; pair_rows (i32) and weights [T, K].
  if (failed(expectMatrix(*this, "input", getInput())) ||
      failed(expectMatrix(*this, "pair_rows", getPairRows())))
    return failure();
  auto input = cast<ShapedType>(getInput().getType());
  auto rows = cast<ShapedType>(getPairRows().getType());
  auto weights = cast<ShapedType>(getWeights().getType());
  if (failed(expectI32Count(*this, "input rows", input.getDimSize(0))))
    return failure();
  if (weights.getShape() != rows.getShape())
    return emitOpError("expected weights of pair_rows' shape ")
           << formatShape(rows.getShape()) << ", got " << weights;
  // [R6] result [T, H], bf16/f16/f32.
  auto result = cast<ShapedType>(getTarget().getType());
  Type elt = result.getElementType();
  if (!isa<BFloat16Type, Float16Type, Float32Type>(elt))
    return emitOpError("expected a bf16, f16 or f32 result, got ") << elt;
  return expectType(
      *this, "result", result,
      cloneShaped(input, {rows.getDimSize(0), input.getDimSize(1)}, elt));
}

//===----------------------------------------------------------------------===//
// SwizzleScalesOp / UnswizzleScalesOp
//===----------------------------------------------------------------------===//

void SwizzleScalesOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOutMutable().getAsOperandRange(), effects);
}

void UnswizzleScalesOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOutMutable().getAsOperandRange(), effects);
}

LogicalResult SwizzleScalesOp::verify() {
  if (failed(verifyHybridForm(*this, getOutMutable().getAsOperandRange(), 1)))
    return failure();
  // [S1] a row-major [B?, R, C] scale matrix.
  auto input = cast<ShapedType>(getInput().getType());
  if (input.getRank() != 2 && input.getRank() != 3)
    return emitOpError("expected row-major scales of rank 2 or 3, got rank ")
           << input.getRank();
  if (auto tensor = dyn_cast<RankedTensorType>(input); tensor &&
                                                       tensor.getEncoding())
    return emitOpError("expected row-major scales (no encoding), got ")
           << input;
  // [S2] the result is the tiled layout of the same matrix.
  ArrayRef<int64_t> shape = input.getShape();
  return verifyScales(*this, "result", getTarget().getType(),
                      shape.drop_back(2), shape[shape.size() - 2],
                      shape.back(), input.getElementType(),
                      /*requireSwizzled=*/true);
}

LogicalResult UnswizzleScalesOp::verify() {
  if (failed(verifyHybridForm(*this, getOutMutable().getAsOperandRange(), 1)))
    return failure();
  // [U2] the result is a row-major [B?, R, C] matrix...
  auto result = cast<ShapedType>(getTarget().getType());
  if (result.getRank() != 2 && result.getRank() != 3)
    return emitOpError("expected a row-major result of rank 2 or 3, got rank ")
           << result.getRank();
  if (auto tensor = dyn_cast<RankedTensorType>(result); tensor &&
                                                        tensor.getEncoding())
    return emitOpError("expected a row-major result (no encoding), got ")
           << result;
  // [U1] ...and the input holds exactly its tiles.
  ArrayRef<int64_t> shape = result.getShape();
  return verifyScales(*this, "input", getInput().getType(),
                      shape.drop_back(2), shape[shape.size() - 2],
                      shape.back(), result.getElementType(),
                      /*requireSwizzled=*/true);
}

/// Applies `fn(rowMajorIndex, swizzledIndex)` to every element of a
/// `[batch..., rows, cols]` scale matrix.
static void forEachScale(ArrayRef<int64_t> rowMajorShape,
                         function_ref<void(int64_t, int64_t)> fn) {
  int64_t rows = rowMajorShape[rowMajorShape.size() - 2];
  int64_t cols = rowMajorShape.back();
  int64_t tileBytes = ceilDiv(rows, Swizzled128x4Attr::kTileRows) *
                      Swizzled128x4Attr::rowTileBytes(cols);
  int64_t batch = 1;
  for (int64_t d : rowMajorShape.drop_back(2))
    batch *= d;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        fn((b * rows + r) * cols + c,
           b * tileBytes + Swizzled128x4Attr::offset(r, c, cols));
}

/// The largest non-splat constant the swizzle folders rewrite (elements, one
/// byte each); a larger one is swizzled when the program runs.
constexpr int64_t kMaxFoldedScales = int64_t(1) << 24;

/// A constant of scales `input` rearranged into `resultType`: a splat stays
/// a splat (the swizzle's padding is zero, so only a zero splat, or one
/// without padding, swizzles to a splat); otherwise the bytes moved by
/// `move(fn)`, which calls fn(from, to) per element, unless the result is
/// larger than kMaxFoldedScales.
static Attribute rearrangeScales(
    DenseElementsAttr input, ShapedType resultType, bool splatKeepsSplat,
    function_ref<void(function_ref<void(int64_t, int64_t)>)> move) {
  if (input.isSplat() && splatKeepsSplat)
    return DenseElementsAttr::get(resultType, input.getSplatValue<Attribute>());
  if (resultType.getNumElements() > kMaxFoldedScales)
    return {};
  // f8 scales: one byte per element.
  SmallVector<char> in;
  if (input.isSplat())
    in.assign(cast<ShapedType>(input.getType()).getNumElements(),
              input.getRawData().front());
  else
    in.assign(input.getRawData().begin(), input.getRawData().end());
  SmallVector<char> out(resultType.getNumElements(), 0);
  move([&](int64_t from, int64_t to) { out[to] = in[from]; });
  return DenseElementsAttr::getFromRawBuffer(resultType, out);
}

// The folders use the multi-result form because the result is optional (the
// bufferized form has none).
LogicalResult SwizzleScalesOp::fold(FoldAdaptor adaptor,
                                    SmallVectorImpl<OpFoldResult> &results) {
  // Constant scales: swizzle at compile time (padding is zero).
  auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!input || hasBufferSemantics())
    return failure();
  auto resultType = cast<ShapedType>(getResult().getType());
  auto inputType = cast<ShapedType>(getInput().getType());
  bool noPadding = resultType.getNumElements() == inputType.getNumElements();
  bool zero = input.isSplat() &&
              llvm::all_of(input.getRawData(), [](char c) { return c == 0; });
  Attribute folded = rearrangeScales(
      input, resultType, noPadding || zero, [&](auto fn) {
        forEachScale(inputType.getShape(),
                     [&](int64_t rm, int64_t sw) { fn(rm, sw); });
      });
  if (!folded)
    return failure();
  results.push_back(folded);
  return success();
}

LogicalResult UnswizzleScalesOp::fold(FoldAdaptor adaptor,
                                      SmallVectorImpl<OpFoldResult> &results) {
  if (hasBufferSemantics())
    return failure();
  // unswizzle(swizzle(x)) -> x: the padding swizzle added is dropped again.
  if (auto swizzle = getInput().getDefiningOp<SwizzleScalesOp>();
      swizzle && !swizzle.hasBufferSemantics() &&
      swizzle.getInput().getType() == getResult().getType()) {
    results.push_back(swizzle.getInput());
    return success();
  }
  // Constant scales: unswizzle at compile time (a splat's every element is
  // the splat value).
  auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!input)
    return failure();
  auto resultType = cast<ShapedType>(getResult().getType());
  Attribute folded =
      rearrangeScales(input, resultType, /*splatKeepsSplat=*/true, [&](auto fn) {
        forEachScale(resultType.getShape(),
                     [&](int64_t rm, int64_t sw) { fn(sw, rm); });
      });
  if (!folded)
    return failure();
  results.push_back(folded);
  return success();
}

namespace {
/// swizzle_scales(quantize(x).scales) -> quantize(x) producing swizzled
/// scales directly: quantize's swizzled result is by definition the swizzle
/// of its row-major result, and writing it once saves a pass over the scales.
struct FoldSwizzleIntoQuantize : OpRewritePattern<SwizzleScalesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SwizzleScalesOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasBufferSemantics())
      return rewriter.notifyMatchFailure(op, "bufferized form");
    auto quantize = op.getInput().getDefiningOp<QuantizeOp>();
    if (!quantize || quantize.hasBufferSemantics() ||
        op.getInput() != quantize.getScalesTarget() ||
        !op.getInput().hasOneUse())
      return rewriter.notifyMatchFailure(op, "not the only use of quantize "
                                             "scales");
    rewriter.setInsertionPoint(quantize);
    Operation *fused = rewriter.clone(*quantize);
    fused->getResult(1).setType(op.getResult().getType());
    rewriter.replaceOp(op, fused->getResult(1));
    rewriter.replaceAllUsesWith(quantize.getResult(0), fused->getResult(0));
    if (quantize.getNumResults() > 2)
      rewriter.replaceAllUsesWith(quantize.getResult(2), fused->getResult(2));
    rewriter.eraseOp(quantize);
    return success();
  }
};
} // namespace

void SwizzleScalesOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<FoldSwizzleIntoQuantize>(context);
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

void MatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOutMutable().getAsOperandRange(), effects);
}

/// [M5] [G5] decode scales exist only for nvfp4 (f8E4M3FN scales).
static LogicalResult verifyDecodeScalesAllowed(Operation *op, Type scaleType,
                                               Value aDecode, Value bDecode) {
  if ((aDecode || bDecode) && !isa<Float8E4M3FNType>(scaleType))
    return op->emitOpError("expected no decode scales with ")
           << scaleType << " (mxfp4) scales";
  return success();
}

/// [M10] [G10] a bias of bf16, f16 or f32: [*batch, N].
static LogicalResult verifyBias(Operation *op, Value bias,
                                ArrayRef<int64_t> batch, int64_t n) {
  if (!bias)
    return success();
  auto type = cast<ShapedType>(bias.getType());
  SmallVector<int64_t> shape(batch);
  shape.push_back(n);
  if (type.getShape() != ArrayRef<int64_t>(shape))
    return op->emitOpError("expected bias of shape ")
           << formatShape(shape) << ", got " << type;
  return success();
}

/// [M8] [G7] beta scales the accumulator and means nothing without one.
static LogicalResult verifyBeta(Operation *op, bool hasAcc, float beta) {
  if (!hasAcc && beta != 1.0f)
    return op->emitOpError("expected an acc operand when beta is set");
  return success();
}

/// [M7] [G2] a matmul's result (or `outs`, which the ODS types do not
/// constrain on the bufferized form) is bf16, f16 or f32.
static LogicalResult verifyResultElement(Operation *op, Type element) {
  if (element.isBF16() || element.isF16() || element.isF32())
    return success();
  return op->emitOpError("expected a bf16, f16 or f32 result, got ")
         << element;
}

/// [G3] [G4] [G9] `values` (one per group) share one element type.
static LogicalResult verifyOneElementType(Operation *op, ValueRange values,
                                          StringRef what) {
  Type first = cast<ShapedType>(values.front().getType()).getElementType();
  for (Value v : values)
    if (Type t = cast<ShapedType>(v.getType()).getElementType(); t != first)
      return op->emitOpError("expected one ")
             << what << " for all groups, got " << first << " and " << t;
  return success();
}

/// [M9] [G9] A of FP4 codes comes with its scales; bf16/f16 values
/// (weight-only quantization) come without scales and without a decode
/// scale: they are taken as they are.
static LogicalResult verifyActivationScales(Operation *op, bool weightOnly,
                                            bool hasScales, Value aDecode) {
  if (!weightOnly && !hasScales)
    return op->emitOpError("expected a_scales with FP4 (f4E2M1FN) "
                           "activations");
  if (weightOnly && hasScales)
    return op->emitOpError("expected no a_scales with bf16/f16 activations "
                           "(weight-only quantization)");
  if (weightOnly && aDecode)
    return op->emitOpError("expected no a_decode_scale with bf16/f16 "
                           "activations (weight-only quantization)");
  return success();
}

/// nvfp4.matmul lists its operands, and then their types, as
/// `a, a_scales, b, b_scales`, or `a, b, b_scales` for bf16/f16 activations
/// (no A scales): the parsed list of either, split.
template <typename T>
static ParseResult splitMatmulList(OpAsmParser &parser, SMLoc loc,
                                   StringRef what, ArrayRef<T> list, T &a,
                                   std::optional<T> &aScales, T &b,
                                   T &bScales) {
  if (list.size() != 3 && list.size() != 4)
    return parser.emitError(loc, "expected 4 ")
           << what << " (a, a_scales, b, b_scales) or 3 (a, b, b_scales), got "
           << list.size();
  a = list[0];
  if (list.size() == 4)
    aScales = list[1];
  b = list[list.size() - 2];
  bScales = list.back();
  return success();
}

static ParseResult
parseMatmulOperands(OpAsmParser &parser, OpAsmParser::UnresolvedOperand &a,
                    std::optional<OpAsmParser::UnresolvedOperand> &aScales,
                    OpAsmParser::UnresolvedOperand &b,
                    OpAsmParser::UnresolvedOperand &bScales) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<OpAsmParser::UnresolvedOperand, 4> list;
  if (parser.parseOperandList(list))
    return failure();
  return splitMatmulList<OpAsmParser::UnresolvedOperand>(
      parser, loc, "operands", list, a, aScales, b, bScales);
}

static ParseResult parseMatmulOperandTypes(OpAsmParser &parser, Type &a,
                                           Type &aScales, Type &b,
                                           Type &bScales) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<Type, 4> list;
  if (parser.parseTypeList(list))
    return failure();
  std::optional<Type> scales;
  if (failed(splitMatmulList<Type>(parser, loc, "operand types", list, a,
                                   scales, b, bScales)))
    return failure();
  aScales = scales.value_or(Type());
  return success();
}

/// Prints an operand or type list of nvfp4.matmul (no a_scales: three).
template <typename T>
static void printMatmulList(OpAsmPrinter &p, T a, T aScales, T b, T bScales) {
  p << a << ", ";
  if (aScales)
    p << aScales << ", ";
  p << b << ", " << bScales;
}

static void printMatmulOperands(OpAsmPrinter &p, Operation *, Value a,
                                Value aScales, Value b, Value bScales) {
  printMatmulList(p, a, aScales, b, bScales);
}

static void printMatmulOperandTypes(OpAsmPrinter &p, Operation *, Type a,
                                    Type aScales, Type b, Type bScales) {
  printMatmulList(p, a, aScales, b, bScales);
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyHybridForm(*this, getOutMutable().getAsOperandRange(), 1)))
    return failure();
  // [M1] A [M, K] and B [N, K].
  auto a = cast<ShapedType>(getA().getType());
  auto b = cast<ShapedType>(getB().getType());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError("expected A and B of rank 2 ([M, K] and [N, K]), got ")
           << a << " and " << b;
  int64_t m = a.getDimSize(0), n = b.getDimSize(0), k = a.getDimSize(1);
  // [M2] one K.
  if (b.getDimSize(1) != k)
    return emitOpError("expected A and B to share K, got ")
           << k << " and " << b.getDimSize(1);
  // [M9] FP4 activations have scales; bf16/f16 ones (W4A16) have none.
  if (failed(verifyActivationScales(*this, isWeightOnly(),
                                    static_cast<bool>(getAScales()),
                                    getADecodeScale())))
    return failure();
  // [M3] one scale format, and K a whole number of blocks.
  Type sb = cast<ShapedType>(getBScales().getType()).getElementType();
  Type sa = getAScales()
                ? cast<ShapedType>(getAScales().getType()).getElementType()
                : sb;
  if (sa != sb)
    return emitOpError("expected A and B scales of one format, got ")
           << sa << " and " << sb;
  int64_t bs = getBlockWidth(sb);
  if (k % bs != 0)
    return emitOpError("expected K (")
           << k << ") to be a multiple of the block width " << bs;
  // [M4] swizzled scales shaped like A and B.
  if ((getAScales() &&
       failed(verifyScales(*this, "a_scales", getAScales().getType(), {}, m,
                           k / bs, sa, /*requireSwizzled=*/true))) ||
      failed(verifyScales(*this, "b_scales", getBScales().getType(), {}, n,
                          k / bs, sb, /*requireSwizzled=*/true)))
    return failure();
  // [M5] [M6] fp32 scalars; decode scales may be per row of their operand
  // (row-scaled NVFP4).
  if (failed(verifyDecodeScalesAllowed(*this, sb, getADecodeScale(),
                                       getBDecodeScale())) ||
      failed(verifyF32Vector(*this, "a_decode_scale", getADecodeScale(), m,
                             /*allowScalar=*/true)) ||
      failed(verifyF32Vector(*this, "b_decode_scale", getBDecodeScale(), n,
                             /*allowScalar=*/true)) ||
      failed(verifyF32Vector(*this, "alpha", getAlpha(), std::nullopt,
                             /*allowScalar=*/true)))
    return failure();
  // [M7] result [M, N], bf16/f16/f32.
  auto result = cast<ShapedType>(getTarget().getType());
  if (failed(verifyResultElement(*this, result.getElementType())) ||
      failed(expectType(*this, "result", result,
                        cloneShaped(a, {m, n}, result.getElementType()))))
    return failure();
  // [M8] accumulator of the result type.
  if (Value acc = getAcc())
    if (failed(expectType(*this, "acc", acc.getType(), result)))
      return failure();
  // [M10] one bias per output column.
  if (failed(verifyBias(*this, getBias(), {}, n)))
    return failure();
  return verifyBeta(*this, static_cast<bool>(getAcc()),
                    getBeta().convertToFloat());
}

//===----------------------------------------------------------------------===//
// GroupedMatmulOp
//===----------------------------------------------------------------------===//

void GroupedMatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getHybridEffects(*this, getOuts(), effects);
}

int64_t GroupedMatmulOp::getNumGroups() {
  if (getGrouping() == Grouping::independent)
    return getA().size();
  return cast<ShapedType>(getB().front().getType()).getDimSize(0);
}

LogicalResult GroupedMatmulOp::verify() {
  Grouping grouping = getGrouping();
  bool independent = grouping == Grouping::independent;
  // [G1] operand lists: G of each for independent, one of each otherwise.
  size_t g = getA().size();
  if (g == 0)
    return emitOpError("expected at least one group");
  // [G9] one activation type; FP4 codes with scales, bf16/f16 without.
  if (failed(verifyOneElementType(*this, getA(), "activation element type")))
    return failure();
  bool weightOnly = isWeightOnly();
  if (failed(verifyActivationScales(*this, weightOnly,
                                    !getAScales().empty(), getADecodeScale())))
    return failure();
  size_t aScaleCount = weightOnly ? 0 : g;
  if (getAScales().size() != aScaleCount || getB().size() != g ||
      getBScales().size() != g)
    return emitOpError("expected as many a_scales (none for bf16/f16 "
                       "activations), b and b_scales as a (")
           << g << "), got " << getAScales().size() << ", " << getB().size()
           << " and " << getBScales().size();
  if (!independent && g != 1)
    return emitOpError("expected one a, a_scales, b and b_scales operand in ")
           << stringifyGrouping(grouping) << " mode, got " << g;
  if (failed(verifyHybridForm(*this, getOuts(), g)))
    return failure();
  if (!getAcc().empty() && getAcc().size() != g)
    return emitOpError("expected ")
           << g << " acc operands (one per result), got " << getAcc().size();
  if ((grouping == Grouping::contiguous) != static_cast<bool>(getGroupOffsets()))
    return emitOpError("expected group_offsets exactly in contiguous mode");
  if ((grouping == Grouping::masked) != static_cast<bool>(getMaskedM()))
    return emitOpError("expected masked_m exactly in masked mode");

  // [G3] one scale format across groups.
  SmallVector<Value> scales(getAScales());
  llvm::append_range(scales, getBScales());
  if (failed(verifyOneElementType(*this, scales, "scale format")))
    return failure();
  Type scaleType =
      cast<ShapedType>(getBScales().front().getType()).getElementType();
  int64_t bs = getBlockWidth(scaleType);
  // [G4] one output element type across groups.
  if (failed(verifyOneElementType(*this, getTargets(), "result element type")))
    return failure();
  Type outType =
      cast<ShapedType>(getTargets().front().getType()).getElementType();
  if (failed(verifyResultElement(*this, outType)))
    return failure();

  auto checkK = [&](int64_t k) -> LogicalResult {
    if (k % bs != 0)
      return emitOpError("expected K (")
             << k << ") to be a multiple of the block width " << bs;
    return success();
  };
  int64_t numGroups = 0;
  // [G2] shapes per mode.
  if (independent) {
    numGroups = g;
    for (size_t i = 0; i < g; ++i) {
      auto a = cast<ShapedType>(getA()[i].getType());
      auto b = cast<ShapedType>(getB()[i].getType());
      if (a.getRank() != 2 || b.getRank() != 2)
        return emitOpError("expected A and B of group ")
               << i << " of rank 2, got " << a << " and " << b;
      int64_t m = a.getDimSize(0), n = b.getDimSize(0), k = a.getDimSize(1);
      if (b.getDimSize(1) != k)
        return emitOpError("expected A and B of group ")
               << i << " to share K, got " << k << " and " << b.getDimSize(1);
      std::string idx = std::to_string(i);
      if (failed(checkK(k)) ||
          (!weightOnly &&
           failed(verifyScales(*this, "a_scales #" + idx,
                               getAScales()[i].getType(), {}, m, k / bs,
                               scaleType, /*requireSwizzled=*/true))) ||
          failed(verifyScales(*this, "b_scales #" + idx,
                              getBScales()[i].getType(), {}, n, k / bs,
                              scaleType, /*requireSwizzled=*/true)) ||
          failed(expectType(*this, "result #" + idx, getTargets()[i].getType(),
                            cloneShaped(a, {m, n}, outType))))
        return failure();
    }
  } else {
    auto a = cast<ShapedType>(getA().front().getType());
    auto b = cast<ShapedType>(getB().front().getType());
    bool masked = grouping == Grouping::masked;
    int64_t aRank = masked ? 3 : 2;
    if (a.getRank() != aRank || b.getRank() != 3)
      return emitOpError("expected A of rank ")
             << aRank << " and B of rank 3 ([G, N, K]) in "
             << stringifyGrouping(grouping) << " mode, got " << a << " and "
             << b;
    numGroups = b.getDimSize(0);
    int64_t n = b.getDimSize(1), k = b.getDimSize(2);
    if (a.getShape().back() != k)
      return emitOpError("expected A and B to share K, got ")
             << a.getShape().back() << " and " << k;
    if (masked && a.getDimSize(0) != numGroups)
      return emitOpError("expected A and B to have the same number of "
                         "groups, got ")
             << a.getDimSize(0) << " and " << numGroups;
    SmallVector<int64_t> aBatch(masked ? 1 : 0, numGroups);
    int64_t rows = a.getDimSize(aRank - 2);
    SmallVector<int64_t> resultShape(aBatch);
    resultShape.append({rows, n});
    Type i32 = IntegerType::get(getContext(), 32);
    if (failed(checkK(k)) ||
        (!weightOnly &&
         failed(verifyScales(*this, "a_scales", getAScales().front().getType(),
                             aBatch, rows, k / bs, scaleType,
                             /*requireSwizzled=*/true))) ||
        failed(verifyScales(*this, "b_scales", getBScales().front().getType(),
                            {numGroups}, n, k / bs, scaleType,
                            /*requireSwizzled=*/true)) ||
        failed(expectType(*this, "result", getTargets().front().getType(),
                          cloneShaped(a, resultShape, outType))))
      return failure();
    if (Value offsets = getGroupOffsets())
      if (failed(expectType(*this, "group_offsets", offsets.getType(),
                            cloneShaped(a, {numGroups + 1}, i32))))
        return failure();
    // [G8] without groups, group_offsets is [0] and ends at S: no rows.
    if (grouping == Grouping::contiguous && numGroups == 0 && rows != 0)
      return emitOpError("expected no rows in contiguous mode without groups "
                         "(group_offsets ends at S), got S = ")
             << rows;
    if (Value maskedM = getMaskedM())
      if (failed(expectType(*this, "masked_m", maskedM.getType(),
                            cloneShaped(a, {numGroups}, i32))))
        return failure();
  }

  // [G5] per-group or shared fp32 factors of alpha.
  if (failed(verifyDecodeScalesAllowed(*this, scaleType, getADecodeScale(),
                                       getBDecodeScale())) ||
      failed(verifyF32Vector(*this, "a_decode_scale", getADecodeScale(),
                             numGroups, /*allowScalar=*/true)) ||
      failed(verifyF32Vector(*this, "b_decode_scale", getBDecodeScale(),
                             numGroups, /*allowScalar=*/true)) ||
      failed(verifyF32Vector(*this, "alpha", getAlpha(), numGroups,
                             /*allowScalar=*/false)))
    return failure();
  // [G10] one bias row per group: [G, N] (contiguous, masked).
  if (Value bias = getBias()) {
    if (independent)
      return emitOpError("expected bias only in contiguous or masked mode "
                         "(one [G, N] tensor)");
    if (failed(verifyBias(
            *this, bias, {numGroups},
            cast<ShapedType>(getB().front().getType()).getDimSize(1))))
      return failure();
  }
  // [G6] accumulators of the result types.
  for (auto [i, acc] : llvm::enumerate(getAcc()))
    if (failed(expectType(*this, "acc #" + std::to_string(i), acc.getType(),
                          getTargets()[i].getType())))
      return failure();
  return verifyBeta(*this, !getAcc().empty(), getBeta().convertToFloat());
}

//===----------------------------------------------------------------------===//
// FusedOp
//===----------------------------------------------------------------------===//

QuantizeOp FusedOp::getQuantize() {
  for (Operation &op : getBody().front()) {
    if (isa<MatmulOp, GroupedMatmulOp>(op))
      return QuantizeOp();
    if (auto quantize = dyn_cast<QuantizeOp>(op))
      return quantize;
  }
  return QuantizeOp();
}

QuantizeOp FusedOp::getOutputQuantize() {
  bool afterMatmul = false;
  for (Operation &op : getBody().front()) {
    afterMatmul |= isa<MatmulOp, GroupedMatmulOp>(op);
    if (auto quantize = dyn_cast<QuantizeOp>(op); quantize && afterMatmul)
      return quantize;
  }
  return QuantizeOp();
}

bool FusedOp::isOutputQuantize(QuantizeOp quantize) {
  return quantize.getFormat() == Format::nvfp4 &&
         quantize.getEffectiveBlock()[0] == 1 && !quantize.isRowScaled() &&
         quantize.getGivenScale() &&
         quantize.getRounding() == Rounding::nearest_even &&
         !quantize.getHadamard() &&
         cast<ShapedType>(quantize.getInput().getType()).getRank() == 2;
}

Operation *FusedOp::getMatmul() {
  for (Operation &op : getBody().front())
    if (isa<MatmulOp, GroupedMatmulOp>(op))
      return &op;
  return nullptr;
}

SwigluOp FusedOp::getEpilogue() {
  for (Operation &op : getBody().front())
    if (auto swiglu = dyn_cast<SwigluOp>(op))
      return swiglu;
  return SwigluOp();
}

void FusedOp::inlineBody(RewriterBase &rewriter) {
  rewriter.inlineBlockBefore(&getBody().front(), *this);
  rewriter.eraseOp(*this);
}

/// An allocation or a deallocation of a buffer (memref.alloc / dealloc, by
/// their memory effects: the dialect does not depend on memref).
static bool isAllocation(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         hasSingleEffect<MemoryEffects::Allocate>(op);
}
static bool isDeallocation(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumResults() == 0 &&
         hasSingleEffect<MemoryEffects::Free>(op);
}

void FusedOp::hoistOutputQuantize(RewriterBase &rewriter) {
  QuantizeOp quantize = getOutputQuantize();
  if (!quantize)
    return;
  Operation *fused = getOperation();
  Value input = quantize.getInput();
  rewriter.moveOpBefore(input.getDefiningOp(), fused);
  rewriter.moveOpAfter(quantize, fused);
  for (Operation *user : llvm::to_vector(input.getUsers()))
    if (user->getParentOp() == fused && isDeallocation(user))
      rewriter.moveOpAfter(user, quantize);
}

void FusedOp::hoistQuantize(RewriterBase &rewriter) {
  QuantizeOp quantize = getQuantize();
  if (!quantize)
    return;
  Operation *fused = getOperation();
  for (Value buffer : quantize.getTargets()) {
    rewriter.moveOpBefore(buffer.getDefiningOp(), fused);
    for (Operation *user : llvm::to_vector(buffer.getUsers()))
      if (user->getParentOp() == fused && isDeallocation(user))
        rewriter.moveOpAfter(user, fused);
  }
  rewriter.moveOpBefore(quantize, fused);
}

LogicalResult FusedOp::verify() {
  // [F1] an optional quantize, one matmul, an optional swiglu (at least
  // one of the two), between the allocations and deallocations of their
  // intermediates; bufferized form.
  QuantizeOp quantize, outputQuantize;
  Operation *matmul = nullptr;
  SwigluOp swiglu;
  for (Operation &op : getBody().front()) {
    if (auto q = dyn_cast<QuantizeOp>(op)) {
      if (matmul && !outputQuantize) {
        outputQuantize = q;
        continue;
      }
      if (quantize || matmul)
        return emitOpError("[F1] expected at most one nvfp4.quantize before "
                           "the matmul and one after it");
      quantize = q;
      continue;
    }
    if (isa<MatmulOp, GroupedMatmulOp>(op)) {
      if (matmul)
        return emitOpError("[F1] expected one matmul");
      matmul = &op;
      continue;
    }
    if (auto act = dyn_cast<SwigluOp>(op)) {
      if (swiglu || !matmul || outputQuantize)
        return emitOpError("[F1] expected at most one nvfp4.swiglu, after "
                           "the matmul it reads");
      swiglu = act;
      continue;
    }
    if (isAllocation(&op) || isDeallocation(&op))
      continue;
    return emitOpError("[F1] expected only an nvfp4.quantize, the matmul, "
                       "an nvfp4.swiglu and the allocations and "
                       "deallocations of their intermediates, got ")
           << op.getName();
  }
  if (!matmul || (!quantize && !swiglu && !outputQuantize))
    return emitOpError("[F1] expected a matmul with an nvfp4.quantize "
                       "before it, an nvfp4.swiglu or an nvfp4.quantize "
                       "after it");
  if ((quantize && !quantize.hasBufferSemantics()) ||
      (outputQuantize && !outputQuantize.hasBufferSemantics()) ||
      (swiglu && !swiglu.hasBufferSemantics()) || matmul->getNumResults() != 0)
    return emitOpError("[F1] expected the bufferized form (outs, no "
                       "results)");
  // [F3] an intermediate lives in the region: allocated there, used by its
  // producer, its consumer and its deallocations only.
  auto isIntermediate = [&](Value buffer, Operation *producer,
                            Operation *consumer) {
    Operation *def = buffer.getDefiningOp();
    if (!def || def->getParentOp() != getOperation() || !isAllocation(def))
      return false;
    return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
      return user == producer || user == consumer ||
             (user->getParentOp() == getOperation() && isDeallocation(user));
    });
  };
  auto grouped = dyn_cast<GroupedMatmulOp>(matmul);
  if (quantize) {
    // [F2] the matmul's A operand is the quantize's output.
    Value a, aScales, aDecode;
    if (auto dense = dyn_cast<MatmulOp>(matmul)) {
      a = dense.getA();
      aScales = dense.getAScales();
      aDecode = dense.getADecodeScale();
    } else {
      if (grouped.getGrouping() == Grouping::independent)
        return emitOpError("[F2] expected a contiguous or masked grouped "
                           "matmul (independent groups have one A each)");
      a = grouped.getA().front();
      // A weight-only matmul has no A scales (and cannot match the
      // quantize).
      aScales =
          grouped.getAScales().empty() ? Value() : grouped.getAScales().front();
      aDecode = grouped.getADecodeScale();
    }
    Value values = quantize.getValuesTarget(),
          scales = quantize.getScalesTarget(),
          decode = quantize.getDecodeScaleTarget();
    if (a != values || aScales != scales || aDecode != decode)
      return emitOpError("[F2] expected the matmul's a, a_scales and "
                         "a_decode_scale to be the quantize's values, scales "
                         "and decode scale");
    for (Value buffer : {values, scales, decode})
      if (buffer && !isIntermediate(buffer, quantize, matmul))
        return emitOpError("[F3] expected the quantize's outputs to be "
                           "allocated inside the region and used only by the "
                           "matmul (and deallocated)");
    // [F4] what fuses: NVFP4 1x16 blocks with one decode scale per tensor.
    if (quantize.getFormat() != Format::nvfp4 ||
        quantize.getEffectiveBlock()[0] != 1 || quantize.isRowScaled())
      return emitOpError("[F4] expected an nvfp4 quantize with 1x16 blocks "
                         "and one decode scale per tensor (batch entry)");
  }
  // The matmul's one output (null for independent groups: one per group).
  Value matmulOut;
  if (auto dense = dyn_cast<MatmulOp>(matmul))
    matmulOut = dense.getOut();
  else if (grouped.getGrouping() != Grouping::independent)
    matmulOut = grouped.getOuts().front();
  if (swiglu) {
    // [F5] the swiglu reads the matmul's one output, an intermediate.
    Value out = matmulOut;
    if (!out)
      return emitOpError("[F5] expected a dense, contiguous or masked "
                         "matmul before the swiglu (one output)");
    if (swiglu.getInput() != out)
      return emitOpError("[F5] expected the swiglu to read the matmul's "
                         "output");
    if (!isIntermediate(out, matmul, swiglu) ||
        llvm::count(matmul->getOperands(), out) != 1)
      return emitOpError("[F3] expected the matmul's output to be allocated "
                         "inside the region, written by the matmul (not its "
                         "acc) and read only by the swiglu (and "
                         "deallocated)");
  }
  if (outputQuantize) {
    // [F6] the quantize reads the last result (the swiglu's, else the
    // matmul's one output), an intermediate, with a given scale.
    if (grouped && grouped.getGrouping() != Grouping::contiguous)
      return emitOpError("[F6] expected a dense or contiguous matmul "
                         "before the output quantize");
    Operation *producer = swiglu ? swiglu.getOperation() : matmul;
    Value out = swiglu ? swiglu.getOut() : matmulOut;
    if (outputQuantize.getInput() != out)
      return emitOpError("[F6] expected the output quantize to read the "
                         "result of the ")
             << (swiglu ? "swiglu" : "matmul");
    if (!isIntermediate(out, producer, outputQuantize) ||
        llvm::count(producer->getOperands(), out) != 1)
      return emitOpError("[F3] expected the quantize's input to be "
                         "allocated inside the region, written by its "
                         "producer (not its acc) and read only by the "
                         "quantize (and deallocated)");
    if (!isOutputQuantize(outputQuantize))
      return emitOpError("[F6] expected an output quantize of a 2-D tensor: "
                         "nvfp4, 1x16 blocks, one given encode_scale or "
                         "decode_scale, round to nearest even, no hadamard");
  }
  return success();
}

#define GET_OP_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.cpp.inc"
