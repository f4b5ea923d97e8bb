//===- NVFP4ToSM100.cpp - nvfp4 on Blackwell tcgen05 ----------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// NVFP4 and MXFP4 matmuls become one launch of the persistent tcgen05
// kernel (BlockScaledGemmKernel.cpp) over every tile of every group, on the
// operands' FP4 storage: tensor maps of the codes (byte views), the raw
// addresses of the swizzled scales. Contiguous groups first get their token
// scales repacked so that each group starts at a 128-row block (the unit
// tcgen05.cp moves). Quantize uses the portable kernels with the hardware
// E2M1 conversion; everything else goes through convert-nvfp4-to-gpu.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToSM100/NVFP4ToSM100.h"

#include "nvfp4/Conversion/GPUCommon/ChipGemm.h"
#include "nvfp4/Conversion/GPUCommon/GPUCodegen.h"
#include "nvfp4/Conversion/GPUCommon/GPUConversion.h"
#include "nvfp4/Conversion/GPUCommon/GemmProblem.h"
#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToSM100/BlockScaledGemmKernel.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"
#include "nvfp4/Dialect/NVFP4/Utils/Storage.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4TOSM100
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// MMA N: 64 for small groups, 128, or 256 (single accumulator) for large
/// ones, where re-reading the weights once per 256 tokens matters most.
int64_t chooseTokenTile(const SM100KernelOptions &options,
                        int64_t typicalRows) {
  if (options.tokenTile)
    return options.tokenTile;
  if (typicalRows <= 64)
    return 64;
  return typicalRows >= 1024 ? 256 : 128;
}

/// The deepest ring (at most 6 stages) that fits shared and tensor memory.
int64_t chooseStages(const SM100KernelOptions &options, SM100GemmConfig cfg) {
  if (options.stages)
    return options.stages;
  for (int64_t s = 6; s > 2; --s) {
    cfg.stages = s;
    if (cfg.fitsSharedMemory() && cfg.tmemColumnsUsed() <= 512)
      return s;
  }
  return 2;
}

/// Contiguous groups: copies A's scales (swizzled over all rows) into a
/// buffer where group g starts at 128-row block sum_{h<g} ceil(rows_h/128),
/// zero elsewhere: tcgen05.cp moves whole 128-row units. One thread per
/// scale byte of A; the group walk is the kernel's (nvfp4k scheduler ops).
Value repackContiguousScales(OpBuilder &builder, Location loc,
                             const SM100GemmConfig &cfg, Value scales,
                             Value offsets) {
  ImplicitLocOpBuilder b(loc, builder);
  int64_t cols = cfg.scaleCols();
  int64_t blocks = ceilDiv(cfg.maxRows, 128) + cfg.groups;
  int64_t bytes = blocks * cfg.rowTileBytes();
  auto type = MemRefType::get({bytes}, b.getI8Type());
  Value out = allocDevice(b, loc, type);
  KernelArith ix(b);
  launchLinear(b, loc, bytes, [&](Value i) {
    memref::StoreOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0), out,
        ValueRange{i});
  });
  auto space = nvfp4k::SchedulerType::get(
      b.getContext(), Grouping::contiguous, cfg.groups, cfg.maxRows,
      cfg.weightTiles(), kSM100TileRows, cfg.tokenTile, /*granule=*/0,
      ArrayRef<int64_t>(), /*kBlocks=*/0, /*streamK=*/false, /*cluster=*/1);
  Value table = deviceAddress(b, loc, offsets);
  launchLinear(b, loc, cfg.maxRows * cols, [&](Value i) {
    SmallVector<Value> id = ix.delinearize(i, {cfg.maxRows, cols});
    Value r = id[0], c = id[1];
    Value scheduler = nvfp4k::SchedulerCreateOp::create(b, loc, space, table);
    auto group = nvfp4k::SchedulerGroupOfOp::create(b, loc, scheduler, r);
    scf::IfOp::create(
        b, loc, ix.lt(group.getGroup(), ix.c(cfg.groups)),
        [&](OpBuilder &, Location) {
          Value before = nvfp4k::SchedulerBlocksBeforeOp::create(
              b, loc, scheduler, group.getGroup(), b.getI64IntegerAttr(128));
          Value local = arith::SubIOp::create(b, loc, r, group.getGroupStart());
          // The byte of (local row, c) once the group starts at block
          // `before`.
          Value at =
              ix.add(ix.mul(before, ix.c(cfg.rowTileBytes())),
                     Swizzled128x4Attr::buildOffset(b, loc, local, c, cols));
          Value byte = arith::TruncIOp::create(
              b, loc, b.getI8Type(),
              loadScaleByte(b, loc, scales, /*swizzled=*/true, Value(), r, c));
          memref::StoreOp::create(b, loc, byte, out, ValueRange{at});
          scf::YieldOp::create(b, loc);
        });
  });
  return out;
}

