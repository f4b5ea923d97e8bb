//===- GemmProblem.h - a matmul as the chip kernels see it ------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// nvfp4.matmul and nvfp4.grouped_matmul (buffer form) described once for the
// chip-specific GEMM lowerings: the static shape (a dense matmul is one
// independent group) and epilogue, which the kernels specialise on, and the
// converted operands, which the launches pass.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUCOMMON_GEMMPROBLEM_H
#define NVFP4_CONVERSION_GPUCOMMON_GEMMPROBLEM_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace nvfp4 {

/// What is static about a (grouped) matmul.
struct GemmShape {
  Grouping mode = Grouping::independent;
  int64_t groups = 1;
  int64_t n = 0, k = 0;
  /// Token rows per group (independent mode).
  SmallVector<int64_t> rowsPerGroup;
  /// All token rows (contiguous), rows per slot (masked), the sum of
  /// rowsPerGroup (independent).
  int64_t maxRows = 0;
  bool mxfp4 = false;
  /// The element type of bf16/f16 activations without scales (W4A16;
  /// aValues are those); null for FP4 activations.
  Type activationElement;
  bool weightOnly() const { return static_cast<bool>(activationElement); }
  Type outElement;
  /// An nvfp4.swiglu fused into the epilogue (nvfp4.fused): each output is
  /// rounded to `intermediateElement` (the matmul's own output type), and
  /// column pair (2n, 2n + 1) gives output n, of `outElement`; the output
  /// is [rows, n / 2], an accumulator [rows, n].
  std::optional<SwigluParams> swiglu;
  Type intermediateElement;
  /// The bias's element type (bf16, f16, f32; [N] or [G, N]), null without.
  Type biasElement;
  /// An NVFP4 quantize of the result fused into the epilogue (nvfp4.fused,
  /// spec F6): each result is rounded to `element` (the quantize's input
  /// type) and quantized in 1x16 blocks along its row with the given
  /// encode (`encode`) or decode scale; the kernel writes the codes
  /// [rows, columns/2] bytes (the output), the scales (swizzled or
  /// row-major) and the decode scale.
  struct OutputQuantize {
    Type element;
    bool encode = true;
    bool swizzled = true;
  };
  std::optional<OutputQuantize> outputQuantize;
  /// Columns of the result: n, or n / 2 after a swiglu.
  int64_t resultColumns() const { return swiglu ? n / 2 : n; }
  bool hasAcc = false;
  float beta = 1.0f;
  /// Which alpha factors exist, and whether each is per group, or per row
  /// of its operand (row-scaled NVFP4: A per output row, B per output
  /// column; dense matmuls only).
  bool aDecode = false, aDecodePerGroup = false, aDecodePerRow = false;
  bool bDecode = false, bDecodePerGroup = false, bDecodePerRow = false;
  bool alpha = false;
  /// alpha_eff differs between the outputs of a group (row-scaled).
  bool alphaPerOutput() const { return aDecodePerRow || bDecodePerRow; }

  /// Contiguous/masked weights are one [G, N, K] tensor (a group stride);
  /// independent ones one tensor per group.
  bool stackedWeights() const { return mode != Grouping::independent; }
  int64_t operandPointers() const { return stackedWeights() ? 1 : groups; }
  int64_t outputPointers() const {
    return mode == Grouping::independent ? groups : 1;
  }
  /// Token rows of a typical group (what tile sizes are chosen for).
  int64_t typicalRows() const {
    return mode == Grouping::masked ? maxRows
                                    : maxRows / std::max<int64_t>(groups, 1);
  }
  /// No token row at all: nothing to compute.
  bool empty() const {
    return mode == Grouping::masked ? groups * maxRows == 0 : maxRows == 0;
  }
};

/// A matmul in buffer form: its shape and its converted operands.
struct GemmProblem {
  GemmShape shape;
  SmallVector<Value> aValues, aScales, weights, weightScales, outs, accs;
  /// group_offsets (contiguous), masked_m (masked), or null.
  Value groupInfo;
  Value aDecode, bDecode, alpha, bias;
  /// The output quantize's scales, its given scale and its decode scale
  /// (outs[0] holds its codes).
  Value outScales, outScale, outDecode;

  /// From an op and its converted operands. Fails (with the reason) for
  /// independent groups of different N or K: one kernel has one shape.
  static FailureOr<GemmProblem> get(MatmulOp op, MatmulOp::Adaptor operands,
                                    std::string &why);
  static FailureOr<GemmProblem>
  get(GroupedMatmulOp op, GroupedMatmulOp::Adaptor operands, std::string &why);

  /// Appends the device addresses of the kernel arguments that follow the
  /// operands in every GEMM kernel: the outputs, the accumulators, the
  /// group table, a_decode, b_decode, alpha, bias, and the output
  /// quantize's scales, given scale and decode scale (those that exist).
  void appendEpilogueArgs(OpBuilder &b, Location loc,
                          SmallVectorImpl<Value> &args) const;
};

/// In a kernel: the arguments appendEpilogueArgs passed, in that order.
struct EpilogueArgs {
  SmallVector<Value> outputs, accs;
  Value groupInfo, aDecode, bDecode, alpha, bias;
  Value quantScales, quantScale, quantDecode;

  /// The i64 address of group `group`'s bias row (the bias itself for a
  /// dense matmul), or null without a bias.
  Value biasRow(OpBuilder &b, Location loc, const GemmShape &shape,
                Value group) const;

  /// How many there are for `shape` (all i64 addresses).
  static int64_t count(const GemmShape &shape);
  /// Takes them from `it` (advanced past them).
  static EpilogueArgs take(const GemmShape &shape, Block::args_iterator &it);

  /// alpha_eff (an nvfp4k.alpha) of group `group`; with row-scaled operands
  /// that of output [row, column] (`row` counts from the group's first
  /// output row), where outputs past `rows` or shape.n read the decode
  /// scale of row or column 0 (they are not stored). `row`, `rows` and
  /// `column` may be null when no operand is row-scaled.
  Value alphaAt(OpBuilder &b, Location loc, const GemmShape &shape,
                Value group, Value row, Value rows, Value column) const;
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUCOMMON_GEMMPROBLEM_H
