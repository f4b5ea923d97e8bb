//===- InitAll.cpp - register nvfp4 dialects and passes --------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::nvfp4::registerAllDialects(DialectRegistry &registry) {
  registry.insert<nvfp4::NVFP4Dialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, func::FuncDialect,
                  memref::MemRefDialect, scf::SCFDialect,
                  tensor::TensorDialect>();
}

void mlir::nvfp4::registerAllPasses() {
  mlir::registerTransformsPasses();
  mlir::bufferization::registerBufferizationPasses();
}
