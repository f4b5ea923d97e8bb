//===- MoE.cpp - nvfp4 MoE routing ops to GPU kernels ---------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// nvfp4.moe_route as a counting sort in four small kernels (no atomics: the
// rows are the same on every run), nvfp4.moe_dispatch and moe_combine as
// one thread per vector of a row. The per-pair work is Codegen.h's, shared
// with the CPU loops (NVFP4ToSCF), so both give the same bits.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/BufferizedOpPattern.h"
#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"
#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// Pairs per chunk of moe_route's counting sort: a thread counts one
/// chunk's pairs of one expert, places a pair after a scan of its chunk,
/// and scans one expert's counts over all chunks, so the chunk is about the
/// square root of the pairs (a power of two in [32, 256]): 32 for 512
/// pairs (64 tokens x top-8), 128 for 16384.
int64_t routeChunk(int64_t pairs) {
  int64_t chunk = 32;
  while (chunk < 256 && chunk * chunk < pairs)
    chunk *= 2;
  return chunk;
}

/// The widest vector (at most 16 bytes, at most 8 elements) that divides a
/// row of `width` elements of `element`.
int64_t rowVectorWidth(int64_t width, Type element) {
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  for (int64_t v = 8; v > 1; v /= 2)
    if (width % v == 0 && v * bytes <= 16)
      return v;
  return 1;
}

/// One thread per `v`-element vector of a [rows, width] matrix:
/// `body(row, column)` with the vector's first column.
void launchRowVectors(ImplicitLocOpBuilder &b, int64_t rows, int64_t width,
                      int64_t v, function_ref<void(Value, Value)> body) {
  KernelArith ix(b);
  launchLinear(b, b.getLoc(), rows * (width / v), [&](Value linear) {
    body(ix.divu(linear, ix.c(width / v)),
         ix.mul(ix.remu(linear, ix.c(width / v)), ix.c(v)));
  });
}

/// `sum over [lo, hi) of f(q)` (i32) as an scf.for.
Value countLoop(ImplicitLocOpBuilder &b, Value lo, Value hi,
                function_ref<Value(Value)> f) {
  KernelArith ix(b);
  auto loop = scf::ForOp::create(
      b, lo, hi, ix.c(1), ValueRange{ix.c32(0)},
      [&](OpBuilder &, Location, Value q, ValueRange acc) {
        scf::YieldOp::create(b, ValueRange{ix.add(acc[0], f(q))});
      });
  return loop.getResult(0);
}

struct MoERouteToGPU : BufferizedOpPattern<MoERouteOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(MoERouteOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    KernelArith ix(b);
    ArrayRef<int64_t> shape =
        cast<ShapedType>(op.getIds().getType()).getShape();
    int64_t topK = shape[1], pairs = shape[0] * topK;
    int64_t experts = op.getNumExperts();
    int64_t chunk = routeChunk(pairs);
    int64_t chunks = ceilDiv(pairs, chunk);
    Value ids = adaptor.getIds(), sorted = adaptor.getOuts()[0],
          pairRows = adaptor.getOuts()[1], offsets = adaptor.getOuts()[2];
    // counts[c * E + e]: expert e's pairs in chunk c, then the pairs of
    // chunks before c; totals at chunks * E.
    Value counts = allocDevice(
        b, b.getLoc(),
        MemRefType::get({chunks * experts + experts}, b.getI32Type()));
    // The [t, s] indices of pair q = t * K + s.
    auto slot = [&](Value q) -> SmallVector<Value> {
      return {ix.divu(q, ix.c(topK)), ix.remu(q, ix.c(topK))};
    };
    auto key = [&](Value q) {
      return moeRouteKey(b, b.getLoc(), memref::LoadOp::create(b, ids, slot(q)),
                         experts);
    };
    auto chunkBegin = [&](Value c) { return ix.mul(c, ix.c(chunk)); };
    auto isExpert = [&](Value q, Value e) {
      return arith::ExtUIOp::create(b, b.getI32Type(),
                                    ix.eq(key(q).expert, ix.toI32(e)));
    };
    // 1. Per chunk and expert, the chunk's pairs of that expert.
    launchLinear(b, b.getLoc(), chunks * experts, [&](Value linear) {
      Value c = ix.divu(linear, ix.c(experts));
      Value e = ix.remu(linear, ix.c(experts));
      Value lo = chunkBegin(c);
      Value hi = ix.minsi(ix.add(lo, ix.c(chunk)), ix.c(pairs));
      memref::StoreOp::create(
          b, countLoop(b, lo, hi, [&](Value q) { return isExpert(q, e); }),
          counts, linear);
    });
    // 2. Per expert, an exclusive scan over the chunks and the total.
    launchLinear(b, b.getLoc(), experts, [&](Value e) {
      auto loop = scf::ForOp::create(
          b, ix.c(0), ix.c(chunks), ix.c(1), ValueRange{ix.c32(0)},
          [&](OpBuilder &, Location, Value c, ValueRange acc) {
            Value at = ix.add(ix.mul(c, ix.c(experts)), e);
            Value n = memref::LoadOp::create(b, counts, at);
            memref::StoreOp::create(b, acc[0], counts, at);
            scf::YieldOp::create(b, ValueRange{ix.add(acc[0], n)});
          });
      memref::StoreOp::create(b, loop.getResult(0), counts,
                              ix.add(ix.c(chunks * experts), e));
    });
    // 3. group_offsets[i]: the pairs of experts before i.
    launchLinear(b, b.getLoc(), experts + 1, [&](Value i) {
      memref::StoreOp::create(
          b,
          countLoop(b, ix.c(0), i,
                    [&](Value e) {
                      return memref::LoadOp::create(
                          b, counts, ix.add(ix.c(chunks * experts), e));
                    }),
          offsets, i);
    });
    // 4. Per pair, its row: the expert's first row, its pairs in earlier
    // chunks, and those before it in its chunk.
    launchLinear(b, b.getLoc(), pairs, [&](Value p) {
      MoERouteKey k = key(p);
      Value e = ix.toIndex(k.expert);
      Value c = ix.divu(p, ix.c(chunk));
      Value before = countLoop(b, chunkBegin(c), p,
                               [&](Value q) { return isExpert(q, e); });
      Value row =
          ix.add(ix.add(memref::LoadOp::create(b, offsets, e),
                        memref::LoadOp::create(
                            b, counts, ix.add(ix.mul(c, ix.c(experts)), e))),
                 before);
      memref::StoreOp::create(b, ix.toI32(p), sorted, ix.toIndex(row));
      memref::StoreOp::create(b, ix.select(k.kept, row, ix.c32(-1)), pairRows,
                              slot(p));
    });
    gpu::DeallocOp::create(b, Type(), ValueRange{}, counts);
    return success();
  }
};

