//===- GPUCodegen.cpp - building GPU kernels ------------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::nvfp4;

gpu::LaunchOp mlir::nvfp4::launchGrid(OpBuilder &b, Location loc,
                                      std::array<int64_t, 3> grid,
                                      std::array<int64_t, 3> block,
                                      function_ref<void(gpu::LaunchOp)> body) {
  if (llvm::is_contained(grid, 0))
    return nullptr;
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  auto launch =
      gpu::LaunchOp::create(b, loc, c(grid[0]), c(grid[1]), c(grid[2]),
                            c(block[0]), c(block[1]), c(block[2]));
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
               auto c = [&](int64_t v) {
                 return arith::ConstantIndexOp::create(b, loc, v);
               };
               Value linear = arith::AddIOp::create(
                   b, loc,
                   arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                                         c(kThreadsPerBlock)),
                   launch.getThreadIds().x);
               Value inside = arith::CmpIOp::create(
                   b, loc, arith::CmpIPredicate::slt, linear, c(total));
               scf::IfOp::create(b, loc, inside, [&](OpBuilder &, Location) {
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

Value mlir::nvfp4::allocDevice(OpBuilder &b, Location loc, MemRefType type) {
  return gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(), ValueRange{},
                              ValueRange{}, ValueRange{},
                              /*hostShared=*/false)
      .getMemref();
}

Value mlir::nvfp4::deviceAddress(OpBuilder &b, Location loc, Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value mlir::nvfp4::emitKeptZero(OpBuilder &b, Location loc, Value buffer) {
  auto memref = cast<MemRefType>(buffer.getType());
  int64_t bytes = memref.getNumElements() * memref.getElementTypeBitWidth() / 8;
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  Value address = deviceAddress(b, loc, buffer);
  auto type = b.getFunctionType({b.getI64Type(), b.getI64Type()}, {});
  if (!module.lookupSymbol<func::FuncOp>(kKeptZeroFunction)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    func::FuncOp::create(b, loc, kKeptZeroFunction, type).setPrivate();
  }
  func::CallOp::create(b, loc, kKeptZeroFunction, TypeRange{},
                       ValueRange{address, arith::ConstantIntOp::create(
                                               b, loc, b.getI64Type(), bytes)});
  return address;
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
