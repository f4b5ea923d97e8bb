//===- BlockScaledGemmKernel.cpp - the sm_100a tcgen05 GEMM ---------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Builds the kernel described in BlockScaledGemmKernel.h out of nvfp4k ops
// (the same scheduler, ring, loads and epilogue as the sm_90a kernel, and
// the tcgen05 MMA step) and upstream NVVM ops for tensor memory. The
// descriptor encodings live in the nvfp4k lowering; the single-tile
// prototypes that were compiled and decoded first are summarised in
// docs/design/findings.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToSM100/BlockScaledGemmKernel.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::nvfp4;

nvgpu::TensorMapDescriptorType mlir::nvfp4::sm100CodesMapType(MLIRContext *ctx,
                                                              int64_t boxRows) {
  // A byte view: nvgpu cannot express CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B
  // (test/Canary/nvgpu-tma-fp4-datatype.mlir), and UINT8 moves the same
  // packed bytes.
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return nvgpu::TensorMapDescriptorType::get(
      ctx,
      MemRefType::get({boxRows, 128},
                      IntegerType::get(ctx, 8, IntegerType::Unsigned),
                      MemRefLayoutAttrInterface(), workgroup),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

namespace {

struct KernelArgs : EpilogueArgs {
  SmallVector<Value> tokenMaps, weightMaps;     // !llvm.ptr
  SmallVector<Value> tokenScales, weightScales; // i64
};

/// Byte offsets of each region of a stage, and of the TMEM address slot
/// after the last stage.
struct StageLayout {
  int64_t weights, tokens, weightScales, tokenScales, tmemSlot;

  explicit StageLayout(const SM100GemmConfig &cfg) {
    weights = 0;
    tokens = weights + cfg.weightBytes();
    weightScales = tokens + cfg.tokenBytes();
    tokenScales = weightScales + cfg.weightScaleBytes();
    tmemSlot = cfg.stages * cfg.stageBytes();
  }
};

class KernelBuilder : KernelArith {
public:
  KernelBuilder(ImplicitLocOpBuilder &b, const SM100GemmConfig &cfg)
      : KernelArith(b), cfg(cfg), ctx(b.getContext()), layout(cfg) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name);

private:
  /// A view of `type` at byte `offset` of the stage `stage`.
  Value stageView(Value stage, int64_t offset, Type type) {
    Value at = add(mul(stage, c(cfg.stageBytes())), c(offset));
    return memref::ViewOp::create(b, type, smem, at, ValueRange{});
  }
  Value tmemPointer(Value address) {
    return LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(ctx, 6),
                                    address);
  }
  void tcgen05Fence(NVVM::Tcgen05FenceKind kind) {
    NVVM::Tcgen05FenceOp::create(b, kind);
  }

  /// Where tile `t`'s operands are.
  struct TileOperands {
    nvfp4k::SchedulerTileOp tile;
    Value tokenMap, weightMap;     // the maps' descriptors
    Value tokenCodeRow, weightRow; // index: map rows of the tiles' first rows
    Value tokenScaleBase;          // i64: the group's first scale block
    Value tokenScaleBlock;         // index: first 128-row block of the tile
    Value tokenScaleBlocks;        // index: the group's blocks
    Value weightScaleBase;         // i64: unit (weight tile, 0)
  };
  /// Tile t's operands; `cursor` as nvfp4k.scheduler.tile takes it.
  TileOperands operandsOf(Value t, ValueRange cursor);

  void emitProducer();
  void emitMma();
  void emitEpilogue();

  const SM100GemmConfig &cfg;
  MLIRContext *ctx;
  StageLayout layout;
  KernelArgs args;
  Value smem, ring, accRing, scheduler;
  Value tmem; // i32: the TMEM allocation (read after the allocation)
  Value warp, lane;
};

KernelBuilder::TileOperands KernelBuilder::operandsOf(Value t,
                                                     ValueRange cursor) {
  TileOperands ops;
  ops.tile = nvfp4k::SchedulerTileOp::create(b, scheduler, t, cursor);
  Value g = ops.tile.getGroup();
  Value groupStart = ops.tile.getGroupStart();
  Value local = sub(ops.tile.getRowStart(), groupStart);
  int64_t unitBytes = cfg.rowTileBytes(); // one 128-row block of scales
  Type mapType = sm100CodesMapType(ctx, cfg.tokenTile);
  ops.tokenMap =
      UnrealizedConversionCastOp::create(b, mapType, pick(args.tokenMaps, g))
          .getResult(0);
  ops.weightMap = UnrealizedConversionCastOp::create(
                      b, sm100CodesMapType(ctx, 128), pick(args.weightMaps, g))
                      .getResult(0);
  Value tokenScales = pick(args.tokenScales, g);
  Value weightScales = pick(args.weightScales, g);
  Value groupRows = sub(ops.tile.getGroupEnd(), groupStart);
  Value groupBlocks = divu(add(groupRows, c(127)), c(128));
  Value firstBlock; // the group's first block in its scale tensor
  switch (cfg.mode) {
  case Grouping::independent:
    ops.tokenCodeRow = local;
    firstBlock = c(0);
    ops.tokenScaleBlocks = groupBlocks;
    break;
  case Grouping::contiguous:
    // The repacked token scales start each group at a 128-row block.
    ops.tokenCodeRow = ops.tile.getRowStart();
    firstBlock = nvfp4k::SchedulerBlocksBeforeOp::create(
        b, scheduler, g, b.getI64IntegerAttr(128));
    ops.tokenScaleBlocks = groupBlocks;
    break;
  case Grouping::masked:
    ops.tokenCodeRow = ops.tile.getRowStart();
    firstBlock = mul(g, c(ceilDiv(cfg.maxRows, 128)));
    ops.tokenScaleBlocks = c(ceilDiv(cfg.maxRows, 128));
    break;
  }
  ops.tokenScaleBase = add(tokenScales, toI64(mul(firstBlock, c(unitBytes))));
  ops.tokenScaleBlock = divu(local, c(128));
  // Weights: stacked [G, N, K] operands are one map of G * N rows.
  Value weightRow0 = mul(ops.tile.getWeightTile(), c(kSM100TileRows));
  ops.weightRow =
      cfg.stackedWeights() ? add(mul(g, c(cfg.n)), weightRow0) : weightRow0;
  Value weightGroupBase = cfg.stackedWeights()
                              ? toI64(mul(g, c(cfg.weightTiles() * unitBytes)))
                              : toI64(c(0));
  ops.weightScaleBase = add(add(weightScales, weightGroupBase),
                            toI64(mul(ops.tile.getWeightTile(), c(unitBytes))));
  return ops;
}

//===----------------------------------------------------------------------===//
// Warp 0: TMA producer
//===----------------------------------------------------------------------===//

void KernelBuilder::emitProducer() {
  // One elected lane: for every tile of this CTA and every K stage, wait
  // until the MMAs released the stage, announce its bytes, and issue the
  // TMA of both FP4 tiles and the bulk copies of their scale units.
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value total = nvfp4k::SchedulerCountOp::create(b, scheduler);
  int64_t units = cfg.unitsPerStage();
  auto bytes8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  scf::ForOp::create(
      b, bid, total, grid, ValueRange{c(0), c(0), c(0)},
      [&](OpBuilder &, Location, Value t, ValueRange it0) {
        TileOperands ops = operandsOf(t, it0.drop_front());
        scf::ForOp::create(
            b, c(0), c(cfg.kStages()), c(1), ValueRange{},
            [&](OpBuilder &, Location, Value ks, ValueRange) {
              Value i = add(it0[0], ks);
              nvfp4k::RingWaitEmptyOp::create(b, ring, i);
              // Scale units of this stage: the last stage may have fewer
              // (K not a multiple of 256); blocks past the token operand
              // have none.
              Value firstUnit = mul(ks, c(units));
              Value nUnits = minsi(c(units), sub(c(cfg.unitCols()), firstUnit));
              Value unitBytes = mul(nUnits, c(Swizzled128x4Attr::kUnitBytes));
              SmallVector<Value> tokenBlockOk;
              Value bytes =
                  add(c(cfg.weightBytes() + cfg.tokenBytes()), unitBytes);
              for (int64_t rb = 0; rb < cfg.tokenScaleBlocks(); ++rb) {
                Value ok =
                    lt(add(ops.tokenScaleBlock, c(rb)), ops.tokenScaleBlocks);
                tokenBlockOk.push_back(ok);
                bytes = add(bytes, select(ok, unitBytes, c(0)));
              }
              nvfp4k::RingExpectTxOp::create(b, ring, i, bytes);
              Value s = nvfp4k::RingStageOp::create(b, ring, i);
              // The FP4 tiles: 128-byte rows of K (256 values), 128B
              // swizzle; rows and K past the operand are zero-filled.
              Value kx = mul(ks, c(128));
              nvfp4k::TmaLoadOp::create(
                  b, ops.weightMap, ValueRange{kx, ops.weightRow},
                  stageView(s, layout.weights,
                            shared({kSM100TileRows, 128}, bytes8)),
                  ring, i);
              nvfp4k::TmaLoadOp::create(
                  b, ops.tokenMap, ValueRange{kx, ops.tokenCodeRow},
                  stageView(s, layout.tokens,
                            shared({cfg.tokenTile, 128}, bytes8)),
                  ring, i);
              // The scale units: `units` consecutive 512-byte units of each
              // 128-row block (the swizzled layout orders them along K).
              Value unitOffset =
                  toI64(mul(firstUnit, c(Swizzled128x4Attr::kUnitBytes)));
              nvfp4k::BulkLoadOp::create(
                  b, add(ops.weightScaleBase, unitOffset),
                  stageView(s, layout.weightScales,
                            shared({cfg.weightScaleBytes()}, b.getI8Type())),
                  unitBytes, ring, i);
              for (int64_t rb = 0; rb < cfg.tokenScaleBlocks(); ++rb) {
                ifThen(tokenBlockOk[rb], [&] {
                  Value block = add(ops.tokenScaleBlock, c(rb));
                  Value src = add(add(ops.tokenScaleBase,
                                      toI64(mul(block, c(cfg.rowTileBytes())))),
                                  unitOffset);
                  nvfp4k::BulkLoadOp::create(
                      b, src,
                      stageView(
                          s, layout.tokenScales + rb * cfg.weightScaleBytes(),
                          shared({cfg.weightScaleBytes()}, b.getI8Type())),
                      unitBytes, ring, i);
                });
              }
              scf::YieldOp::create(b);
            });
        scf::YieldOp::create(b, ValueRange{add(it0[0], c(cfg.kStages())),
                                           ops.tile.getGroup(),
                                           ops.tile.getGroupFirst()});
      });
}

//===----------------------------------------------------------------------===//
// Warp 1: MMA issuer
//===----------------------------------------------------------------------===//

void KernelBuilder::emitMma() {
  // One elected lane. Tile j of this CTA accumulates into TMEM buffer
  // j mod accBuffers, once the epilogue has emptied it (the accumulator
  // ring's empty barrier; a fresh ring is empty).
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value total = nvfp4k::SchedulerCountOp::create(b, scheduler);
  int64_t units = cfg.unitsPerStage();
  int64_t scaleColsPerStage = cfg.weightScaleCols() + cfg.tokenScaleCols();
  int64_t scaleCol0 = cfg.accBuffers() * cfg.tokenTile;
  auto bytes8 = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  scf::ForOp::create(
      b, bid, total, grid, ValueRange{c(0), c(0), c(0), c(0)},
      [&](OpBuilder &, Location, Value t, ValueRange st) {
        Value it0 = st[0], j = st[1];
        auto tile = nvfp4k::SchedulerTileOp::create(b, scheduler, t,
                                                    st.drop_front(2));
        nvfp4k::RingWaitEmptyOp::create(b, accRing, j);
        tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
        Value buffer = nvfp4k::RingStageOp::create(b, accRing, j);
        Value acc = add(tmem, toI32(mul(buffer, c(cfg.tokenTile))));
        // 64-token tiles read half of a 128-row scale block: the MMA's
        // token scales start 0 or 2 columns into it ((row % 128) / 32).
        Value tokenScaleShift = c32(0);
        if (cfg.tokenTile < 128)
          tokenScaleShift = toI32(
              divu(remu(sub(tile.getRowStart(), tile.getGroupStart()), c(128)),
                   c(32)));
        auto kloop = scf::ForOp::create(
            b, c(0), c(cfg.kStages()), c(1), ValueRange{it0},
            [&](OpBuilder &, Location, Value ks, ValueRange itv) {
              Value i = itv[0];
              nvfp4k::RingWaitFullOp::create(b, ring, i);
              tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
              // Each stage's scales go to the stage's own TMEM columns (a
              // copy never overwrites scales an earlier, still running MMA
              // reads).
              Value s = nvfp4k::RingStageOp::create(b, ring, i);
              Value columns = add(
                  tmem, toI32(add(c(scaleCol0), mul(s, c(scaleColsPerStage)))));
              nvfp4k::Tcgen05ScaledMmaOp::create(
                  b, acc,
                  stageView(s, layout.weights,
                            shared({kSM100TileRows, 128}, bytes8)),
                  stageView(s, layout.tokens,
                            shared({cfg.tokenTile, 128}, bytes8)),
                  stageView(s, layout.weightScales,
                            shared({cfg.weightScaleBytes()}, b.getI8Type())),
                  stageView(s, layout.tokenScales,
                            shared({cfg.tokenScaleBytes()}, b.getI8Type())),
                  columns, ks, tokenScaleShift,
                  cfg.mxfp4 ? b.getUnitAttr() : UnitAttr(),
                  b.getI64IntegerAttr(cfg.tokenTile),
                  b.getI64IntegerAttr(kSM100StageK / kSM100MmaK),
                  b.getI64IntegerAttr(cfg.mmaSteps()),
                  b.getI64IntegerAttr(units),
                  b.getI64IntegerAttr(cfg.unitCols()),
                  b.getI64IntegerAttr(cfg.tokenScaleBlocks()));
              // The stage is free once these MMAs complete.
              nvfp4k::Tcgen05CommitOp::create(b, ring, i,
                                              nvfp4k::RingBarrier::empty);
              scf::YieldOp::create(b, ValueRange{add(i, c(1))});
            });
        // The accumulator is complete once the tile's MMAs are.
        nvfp4k::Tcgen05CommitOp::create(b, accRing, j,
                                        nvfp4k::RingBarrier::full);
        scf::YieldOp::create(b, ValueRange{kloop.getResult(0), add(j, c(1)),
                                           tile.getGroup(),
                                           tile.getGroupFirst()});
      });
}

//===----------------------------------------------------------------------===//
// Warps 2-5: epilogue
//===----------------------------------------------------------------------===//

void KernelBuilder::emitEpilogue() {
  // Thread (warp w, lane l) owns TMEM lane 32 (w % 4) + l: weight row n of
  // the tile. tcgen05.ld 32x32b.x32 gives it 32 consecutive tokens; C is
  // [token][n], so the warp's stores of one token are 32 consecutive n.
  Value quarter = remu(warp, c(4));
  Value tileLane = add(mul(quarter, c(32)), lane);
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value total = nvfp4k::SchedulerCountOp::create(b, scheduler);
  Value laneBits =
      arith::ShLIOp::create(b, toI32(mul(quarter, c(32))), c32(16));
  auto one = VectorType::get({1}, b.getF32Type());
  scf::ForOp::create(
      b, bid, total, grid, ValueRange{c(0), c(0), c(0)},
      [&](OpBuilder &, Location, Value t, ValueRange st) {
        Value j = st[0];
        auto tile = nvfp4k::SchedulerTileOp::create(b, scheduler, t,
                                                    st.drop_front());
        Value g = tile.getGroup();
        nvfp4k::RingWaitFullOp::create(b, accRing, j);
        tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
        Value buffer = nvfp4k::RingStageOp::create(b, accRing, j);
        Value n = add(mul(tile.getWeightTile(), c(kSM100TileRows)), tileLane);
        bool perElement = cfg.alphaPerOutput();
        Value alpha = perElement ? Value()
                                 : args.alphaAt(b, b.getLoc(), cfg, g, Value(),
                                                Value(), Value());
        Value out = pick(args.outputs, g);
        Value accIn = cfg.hasAcc ? pick(args.accs, g) : Value();
        // Output rows are token-matrix rows, from the group's first row for
        // independent groups (each has its own output).
        Value rowBase =
            cfg.mode == Grouping::independent ? tile.getGroupStart() : c(0);
        Value rows = sub(tile.getGroupEnd(), rowBase);
        Value accColumn =
            add(add(tmem, laneBits), toI32(mul(buffer, c(cfg.tokenTile))));
        auto vec32 = VectorType::get({32}, b.getI32Type());
        for (int64_t chunk = 0; chunk < cfg.tokenTile / 32; ++chunk) {
          Value raw = NVVM::Tcgen05LdOp::create(
              b, vec32, /*pack=*/false, NVVM::Tcgen05LdStShape::SHAPE_32X32B,
              tmemPointer(add(accColumn, c32(32 * chunk))), Value());
          NVVM::Tcgen05WaitOp::create(b, NVVM::Tcgen05WaitKind::LOAD);
          for (int64_t e = 0; e < 32; ++e) {
            Value token = add(tile.getRowStart(), c(32 * chunk + e));
            Value bits = vector::ExtractOp::create(b, raw, e);
            Value v = vector::BroadcastOp::create(
                b, one, LLVM::BitcastOp::create(b, b.getF32Type(), bits));
            Value row = sub(token, rowBase);
            // Row-scaled operands: the outer product of their decode
            // scales.
            Value outAlpha =
                perElement ? args.alphaAt(b, b.getLoc(), cfg, g, row, rows, n)
                           : alpha;
            nvfp4k::StoreOp::create(
                b, v, out, row, n, rows, c(cfg.n), outAlpha,
                args.biasRow(b, b.getLoc(), cfg, g), accIn,
                TypeAttr::get(cfg.outElement), b.getI64IntegerAttr(cfg.n),
                b.getF32FloatAttr(cfg.beta), nvfp4k::SwigluAttr(),
                cfg.biasElement ? TypeAttr::get(cfg.biasElement) : TypeAttr());
          }
        }
        // Hand the buffer back to the MMA warp: one arrival per warp.
        tcgen05Fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
        ifThen(eq(lane, c(0)),
               [&] { nvfp4k::RingReleaseOp::create(b, accRing, j); });
        scf::YieldOp::create(b, ValueRange{add(j, c(1)), tile.getGroup(),
                                           tile.getGroupFirst()});
      });
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp KernelBuilder::build(gpu::GPUModuleOp module, StringRef name) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> argTypes(2 * cfg.operandPointers(), ptrType);
  argTypes.append(2 * cfg.operandPointers() + EpilogueArgs::count(cfg),
                  b.getI64Type());
  auto func =
      gpu::GPUFuncOp::create(b, name, FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("nvvm.reqntid",
                b.getDenseI32ArrayAttr({int32_t(kSM100Threads), 1, 1}));

  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  auto argIt = entry.getArguments().begin();
  auto take = [&](int64_t count, SmallVector<Value> &into) {
    for (int64_t i = 0; i < count; ++i)
      into.push_back(*argIt++);
  };
  take(cfg.operandPointers(), args.tokenMaps);
  take(cfg.operandPointers(), args.weightMaps);
  take(cfg.operandPointers(), args.tokenScales);
  take(cfg.operandPointers(), args.weightScales);
  static_cast<EpilogueArgs &>(args) = EpilogueArgs::take(cfg, argIt);

  smem = nvfp4k::SharedMemoryOp::create(
      b, shared({cfg.bufferBytes()}, b.getI8Type()));
  // The stage ring: full <- the producer's expect_tx and the TMA bytes;
  // empty <- one tcgen05.commit of the MMAs that read the stage. The
  // accumulator ring: full <- a tcgen05.commit after a tile's last MMA;
  // empty <- the 4 epilogue warps.
  ring = nvfp4k::RingCreateOp::create(
      b, nvfp4k::RingType::get(ctx, cfg.stages, /*consumers=*/1,
                               /*producers=*/1));
  accRing = nvfp4k::RingCreateOp::create(
      b, nvfp4k::RingType::get(ctx, cfg.accBuffers(), /*consumers=*/4,
                               /*producers=*/1));
  auto space = nvfp4k::SchedulerType::get(
      ctx, cfg.mode, cfg.groups, cfg.maxRows, cfg.weightTiles(), kSM100TileRows,
      cfg.tokenTile, /*granule=*/0,
      cfg.mode == Grouping::independent ? ArrayRef<int64_t>(cfg.rowsPerGroup)
                                        : ArrayRef<int64_t>(),
      /*kBlocks=*/0, /*streamK=*/false, /*cluster=*/1);
  scheduler = nvfp4k::SchedulerCreateOp::create(b, space, args.groupInfo);

  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  warp = divu(tid, c(32));
  lane = remu(tid, c(32));
  // Tensor memory: warp 1 allocates (the whole warp) and gives up the
  // allocation permit; everyone reads the address after the barrier.
  Value isMmaWarp = eq(warp, c(1));
  Value slot = LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(ctx, 3),
      toI32(add(memref::ExtractAlignedPointerAsIndexOp::create(b, smem),
                c(layout.tmemSlot))));
  Value ncols = c32(cfg.tmemColumns());
  ifThen(isMmaWarp, [&] {
    NVVM::Tcgen05AllocOp::create(b, slot, ncols);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b);
  });
  tcgen05Fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  gpu::BarrierOp::create(b);
  tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  tmem = LLVM::LoadOp::create(b, b.getI32Type(), slot, 4);

  // Roles. Warps 0 and 1 work on one elected lane; the others wait at the
  // final barrier.
  auto elected = [&](function_ref<void()> body) {
    Value one = NVVM::ElectSyncOp::create(b, b.getI1Type(), Value());
    ifThen(one, body);
  };
  scf::IfOp::create(
      b, eq(warp, c(0)),
      [&](OpBuilder &, Location) {
        elected([&] { emitProducer(); });
        scf::YieldOp::create(b);
      },
      [&](OpBuilder &, Location) {
        scf::IfOp::create(
            b, isMmaWarp,
            [&](OpBuilder &, Location) {
              elected([&] { emitMma(); });
              scf::YieldOp::create(b);
            },
            [&](OpBuilder &, Location) {
              emitEpilogue();
              scf::YieldOp::create(b);
            });
        scf::YieldOp::create(b);
      });
  // Teardown: everyone meets, warp 1 frees the tensor memory.
  gpu::BarrierOp::create(b);
  ifThen(isMmaWarp, [&] {
    tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(b, tmemPointer(tmem), ncols);
  });
  gpu::ReturnOp::create(b);
  return func;
}

} // namespace

gpu::GPUFuncOp mlir::nvfp4::buildSM100BlockScaledGemmKernel(
    OpBuilder &builder, Location loc, gpu::GPUModuleOp module, StringRef name,
    const SM100GemmConfig &config) {
  ImplicitLocOpBuilder b(loc, builder);
  KernelBuilder kernel(b, config);
  return kernel.build(module, name);
}
