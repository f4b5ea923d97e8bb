//===- GemmProblem.cpp - a matmul as the chip-specific kernels see it -----===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUCommon/GemmProblem.h"

#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

bool hasE8M0Scales(Value scales) {
  return isa<Float8E8M0FNUType>(
      cast<ShapedType>(scales.getType()).getElementType());
}

/// How each decode scale is indexed is AlphaOperands' rule (per group in a
/// grouped matmul, per row of its operand in a dense one).
void setEpilogue(GemmShape &shape, bool grouped, Type out, bool hasAcc,
                 float beta, Value aDecode, Value bDecode, Value alpha) {
  AlphaOperands operands{aDecode, bDecode, alpha, grouped};
  shape.outElement = out;
  shape.hasAcc = hasAcc;
  shape.beta = beta;
  shape.aDecode = static_cast<bool>(aDecode);
  shape.aDecodePerGroup = operands.aPerGroup();
  shape.aDecodePerRow = operands.aPerRow();
  shape.bDecode = static_cast<bool>(bDecode);
  shape.bDecodePerGroup = operands.bPerGroup();
  shape.bDecodePerRow = operands.bPerRow();
  shape.alpha = static_cast<bool>(alpha);
}

/// The bias: its element type from the op's own operand, its value the
/// converted one.
void setBias(GemmProblem &p, Value original, Value converted) {
  if (!original)
    return;
  p.shape.biasElement = cast<ShapedType>(original.getType()).getElementType();
  p.bias = converted;
}

} // namespace

FailureOr<GemmProblem> GemmProblem::get(MatmulOp op, MatmulOp::Adaptor operands,
                                        std::string &why) {
  GemmProblem p;
  GemmShape &s = p.shape;
  auto aType = cast<ShapedType>(op.getA().getType());
  auto outType = cast<ShapedType>(op.getOut().getType());
  s.mode = Grouping::independent;
  s.groups = 1;
  s.n = outType.getDimSize(1);
  s.k = aType.getDimSize(1);
  s.rowsPerGroup = {aType.getDimSize(0)};
  s.maxRows = aType.getDimSize(0);
  s.mxfp4 = hasE8M0Scales(op.getBScales());
  if (op.isWeightOnly())
    s.activationElement = aType.getElementType();
  setEpilogue(s, /*grouped=*/false, outType.getElementType(),
              static_cast<bool>(operands.getAcc()),
              op.getBeta().convertToFloat(), operands.getADecodeScale(),
              operands.getBDecodeScale(), operands.getAlpha());
  p.aValues = {operands.getA()};
  if (!s.weightOnly())
    p.aScales = {operands.getAScales()};
  p.weights = {operands.getB()};
  p.weightScales = {operands.getBScales()};
  p.outs = {operands.getOut()};
  if (s.hasAcc)
    p.accs = {operands.getAcc()};
  p.aDecode = operands.getADecodeScale();
  p.bDecode = operands.getBDecodeScale();
  p.alpha = operands.getAlpha();
  setBias(p, op.getBias(), operands.getBias());
  return p;
}

FailureOr<GemmProblem> GemmProblem::get(GroupedMatmulOp op,
                                        GroupedMatmulOp::Adaptor operands,
                                        std::string &why) {
  GemmProblem p;
  GemmShape &s = p.shape;
  s.mode = op.getGrouping();
  auto bType = cast<ShapedType>(op.getB().front().getType());
  auto aType = cast<ShapedType>(op.getA().front().getType());
  if (s.mode == Grouping::independent) {
    s.groups = op.getA().size();
    s.n = bType.getDimSize(0);
    s.k = bType.getDimSize(1);
    for (auto [a, b] : llvm::zip(op.getA(), op.getB())) {
      auto bt = cast<ShapedType>(b.getType());
      if (bt.getDimSize(0) != s.n || bt.getDimSize(1) != s.k) {
        why = "independent groups of different N or K";
        return failure();
      }
      s.rowsPerGroup.push_back(cast<ShapedType>(a.getType()).getDimSize(0));
      s.maxRows += s.rowsPerGroup.back();
    }
  } else {
    s.groups = bType.getDimSize(0);
    s.n = bType.getDimSize(1);
    s.k = bType.getDimSize(2);
    s.maxRows = aType.getDimSize(aType.getRank() - 2);
  }
  s.mxfp4 = hasE8M0Scales(op.getBScales().front());
  if (op.isWeightOnly())
    s.activationElement = aType.getElementType();
  setEpilogue(s, /*grouped=*/true,
              cast<ShapedType>(op.getOuts().front().getType()).getElementType(),
              !operands.getAcc().empty(), op.getBeta().convertToFloat(),
              operands.getADecodeScale(), operands.getBDecodeScale(),
              operands.getAlpha());
  p.aValues.assign(operands.getA().begin(), operands.getA().end());
  p.aScales.assign(operands.getAScales().begin(), operands.getAScales().end());
  p.weights.assign(operands.getB().begin(), operands.getB().end());
  p.weightScales.assign(operands.getBScales().begin(),
                        operands.getBScales().end());
  p.outs.assign(operands.getOuts().begin(), operands.getOuts().end());
  p.accs.assign(operands.getAcc().begin(), operands.getAcc().end());
  p.groupInfo = s.mode == Grouping::contiguous ? operands.getGroupOffsets()
                : s.mode == Grouping::masked   ? operands.getMaskedM()
                                               : Value();
  p.aDecode = operands.getADecodeScale();
  p.bDecode = operands.getBDecodeScale();
  p.alpha = operands.getAlpha();
  setBias(p, op.getBias(), operands.getBias());
  return p;
}

