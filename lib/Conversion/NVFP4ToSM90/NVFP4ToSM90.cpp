//===- NVFP4ToSM90.cpp - nvfp4 matmuls on Hopper tensor cores
//--------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// NVFP4 matmuls become, on the host: an exact NVFP4 -> f16 pre-pass over the
// token operand (A) written in the K order the GEMM kernel consumes, a TMA
// descriptor of that buffer, and one launch of the persistent RS-wgmma kernel
// (GroupedGemmKernel.cpp) over every tile of every group. Everything else
// (and the matmuls this kernel does not cover) goes through the portable
// convert-nvfp4-to-gpu patterns.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToSM90/NVFP4ToSM90.h"

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToSM90/GroupedGemmKernel.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/GPUCodegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/GemmProblem.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"
#include "nvfp4/Dialect/NVFP4/Utils/Storage.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4TOSM90
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// The widest token tile (wgmma N). Each tile runs the narrowest wgmma N in
/// steps of 32 that covers its tokens, so small groups waste little at any
/// width, and wider tiles dequantize each weight block for more tokens. The
/// choice weighs the waves of persistent CTAs against a tile's cost: a K
/// block's dequantization and loads cost about as much as a 128-wide
/// block's MMAs, so a tile of width T costs about (1 + T/128) / 2 of a
/// 128-wide one (device calls of 2026-11-24: 128-wide tiles beat 64-wide
/// ones on every GPU-mode shape, where both fill the GPU; with 4 weight
/// tiles, as in docs/examples/moe_grouped.mlir, 64-wide tiles are faster:
/// 64.4 against 66.4 us for the whole job). 32 is never chosen: its
/// fixed per-block cost is higher than the model says (68.7 us there).
/// Group sizes are static for independent groups and estimated as the mean
/// (contiguous) or the maximum (masked) otherwise.
int64_t chooseTokenTile(const SM90KernelOptions &options,
                        const SM90GemmConfig &cfg) {
  if (options.tokenTile)
    return options.tokenTile;
  int64_t best = 128;
  double bestTime = 0;
  for (int64_t tile : {128, 64}) {
    int64_t tokenTiles = 0;
    if (cfg.mode == Grouping::independent)
      for (int64_t rows : cfg.rowsPerGroup)
        tokenTiles += ceilDiv(rows, tile);
    else
      tokenTiles = cfg.groups * ceilDiv(cfg.typicalRows(), tile);
    int64_t tiles = std::max<int64_t>(tokenTiles * cfg.nTiles(), 1);
    double time = double(ceilDiv(tiles, cfg.ctas)) * (1.0 + tile / 128.0);
    if (tile == 128 || time < bestTime) {
      best = tile;
      bestTime = time;
    }
  }
  return best;
}

/// dst[rowBase + r, :] = the exact f16 values of A[r, :] (no decode scale),
/// permuted inside each 64-block as the kernel consumes K (sm90PermutedK),
/// zero in the K padding. One thread per 16-value chunk.
void emitTokenPrepass(OpBuilder &b, Location loc, Value values, Value scales,
                      bool batched, int64_t batch, int64_t rows, int64_t k,
                      Value dst, int64_t rowBase, int64_t kPadded) {
  KernelIndexing ix(b, loc);
  int64_t chunks = kPadded / kChunk;
  SmallVector<int64_t> space = {batch, rows, chunks};
  launchLinear(b, loc, batch * rows * chunks, [&](Value linear) {
    NumericsBuilder nb(b, loc, b.getF32Type());
    SmallVector<Value> id = ix.delinearize(linear, space);
    Value bIdx = batched ? id[0] : Value();
    Value r = id[1], chunk = id[2];
    Value dstRow = ix.add(ix.add(ix.mul(id[0], ix.c(rows)), r), ix.c(rowBase));
    Value inK = ix.lt(chunk, ix.c(k / kChunk));
    // 16 values (zero past K), as f32.
    auto f32x16 = VectorType::get({kChunk}, b.getF32Type());
    auto valuesOf = scf::IfOp::create(b, loc, TypeRange{f32x16}, inK,
                                      /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&valuesOf.getThenRegion().front());
      Value k0 = ix.mul(chunk, ix.c(kChunk));
      Value packed = vector::LoadOp::create(
          b, loc, VectorType::get({kChunk / 2}, b.getI8Type()), values,
          withBatch(bIdx, {r, ix.div(k0, ix.c(2))}), false, llvm::Align(8));
      Value scale =
          nb.e4m3Decode(loadScaleByte(b, loc, scales,
                                      /*swizzled=*/true, bIdx, r, chunk));
      SmallVector<Value> out;
      for (int64_t i = 0; i < kChunk; ++i) {
        Value byte = arith::ExtUIOp::create(
            b, loc, b.getI32Type(),
            vector::ExtractOp::create(b, loc, packed, i / 2));
        Value code = arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, byte, nb.i32(4 * (i % 2))),
            nb.i32(0xF));
        out.push_back(nb.mul(nb.e2m1Decode(code), scale));
      }
      scf::YieldOp::create(
          b, loc,
          ValueRange{vector::FromElementsOp::create(b, loc, f32x16, out)});
      b.setInsertionPointToStart(&valuesOf.getElseRegion().front());
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::ConstantOp::create(
              b, loc,
              DenseElementsAttr::get(f32x16, b.getF32FloatAttr(0.0f)))});
    }
    Value vals = valuesOf.getResult(0);
    // Permuted positions: value pairs (i, i+2) land in adjacent columns.
    Value blockBase = ix.mul(ix.div(chunk, ix.c(4)), ix.c(kSM90BlockK));
    Value inBlock = ix.rem(chunk, ix.c(4));
    auto f16x2 = VectorType::get({2}, b.getF16Type());
    for (int64_t i : {0, 1, 4, 5, 8, 9, 12, 13}) {
      Value pair = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, b.getF32Type()),
          ValueRange{vector::ExtractOp::create(b, loc, vals, i),
                     vector::ExtractOp::create(b, loc, vals, i + 2)});
      Value half = arith::TruncFOp::create(b, loc, f16x2, pair);
      // sm90PermutedK(c, i) = (16*step + 2c + t-offset); the chunk-dependent
      // part is 2c.
      int64_t fixed = sm90PermutedK(0, i);
      Value col =
          ix.add(ix.add(blockBase, ix.c(fixed)), ix.mul(inBlock, ix.c(2)));
      vector::StoreOp::create(b, loc, half, dst, ValueRange{dstRow, col}, false,
                              llvm::Align(4));
    }
  });
}

