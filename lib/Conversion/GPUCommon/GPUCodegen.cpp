//===- GPUCodegen.cpp - building GPU kernels ------------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::nvfp4;

Value KernelIndexing::c(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value KernelIndexing::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value KernelIndexing::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value KernelIndexing::div(Value x, Value y) {
  return arith::DivUIOp::create(b, loc, x, y);
}
Value KernelIndexing::rem(Value x, Value y) {
  return arith::RemUIOp::create(b, loc, x, y);
}
Value KernelIndexing::min(Value x, Value y) {
  return arith::MinSIOp::create(b, loc, x, y);
}
Value KernelIndexing::max(Value x, Value y) {
  return arith::MaxSIOp::create(b, loc, x, y);
}
Value KernelIndexing::lt(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
}
Value KernelIndexing::le(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, x, y);
}
Value KernelIndexing::eq(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
}

SmallVector<Value> KernelIndexing::delinearize(Value linear,
                                               ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    indices[i] = i == 0 ? linear : rem(linear, c(shape[i]));
    if (i > 0)
      linear = div(linear, c(shape[i]));
  }
  return indices;
}

void KernelIndexing::forLoop(Value lb, Value ub,
                             function_ref<void(Value)> body) {
  scf::ForOp::create(b, loc, lb, ub, c(1), ValueRange{},
                     [&](OpBuilder &, Location, Value iv, ValueRange) {
                       body(iv);
                       scf::YieldOp::create(b, loc);
                     });
}

Value KernelIndexing::loadIndex(Value memref, ValueRange indices) {
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      memref::LoadOp::create(b, loc, memref, indices));
}

gpu::LaunchOp mlir::nvfp4::launchGrid(OpBuilder &b, Location loc,
                                      std::array<int64_t, 3> grid,
                                      std::array<int64_t, 3> block,
                                      function_ref<void(gpu::LaunchOp)> body) {
  if (llvm::is_contained(grid, 0))
    return nullptr;
  KernelIndexing ix(b, loc);
  auto launch =
      gpu::LaunchOp::create(b, loc, ix.c(grid[0]), ix.c(grid[1]), ix.c(grid[2]),
                            ix.c(block[0]), ix.c(block[1]), ix.c(block[2]));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  body(launch);
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

void mlir::nvfp4::launchLinear(OpBuilder &b, Location loc, int64_t total,
                               function_ref<void(Value)> body) {
  int64_t blocks = (total + kThreadsPerBlock - 1) / kThreadsPerBlock;
  launchGrid(b, loc, {blocks, 1, 1}, {kThreadsPerBlock, 1, 1},
             [&](gpu::LaunchOp launch) {
               KernelIndexing ix(b, loc);
               Value linear = ix.add(
                   ix.mul(launch.getBlockIds().x, ix.c(kThreadsPerBlock)),
                   launch.getThreadIds().x);
               scf::IfOp::create(b, loc, ix.lt(linear, ix.c(total)),
                                 [&](OpBuilder &, Location) {
                                   body(linear);
                                   scf::YieldOp::create(b, loc);
                                 });
             });
}

Value mlir::nvfp4::warpReduce(OpBuilder &b, Location loc, Value value,
                              function_ref<Value(Value, Value)> combine) {
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32);
  for (int offset = 16; offset >= 1; offset /= 2) {
    Value off = arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    Value other =
        gpu::ShuffleOp::create(b, loc, value, off, width, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    value = combine(value, other);
  }
  return value;
}

Value mlir::nvfp4::deviceAddress(OpBuilder &b, Location loc, Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

std::string mlir::nvfp4::uniqueSymbolName(Operation *module, StringRef base) {
  for (int i = 0;; ++i) {
    std::string name = (base + "_" + Twine(i)).str();
    if (!SymbolTable::lookupSymbolIn(module, name))
      return name;
  }
}

Value mlir::nvfp4::createByteTensorMap(OpBuilder &b, Location loc, Value codes,
                                       int64_t rows, int64_t rowBytes,
                                       nvgpu::TensorMapDescriptorType map) {
  MLIRContext *ctx = b.getContext();
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  // UINT8, not the signless i8 of the byte storage: nvgpu's data-type table
  // knows only ui8 for bytes (a signless i8 falls through to BFLOAT16 in a
  // release build, test/Canary/nvgpu-tma-fp4-datatype.mlir).
  auto bytes = IntegerType::get(ctx, 8);
  Value flat = memref::ReinterpretCastOp::create(
      b, loc, MemRefType::get({rows * rowBytes}, bytes), codes, /*offset=*/0,
      ArrayRef<int64_t>{rows * rowBytes}, ArrayRef<int64_t>{1});
  auto ui8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  Value view = memref::ViewOp::create(
      b, loc, MemRefType::get({rows, rowBytes}, ui8), flat, c(0), ValueRange{});
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(ui8, Attribute()), view);
  ArrayRef<int64_t> box = map.getTensor().getShape();
  Value desc = nvgpu::TmaCreateDescriptorOp::create(
      b, loc, map, unranked, ValueRange{c(box[0]), c(box[1])});
  // gpu.func arguments cannot be tensor maps: the kernel takes a pointer.
  return UnrealizedConversionCastOp::create(
             b, loc, LLVM::LLVMPointerType::get(ctx), desc)
      .getResult(0);
}