void emitSM100Gemm(ConversionPatternRewriter &rewriter, Operation *op,
                   const SM100GemmConfig &cfg, const GemmProblem &ops) {
  Location loc = op->getLoc();
  ImplicitLocOpBuilder b(loc, rewriter);
  auto module = op->getParentOfType<ModuleOp>();
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  std::string name = uniqueSymbolName(module, "nvfp4_sm100_gemm");
  gpu::GPUFuncOp kernel;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, loc, name);
    kernel = buildSM100BlockScaledGemmKernel(b, loc, gpuModule, name, cfg);
  }

  SmallVector<Value> tokenMaps, weightMaps, tokenScales, weightScales;
  int64_t weightRows = cfg.stackedWeights() ? cfg.groups * cfg.n : cfg.n;
  Value anyTokens; // groups without rows borrow another group's map
  for (auto [g, a] : llvm::enumerate(ops.aValues)) {
    int64_t rows = cfg.mode == Grouping::independent ? cfg.rowsPerGroup[g]
                   : cfg.mode == Grouping::masked    ? cfg.groups * cfg.maxRows
                                                     : cfg.maxRows;
    tokenMaps.push_back(
        rows ? createByteTensorMap(
                   b, loc, a, rows, cfg.k / 2,
                   sm100CodesMapType(b.getContext(), cfg.tokenTile))
             : Value());
    if (tokenMaps.back())
      anyTokens = tokenMaps.back();
  }
  for (Value &m : tokenMaps)
    if (!m)
      m = anyTokens;
  for (Value w : ops.weights)
    weightMaps.push_back(
        createByteTensorMap(b, loc, w, weightRows, cfg.k / 2,
                            sm100CodesMapType(b.getContext(), 128)));
  if (cfg.mode == Grouping::contiguous) {
    Value repacked =
        repackContiguousScales(b, loc, cfg, ops.aScales.front(), ops.groupInfo);
    tokenScales.push_back(deviceAddress(b, loc, repacked));
  } else {
    for (Value s : ops.aScales)
      tokenScales.push_back(deviceAddress(b, loc, s));
  }
  for (Value s : ops.weightScales)
    weightScales.push_back(deviceAddress(b, loc, s));

  KernelArith ix(b);
  SmallVector<Value> kernelArgs;
  llvm::append_range(kernelArgs, tokenMaps);
  llvm::append_range(kernelArgs, weightMaps);
  llvm::append_range(kernelArgs, tokenScales);
  llvm::append_range(kernelArgs, weightScales);
  ops.appendEpilogueArgs(b, loc, kernelArgs);
  Value smem = arith::ConstantIntOp::create(
      b, loc, b.getI32Type(),
      nvfp4k::sharedMemoryLaunchBytes(cfg.bufferBytes()));
  gpu::LaunchFuncOp::create(
      b, loc, kernel, gpu::KernelDim3{ix.c(cfg.ctas), ix.c(1), ix.c(1)},
      gpu::KernelDim3{ix.c(kSM100Threads), ix.c(1), ix.c(1)}, smem, kernelArgs);
}