/// Weight blocks in flight per consumer thread. 4 hides more of the load
/// latency (5-17% faster on the GPU-mode, MoE-prefill and dense shapes in
/// the option sweep) but, with 128-token tiles and fp32 promotion, leaves
/// ptxas too few registers to keep the wgmmas of some epilogues in flight
/// (C7511: serialized); 2 never does.
int64_t chooseWeightPrefetch(const SM90KernelOptions &options) {
  return options.weightPrefetch ? options.weightPrefetch : 2;
}

/// The matmul, described for the kernel: operands in device memory.
/// Emits the pre-pass, the descriptor and the kernel launch.
void emitSM90Gemm(ConversionPatternRewriter &rewriter, Operation *op,
                  const SM90GemmConfig &cfg, const GemmProblem &ops,
                  bool aBatched) {
  Location loc = op->getLoc();
  OpBuilder &b = rewriter;
  MLIRContext *ctx = b.getContext();
  auto module = op->getParentOfType<ModuleOp>();
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  // Token operand in f16, permuted K.
  int64_t totalRows =
      cfg.mode == Grouping::masked ? cfg.groups * cfg.maxRows : cfg.maxRows;
  auto xType = MemRefType::get({std::max<int64_t>(totalRows, 1), cfg.kPadded()},
                               b.getF16Type());
  Value x = gpu::AllocOp::create(b, loc, xType, Type(), ValueRange{},
                                 ValueRange{}, ValueRange{}, false)
                .getMemref();
  if (cfg.mode == Grouping::independent) {
    int64_t rowBase = 0;
    for (auto [g, rows] : llvm::enumerate(cfg.rowsPerGroup)) {
      if (rows)
        emitTokenPrepass(b, loc, ops.aValues[g], ops.aScales[g], false, 1, rows,
                         cfg.k, x, rowBase, cfg.kPadded());
      rowBase += rows;
    }
  } else if (totalRows) {
    emitTokenPrepass(b, loc, ops.aValues.front(), ops.aScales.front(), aBatched,
                     aBatched ? cfg.groups : 1,
                     aBatched ? cfg.maxRows : totalRows, cfg.k, x, 0,
                     cfg.kPadded());
  }

  // Its TMA descriptor (the runtime caches it per buffer).
  KernelIndexing ix(b, loc);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto descType = nvgpu::TensorMapDescriptorType::get(
      ctx,
      MemRefType::get({cfg.tokenTile, kSM90BlockK}, b.getF16Type(),
                      MemRefLayoutAttrInterface(), workgroup),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(b.getF16Type(), Attribute()), x);
  Value desc = nvgpu::TmaCreateDescriptorOp::create(
      b, loc, descType, unranked,
      ValueRange{ix.c(cfg.tokenTile), ix.c(kSM90BlockK)});
  // gpu.func arguments cannot be tensor-map descriptors: pass the pointer.
  Value mapPtr = UnrealizedConversionCastOp::create(
                     b, loc, LLVM::LLVMPointerType::get(ctx), desc)
                     .getResult(0);

  // The kernel, in its own gpu.module.
  std::string name = uniqueSymbolName(module, "nvfp4_sm90_gemm");
  gpu::GPUFuncOp kernel;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, loc, name);
    kernel = buildSM90GroupedGemmKernel(b, loc, gpuModule, name, cfg);
  }

  SmallVector<Value> kernelArgs{mapPtr};
  for (Value w : ops.weights)
    kernelArgs.push_back(deviceAddress(b, loc, w));
  for (Value s : ops.weightScales)
    kernelArgs.push_back(deviceAddress(b, loc, s));
  ops.appendEpilogueArgs(b, loc, kernelArgs);
  Value smem =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), cfg.sharedBytes());
  gpu::LaunchFuncOp::create(
      b, loc, kernel, gpu::KernelDim3{ix.c(cfg.ctas), ix.c(1), ix.c(1)},
      gpu::KernelDim3{ix.c(cfg.threads()), ix.c(1), ix.c(1)}, smem, kernelArgs);
  gpu::DeallocOp::create(b, loc, Type(), ValueRange{}, x);
}

