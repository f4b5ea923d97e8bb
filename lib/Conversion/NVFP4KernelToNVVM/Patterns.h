//===- Patterns.h - convert-nvfp4k-to-nvvm's pattern families --*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The lowering of the nvfp4k ops, one file per op family (Ring.cpp,
// Scheduler.cpp, Loads.cpp, SM90MMA.cpp, SM100MMA.cpp, Epilogue.cpp), each
// with its populate function; NVFP4KernelToNVVM.cpp holds the pass and adds
// them all. The helpers below are what the families share.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4KERNELTONVVM_PATTERNS_H
#define NVFP4_LIB_CONVERSION_NVFP4KERNELTONVVM_PATTERNS_H

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4k {
namespace lowering {


inline Value cIndex(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}
inline Value cInt(ImplicitLocOpBuilder &b, Type type, int64_t v) {
  return arith::ConstantIntOp::create(b, type, v);
}

/// A pointer into global memory: the i64 address `base` plus `byteOffset`
/// (index).
inline Value globalAddress(ImplicitLocOpBuilder &b, Value base, Value byteOffset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value ptr = LLVM::IntToPtrOp::create(b, ptrType, base);
  Value offset = arith::IndexCastOp::create(b, b.getI64Type(), byteOffset);
  return LLVM::GEPOp::create(b, ptrType, b.getI8Type(), ptr,
                             ValueRange{offset});
}

/// The shared-memory pointer of a workgroup memref with an identity layout.
inline Value sharedPointer(ImplicitLocOpBuilder &b, Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
  Value i64 = arith::IndexCastOp::create(b, b.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), i64);
}

/// Position `i` of a ring: its stage `i mod S` (index) and the parity of its
/// round `i / S` (i1). In i32: the divisor is a constant, so this is a
/// multiply-high (a mask and a shift for a power-of-two S), where 64-bit
/// index arithmetic would be a long sequence.
struct RingPosition {
  Value stage, parity;
};

inline RingPosition ringPosition(ImplicitLocOpBuilder &b, RingType ring,
                          Value position) {
  Value i = arith::IndexCastUIOp::create(b, b.getI32Type(), position);
  Value stages = cInt(b, b.getI32Type(), ring.getStages());
  Value stage = arith::RemUIOp::create(b, i, stages);
  Value round = arith::DivUIOp::create(b, i, stages);
  return {arith::IndexCastUIOp::create(b, b.getIndexType(), stage),
          arith::TruncIOp::create(b, b.getI1Type(), round)};
}

/// The barrier index of a stage's empty barrier (full barriers come first).
inline Value emptyBarrier(ImplicitLocOpBuilder &b, RingType ring, Value stage) {
  return arith::AddIOp::create(b, stage, cIndex(b, ring.getStages()));
}

/// Suspend-time hint of the mbarrier waits (the PTX loop retries after it).
constexpr int64_t kWaitTicks = 10000000;


void populateRingPatterns(const TypeConverter &converter,
                          RewritePatternSet &patterns);
void populateSchedulerPatterns(const TypeConverter &converter,
                               RewritePatternSet &patterns);
void populateLoadPatterns(const TypeConverter &converter,
                          RewritePatternSet &patterns);
void populateSM90MmaPatterns(const TypeConverter &converter,
                             RewritePatternSet &patterns);
void populateSM100MmaPatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns);
void populateEpiloguePatterns(const TypeConverter &converter,
                              RewritePatternSet &patterns);

} // namespace lowering
} // namespace nvfp4k
} // namespace mlir

#endif // NVFP4_LIB_CONVERSION_NVFP4KERNELTONVVM_PATTERNS_H
