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
  // Rows at or past masked_m[g] of the [G, maxM, N] output hold
  // fl(bias + fl(beta * acc)) (each term only when given, or 0); with a
  // fused swiglu, the activation of those values
  // rounded to the intermediate type, in the [G, maxM, N/2] output.
  const GemmShape &shape = p.shape;
  Value out = p.outs.front();
  Value acc = p.accs.empty() ? Value() : p.accs.front();
  ImplicitLocOpBuilder b(loc, builder);
  KernelArith ix(b);
  int64_t width = shape.swiglu ? shape.n / 2 : shape.n;
  SmallVector<int64_t> space = {shape.groups, shape.maxRows, width};
  launchLinear(b, loc, shape.groups * shape.maxRows * width, [&](Value linear) {
    NumericsBuilder nb(b, loc, b.getF32Type());
    SmallVector<Value> id = ix.delinearize(linear, space);
    Value valid = ix.loadIndex(p.groupInfo, {id[0]});
    scf::IfOp::create(b, loc, ix.le(valid, id[1]), [&](OpBuilder &, Location) {
      // fl(bias[g, column] + fl(beta * acc[g, m, column])), each term only
      // when given, or 0.
      auto f32 = [&](Value memref, ValueRange idx) -> Value {
        Value v = memref::LoadOp::create(b, loc, memref, idx);
        if (!v.getType().isF32())
          v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
        return v;
      };
      auto filled = [&](Value column) -> Value {
        return nb.sumGiven(
            {p.bias ? f32(p.bias, {id[0], column}) : Value(),
             acc ? nb.mul(nb.f32(shape.beta), f32(acc, {id[0], id[1], column}))
                 : Value()});
      };
      Value v;
      if (shape.swiglu) {
        // The pair rounded to the intermediate type, then the activation.
        Value gate = ix.mul(id[2], ix.c(2));
        v = nb.swiglu(nb.roundTo(filled(gate), shape.intermediateElement),
                      nb.roundTo(filled(ix.add(gate, ix.c(1))),
                                 shape.intermediateElement),
                      *shape.swiglu);
      } else {
        v = filled(id[2]);
      }
      if (!shape.outElement.isF32())
        v = arith::TruncFOp::create(b, loc, shape.outElement, v);
      memref::StoreOp::create(b, loc, v, out, id);
      scf::YieldOp::create(b, loc);
    });
  });
}