void GemmProblem::appendEpilogueArgs(OpBuilder &b, Location loc,
                                     SmallVectorImpl<Value> &args) const {
  for (Value o : outs)
    args.push_back(deviceAddress(b, loc, o));
  for (Value a : accs)
    args.push_back(deviceAddress(b, loc, a));
  for (Value v : {groupInfo, aDecode, bDecode, alpha, bias, outScales, outScale,
                  outDecode})
    if (v)
      args.push_back(deviceAddress(b, loc, v));
}

int64_t EpilogueArgs::count(const GemmShape &shape) {
  return shape.outputPointers() * (shape.hasAcc ? 2 : 1) +
         (shape.mode != Grouping::independent) + shape.aDecode + shape.bDecode +
         shape.alpha + static_cast<bool>(shape.biasElement) +
         (shape.outputQuantize ? 3 : 0);
}

Value EpilogueArgs::biasRow(OpBuilder &b, Location loc, const GemmShape &shape,
                            Value group) const {
  if (!bias || shape.mode == Grouping::independent)
    return bias;
  // bias + group * N elements.
  int64_t rowBytes = shape.n * shape.biasElement.getIntOrFloatBitWidth() / 8;
  Value offset = arith::IndexCastOp::create(
      b, loc, b.getI64Type(),
      arith::MulIOp::create(b, loc, group,
                            arith::ConstantIndexOp::create(b, loc, rowBytes)));
  return arith::AddIOp::create(b, loc, bias, offset);
}

Value EpilogueArgs::alphaAt(OpBuilder &b, Location loc,
                            const GemmShape &shape, Value group, Value row,
                            Value rows, Value column) const {
  // An index inside [0, bound), or 0.
  auto inside = [&](Value index, Value bound) {
    Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                     bound);
    return arith::SelectOp::create(
        b, loc, in, index, arith::ConstantIndexOp::create(b, loc, 0));
  };
  Value r = shape.aDecodePerRow ? inside(row, rows) : Value();
  Value c = shape.bDecodePerRow
                ? inside(column, arith::ConstantIndexOp::create(b, loc, shape.n))
                : Value();
  return nvfp4k::AlphaOp::create(b, loc, b.getF32Type(), group, aDecode,
                                 bDecode, alpha, r, c, shape.aDecodePerGroup,
                                 shape.bDecodePerGroup, shape.aDecodePerRow,
                                 shape.bDecodePerRow);
}

EpilogueArgs EpilogueArgs::take(const GemmShape &shape,
                                Block::args_iterator &it) {
  EpilogueArgs args;
  for (int64_t i = 0; i < shape.outputPointers(); ++i)
    args.outputs.push_back(*it++);
  if (shape.hasAcc)
    for (int64_t i = 0; i < shape.outputPointers(); ++i)
      args.accs.push_back(*it++);
  if (shape.mode != Grouping::independent)
    args.groupInfo = *it++;
  if (shape.aDecode)
    args.aDecode = *it++;
  if (shape.bDecode)
    args.bDecode = *it++;
  if (shape.alpha)
    args.alpha = *it++;
  if (shape.biasElement)
    args.bias = *it++;
  if (shape.outputQuantize) {
    args.quantScales = *it++;
    args.quantScale = *it++;
    args.quantDecode = *it++;
  }
  return args;
}
