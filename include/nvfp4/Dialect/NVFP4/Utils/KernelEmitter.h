//===- KernelEmitter.h - arith/LLVM shorthands for kernel builders -*- C++
//-*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The hand-built GPU kernels (sm_90a, sm_100a GEMMs) are long sequences of
// index arithmetic, raw-address loads and structured ifs; these shorthands
// keep them readable. Header-only: every method is one op or a few.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_UTILS_KERNELEMITTER_H
#define NVFP4_DIALECT_NVFP4_UTILS_KERNELEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace nvfp4 {

/// Small arith/LLVM helpers bound to a builder and a location.
struct Emitter {
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  Type i1, i8, i16, i32, i64, f16, f32, idx;
  LLVM::LLVMPointerType globalPtr;

  Emitter(OpBuilder &b, Location loc)
      : b(b), loc(loc), ctx(b.getContext()), i1(b.getI1Type()),
        i8(b.getI8Type()), i16(b.getI16Type()), i32(b.getI32Type()),
        i64(b.getI64Type()), f16(b.getF16Type()), f32(b.getF32Type()),
        idx(b.getIndexType()),
        globalPtr(LLVM::LLVMPointerType::get(b.getContext(), 1)) {}

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value ci(Type t, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, t, v);
  }
  Value cf(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value divu(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value remu(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shru(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value minsi(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxsi(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value select(Value cnd, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cnd, x, y);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value lt(Value x, Value y) { return cmp(arith::CmpIPredicate::slt, x, y); }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value land(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value toI64(Value v) { return arith::IndexCastOp::create(b, loc, i64, v); }
  Value toIndex(Value v) { return arith::IndexCastOp::create(b, loc, idx, v); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }

  /// A global pointer `base + offset` (bytes) from an i64 address.
  Value gep(Value base, Value byteOffset) {
    Value p = LLVM::IntToPtrOp::create(b, loc, globalPtr, base);
    return LLVM::GEPOp::create(b, loc, globalPtr, i8, p,
                               ValueRange{toI64(byteOffset)});
  }
  /// Read-only global load (ld.global.nc).
  Value loadInvariant(Type type, Value ptr, unsigned align) {
    return LLVM::LoadOp::create(b, loc, type, ptr, align, /*volatile=*/false,
                                /*nontemporal=*/false, /*invariant=*/true);
  }
  Value load(Type type, Value ptr, unsigned align) {
    return LLVM::LoadOp::create(b, loc, type, ptr, align);
  }
  /// Loads element `index` (index) of an array of `type` at address `base`.
  Value loadElement(Type type, Value base, Value index) {
    unsigned bytes = type.getIntOrFloatBitWidth() / 8;
    return load(type, gep(base, mul(index, c(bytes))), bytes);
  }

  void ifThen(Value cond, function_ref<void()> then) {
    scf::IfOp::create(b, loc, cond, [&](OpBuilder &, Location) {
      then();
      scf::YieldOp::create(b, loc);
    });
  }
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_UTILS_KERNELEMITTER_H
