//===- KernelArith.h - kernel arithmetic shorthands -------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The GEMM kernel builders (sm_90a, sm_100a) and the nvfp4k lowerings that
// walk tiles are long runs of index arithmetic and structured ifs; these
// one-op shorthands, bound to an ImplicitLocOpBuilder, keep them readable.
// Header-only.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUCOMMON_KERNELARITH_H
#define NVFP4_CONVERSION_GPUCOMMON_KERNELARITH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir {
namespace nvfp4 {

class KernelArith {
public:
  explicit KernelArith(ImplicitLocOpBuilder &b) : b(b) {}

  /// Constants: index, i32.
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value c32(int64_t v) {
    return arith::ConstantIntOp::create(b, b.getI32Type(), v);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value divu(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value remu(Value x, Value y) { return arith::RemUIOp::create(b, x, y); }
  Value minsi(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value maxsi(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value clamp(Value v, Value lo, Value hi) { return minsi(maxsi(v, lo), hi); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value lt(Value x, Value y) { return cmp(arith::CmpIPredicate::slt, x, y); }
  Value le(Value x, Value y) { return cmp(arith::CmpIPredicate::sle, x, y); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, cond, x, y);
  }
  Value toI64(Value index) {
    return arith::IndexCastOp::create(b, b.getI64Type(), index);
  }
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, b.getI32Type(), index);
  }
  Value toIndex(Value integer) {
    return arith::IndexCastOp::create(b, b.getIndexType(), integer);
  }
  /// `v` (a non-negative i32-range index every lane of a warp computes
  /// alike, such as a warpgroup index) as lane 0 holds it: a shfl.sync.idx
  /// result, which the compilers take as the same in every lane, so what is
  /// derived from it can live in uniform registers.
  Value warpUniform(Value v) {
    auto shuffle = gpu::ShuffleOp::create(b, toI32(v), c32(0), c32(32),
                                          gpu::ShuffleMode::IDX);
    return toIndex(shuffle.getShuffleResult());
  }
  /// values[g] for a run-time g (a select chain: G is small).
  Value pick(ArrayRef<Value> values, Value g) {
    Value result = values.front();
    for (size_t i = 1; i < values.size(); ++i)
      result = select(eq(g, c(static_cast<int64_t>(i))), values[i], result);
    return result;
  }
  Value pick(ArrayRef<int64_t> values, Value g) {
    SmallVector<Value> constants;
    for (int64_t v : values)
      constants.push_back(c(v));
    return pick(constants, g);
  }
  void ifThen(Value cond, function_ref<void()> then) {
    scf::IfOp::create(b, cond, [&](OpBuilder &, Location) {
      then();
      scf::YieldOp::create(b);
    });
  }
  /// Row-major indices of `linear` in a space of `shape`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> shape) {
    SmallVector<Value> indices(shape.size());
    for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
      indices[i] = i == 0 ? linear : remu(linear, c(shape[i]));
      if (i > 0)
        linear = divu(linear, c(shape[i]));
    }
    return indices;
  }
  /// for (iv = lb; iv < ub; ++iv) body(iv)
  void forLoop(Value lb, Value ub, function_ref<void(Value)> body) {
    scf::ForOp::create(b, lb, ub, c(1), ValueRange{},
                       [&](OpBuilder &, Location, Value iv, ValueRange) {
                         body(iv);
                         scf::YieldOp::create(b);
                       });
  }
  /// An i32 element of a memref, as an index.
  Value loadIndex(Value memref, ValueRange indices) {
    return toIndex(memref::LoadOp::create(b, memref, indices));
  }
  /// A static workgroup memref type.
  Type shared(ArrayRef<int64_t> shape, Type element) {
    return MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                           gpu::AddressSpaceAttr::get(
                               b.getContext(), gpu::AddressSpace::Workgroup));
  }

protected:
  ImplicitLocOpBuilder &b;
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUCOMMON_KERNELARITH_H