/// nvfp4.matmul and nvfp4.grouped_matmul (a dense matmul is one independent
/// group) on the kernel. It needs K a multiple of 32 (TMA rows of K/2 bytes
/// are 16-byte multiples; MXFP4 needs it anyway).
template <typename OpTy> struct GemmToSM100 : ChipGemmPattern<OpTy> {
  GemmToSM100(const TypeConverter &converter, MLIRContext *ctx,
              SM100KernelOptions options)
      : ChipGemmPattern<OpTy>(converter, ctx, "sm100 kernel"),
        options(options) {}
  LogicalResult lowerGemm(Operation *op, const GemmProblem &problem,
                          ConversionPatternRewriter &rewriter) const override {
    if (problem.shape.k % 32)
      return rewriter.notifyMatchFailure(op, "sm100 kernel: K % 32 != 0");
    // tcgen05's block-scaled MMA takes FP4 (or FP8) operands on both sides;
    // bf16/f16 activations against FP4 weights run on the portable kernel.
    if (problem.shape.weightOnly())
      return rewriter.notifyMatchFailure(
          op, "sm100 kernel: FP4 activations only (W4A16 runs portably)");
    SM100GemmConfig cfg;
    static_cast<GemmShape &>(cfg) = problem.shape;
    cfg.tokenTile = chooseTokenTile(options, cfg.typicalRows());
    cfg.ctas = options.ctas;
    cfg.stages = chooseStages(options, cfg);
    emitSM100Gemm(rewriter, op, cfg, problem);
    return success();
  }
  SM100KernelOptions options;
};

struct ConvertNVFP4ToSM100Pass
    : public nvfp4::impl::ConvertNVFP4ToSM100Base<ConvertNVFP4ToSM100Pass> {
  using Base::Base;
  void runOnOperation() override {
    auto reject = [&](const Twine &message) {
      getOperation().emitError() << "convert-nvfp4-to-sm100: " << message;
      signalPassFailure();
    };
    if (tokenTile != 0 && tokenTile != 64 && tokenTile != 128 &&
        tokenTile != 256)
      return reject("token-tile must be 0 (choose), 64, 128 or 256, got " +
                    Twine(tokenTile));
    if (ctas < 1 || ctas > kMaxPersistentCtas)
      return reject("ctas must be 1 to " + Twine(kMaxPersistentCtas) +
                    ", got " + Twine(ctas));
    if (stages != 0) {
      // The largest configuration must fit: 256-token tiles, NVFP4.
      SM100GemmConfig widest;
      widest.tokenTile = tokenTile ? tokenTile : 256;
      widest.stages = stages;
      if (stages < 2 || !widest.fitsSharedMemory() ||
          widest.tmemColumnsUsed() > 512)
        return reject("stages must be 0 (choose) or at least 2 and fit 227 "
                      "KiB of shared memory and 512 TMEM columns with " +
                      Twine(widest.tokenTile) + "-token tiles, got " +
                      Twine(stages));
    }
    GPUKernelOptions gpuOptions;
    gpuOptions.hardwareE2M1 = hardwareE2m1;
    gpuOptions.hardwareStochastic = hardwareStochastic;
    SM100KernelOptions gemm;
    gemm.ctas = ctas;
    gemm.tokenTile = tokenTile;
    gemm.stages = stages;
    if (failed(applyGPUConversion(
            getOperation(),
            [&](const TypeConverter &converter, RewritePatternSet &patterns) {
              populateNVFP4ToGPUConversionPatterns(converter, patterns,
                                                   gpuOptions);
              populateNVFP4ToSM100ConversionPatterns(converter, patterns,
                                                     gemm);
            })))
      signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateNVFP4ToSM100ConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const SM100KernelOptions &options) {
  patterns.add<GemmToSM100<MatmulOp>, GemmToSM100<GroupedMatmulOp>>(
      converter, patterns.getContext(), options);
}