struct MoEDispatchToGPU : BufferizedOpPattern<MoEDispatchOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(MoEDispatchOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    KernelArith ix(b);
    auto out = cast<MemRefType>(op.getOut().getType());
    int64_t pairs = out.getDimSize(0), width = out.getDimSize(1);
    Type element = out.getElementType();
    int64_t v = rowVectorWidth(width, element);
    auto vec = VectorType::get({v}, element);
    llvm::Align align(v * element.getIntOrFloatBitWidth() / 8);
    int64_t topK = op.getTopK();
    launchRowVectors(b, pairs, width, v, [&](Value r, Value h) {
      MoEDispatchSource src = moeDispatchSource(
          b, b.getLoc(), memref::LoadOp::create(b, adaptor.getSortedPairs(), r),
          pairs, topK);
      Value x = vector::LoadOp::create(b, vec, adaptor.getInput(),
                                       ValueRange{src.token, h}, false, align);
      Value zero = arith::ConstantOp::create(b, b.getZeroAttr(vec));
      vector::StoreOp::create(b, ix.select(src.inside, x, zero),
                              adaptor.getOut(), ValueRange{r, h}, false, align);
    });
    return success();
  }
};

struct MoECombineToGPU : BufferizedOpPattern<MoECombineOp> {
  using BufferizedOpPattern::BufferizedOpPattern;
  LogicalResult lower(MoECombineOp op, OpAdaptor adaptor,
                      ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    KernelArith ix(b);
    auto out = cast<MemRefType>(op.getOut().getType());
    auto input = cast<MemRefType>(op.getInput().getType());
    int64_t tokens = out.getDimSize(0), width = out.getDimSize(1);
    int64_t rows = input.getDimSize(0);
    int64_t topK = cast<ShapedType>(op.getPairRows().getType()).getDimSize(1);
    int64_t v = std::min(rowVectorWidth(width, input.getElementType()),
                         rowVectorWidth(width, out.getElementType()));
    auto bytes = [&](Type element) {
      return llvm::Align(v * element.getIntOrFloatBitWidth() / 8);
    };
    auto f32Vec = VectorType::get({v}, b.getF32Type());
    Type productType = op.getProductType().value_or(Type());
    // One thread per vector of an output row; the pairs in slot order.
    launchRowVectors(b, tokens, width, v, [&](Value t, Value h) {
      NumericsBuilder nb(b, b.getLoc(), f32Vec);
      Value acc = nb.f32(0.0);
      for (int64_t s = 0; s < topK; ++s) {
        Value w = memref::LoadOp::create(b, adaptor.getWeights(),
                                         ValueRange{t, ix.c(s)});
        if (!w.getType().isF32())
          w = arith::ExtFOp::create(b, b.getF32Type(), w);
        MoECombinePair pair =
            moeCombinePair(b, b.getLoc(),
                           memref::LoadOp::create(b, adaptor.getPairRows(),
                                                  ValueRange{t, ix.c(s)}),
                           w, rows);
        Value y = vector::LoadOp::create(
            b, VectorType::get({v}, input.getElementType()), adaptor.getInput(),
            ValueRange{pair.row, h}, false, bytes(input.getElementType()));
        if (!input.getElementType().isF32())
          y = arith::ExtFOp::create(b, f32Vec, y);
        acc = moeCombineStep(nb, acc, w, y, pair.include, productType);
      }
      if (!out.getElementType().isF32())
        acc = arith::TruncFOp::create(
            b, VectorType::get({v}, out.getElementType()), acc);
      vector::StoreOp::create(b, acc, adaptor.getOut(), ValueRange{t, h}, false,
                              bytes(out.getElementType()));
    });
    return success();
  }
};

} // namespace

void mlir::nvfp4::populateMoEToGPUPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<MoERouteToGPU, MoEDispatchToGPU, MoECombineToGPU>(
      converter, patterns.getContext());
}