/// Whether the kernel covers a matmul: NVFP4 scales (MXFP4 goes the
/// portable way), an even N (outputs are stored in pairs).
LogicalResult supported(ConversionPatternRewriter &rewriter, Operation *op,
                        const GemmShape &shape) {
  if (shape.mxfp4)
    return rewriter.notifyMatchFailure(op, "sm90 kernel: NVFP4 only");
  if (shape.n % 2)
    return rewriter.notifyMatchFailure(op, "sm90 kernel: N must be even");
  return success();
}

/// nvfp4.matmul and nvfp4.grouped_matmul (a dense matmul is one independent
/// group) on the kernel.
template <typename OpTy> struct GemmToSM90 : ChipGemmPattern<OpTy> {
  GemmToSM90(const TypeConverter &converter, MLIRContext *ctx,
             SM90KernelOptions options)
      : ChipGemmPattern<OpTy>(converter, ctx, "sm90 kernel"), options(options) {
  }
  LogicalResult lowerGemm(Operation *op, const GemmProblem &problem,
                          ConversionPatternRewriter &rewriter) const override {
    if (failed(supported(rewriter, op, problem.shape)))
      return failure();
    SM90GemmConfig cfg;
    static_cast<GemmShape &>(cfg) = problem.shape;
    cfg.stages = options.stages;
    cfg.ctas = options.ctas;
    cfg.tokenTile = chooseTokenTile(options, cfg);
    cfg.promoteEvery = options.promoteEvery;
    cfg.weightPrefetch = chooseWeightPrefetch(options);
    emitSM90Gemm(rewriter, op, cfg, problem,
                 /*aBatched=*/cfg.mode == Grouping::masked);
    return success();
  }
  SM90KernelOptions options;
};

struct ConvertNVFP4ToSM90Pass
    : public nvfp4::impl::ConvertNVFP4ToSM90Base<ConvertNVFP4ToSM90Pass> {
  using Base::Base;
  void runOnOperation() override {
    // The kernel's limits: wgmma N (and the accumulator registers), the
    // 227 KiB of shared memory, the pairs-of-blocks K loop.
    auto reject = [&](const Twine &message) {
      getOperation().emitError() << "convert-nvfp4-to-sm90: " << message;
      signalPassFailure();
    };
    if (tokenTile != 0 && tokenTile != 32 && tokenTile != 64 && tokenTile != 128)
      return reject("token-tile must be 0 (choose), 32, 64 or 128, got " +
                    Twine(tokenTile));
    SM90GemmConfig widest;
    widest.tokenTile = 128;
    widest.stages = stages;
    // 1 KiB of static shared memory (barriers) on top of the dynamic part.
    if (stages < 2 || widest.sharedBytes() + 1024 > 227 * 1024)
      return reject("stages must be at least 2 and fit 227 KiB of shared "
                    "memory with 128-token tiles (at most 14), got " +
                    Twine(stages));
    if (ctas < 1)
      return reject("ctas must be positive, got " + Twine(ctas));
    if (promoteEvery < 0 || promoteEvery % 2)
      return reject("promote-every must be even and non-negative, got " +
                    Twine(promoteEvery));
    if (weightPrefetch < 0 || weightPrefetch > 8 || weightPrefetch % 2)
      return reject("weight-prefetch must be 0 (choose), 2, 4, 6 or 8, got " +
                    Twine(weightPrefetch));
    SM90KernelOptions gemm;
    gemm.ctas = ctas;
    gemm.tokenTile = tokenTile;
    gemm.stages = stages;
    gemm.promoteEvery = promoteEvery;
    gemm.weightPrefetch = weightPrefetch;
    if (failed(applyNVFP4ToGPUConversion(
            getOperation(), GPUKernelOptions(),
            [&](const TypeConverter &converter, RewritePatternSet &patterns) {
              populateNVFP4ToSM90ConversionPatterns(converter, patterns, gemm);
            })))
      signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateNVFP4ToSM90ConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const SM90KernelOptions &options) {
  patterns.add<GemmToSM90<MatmulOp>, GemmToSM90<GroupedMatmulOp>>(
      converter, patterns.getContext(), options);
}
