//===- nvfp4-opt.cpp - the nvfp4 optimizer driver --------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt for nvfp4 programs: parses, verifies, runs passes and named
// pipelines (`--help` lists them), prints the result.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "nvfp4/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::nvfp4::registerAllDialects(registry);
  mlir::nvfp4::registerAllPasses();
  mlir::nvfp4::test::registerTestPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "nvfp4 optimizer driver\n", registry));
}
