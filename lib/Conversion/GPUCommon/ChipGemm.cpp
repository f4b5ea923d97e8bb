//===- ChipGemm.cpp - the frame of the chip GEMM patterns -----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/GPUCommon/ChipGemm.h"

#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"
#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::nvfp4;

void mlir::nvfp4::emitMaskedRowsFill(OpBuilder &builder, Location loc,
                                     const GemmProblem &p) {
  // Rows at or past masked_m[g] of the [G, maxM, N] output hold beta * acc
  // (0 without acc).
  const GemmShape &shape = p.shape;
  Value out = p.outs.front();
  Value acc = p.accs.empty() ? Value() : p.accs.front();
  ImplicitLocOpBuilder b(loc, builder);
  KernelArith ix(b);
  SmallVector<int64_t> space = {shape.groups, shape.maxRows, shape.n};
  launchLinear(
      b, loc, shape.groups * shape.maxRows * shape.n, [&](Value linear) {
        NumericsBuilder nb(b, loc, b.getF32Type());
        SmallVector<Value> id = ix.delinearize(linear, space);
        Value valid = ix.loadIndex(p.groupInfo, {id[0]});
        scf::IfOp::create(
            b, loc, ix.le(valid, id[1]), [&](OpBuilder &, Location) {
              Value v = nb.f32(0.0);
              if (acc) {
                Value c = memref::LoadOp::create(b, loc, acc, id);
                if (!c.getType().isF32())
                  c = arith::ExtFOp::create(b, loc, b.getF32Type(), c);
                v = nb.mul(nb.f32(shape.beta), c);
              }
              if (!shape.outElement.isF32())
                v = arith::TruncFOp::create(b, loc, shape.outElement, v);
              memref::StoreOp::create(b, loc, v, out, id);
              scf::YieldOp::create(b, loc);
            });
      });
}
