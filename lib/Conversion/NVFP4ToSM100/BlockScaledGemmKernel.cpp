//===- BlockScaledGemmKernel.cpp - the sm_100a tcgen05 GEMM
//----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Builds the kernel described in BlockScaledGemmKernel.h out of NVVM ops
// (tcgen05.*, cp.async.bulk(.tensor), mbarrier). The op spellings, the
// descriptor encodings and the TMEM layout follow the PTX ISA tcgen05
// sections (instruction and shared-memory descriptors, TMEM addressing), as
// python/nvfp4_testing/ptx_decode.py decodes them; the single-tile
// prototypes that were compiled and decoded first are summarised in
// docs/design/findings.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToSM100/BlockScaledGemmKernel.h"

#include "nvfp4/Dialect/NVFP4/Utils/KernelEmitter.h"
#include "nvfp4/Dialect/NVFP4/Utils/TileSchedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

using namespace mlir;
using namespace mlir::nvfp4;

uint32_t SM100GemmConfig::instructionDescriptor(int64_t sfId) const {
  // Bits (PTX ISA, "Instruction descriptor format for .kind::mxf4 and
  // .kind::mxf4nvf4"): 4-5 SFB id, 7-9 A type (E2M1 = 1), 10-11 B type
  // (E2M1 = 1), 17-22 N >> 3, 23 scale type (UE8M0 = 1, UE4M3 = 0),
  // 27-28 M >> 7, 29-30 SFA id. Both operands K-major, no negation, dense.
  uint32_t v = 0;
  v |= static_cast<uint32_t>(sfId & 3) << 4;
  v |= 1u << 7;
  v |= 1u << 10;
  v |= static_cast<uint32_t>(tokenTile >> 3) << 17;
  if (mxfp4)
    v |= 1u << 23;
  v |= static_cast<uint32_t>(kSM100TileRows >> 7) << 27;
  v |= static_cast<uint32_t>(sfId & 3) << 29;
  return v;
}

nvgpu::TensorMapDescriptorType mlir::nvfp4::sm100CodesMapType(MLIRContext *ctx,
                                                              int64_t boxRows) {
  // A byte view: nvgpu cannot express CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B
  // (test/Canary/nvgpu-tma-fp4-datatype.mlir), and UINT8 moves the same
  // packed bytes.
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return nvgpu::TensorMapDescriptorType::get(
      ctx,
      MemRefType::get({boxRows, 128}, IntegerType::get(ctx, 8),
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

/// Shared-memory layout (byte offsets from the 1024-aligned base).
struct SharedLayout {
  int64_t weights, tokens, weightScales, tokenScales; // stage 0 of each ring
  int64_t full, empty, accFull, accEmpty, tmemSlot;

  explicit SharedLayout(const SM100GemmConfig &cfg) {
    int64_t s = cfg.stages;
    weights = 0;
    tokens = weights + s * cfg.weightBytes();
    weightScales = tokens + s * cfg.tokenBytes();
    tokenScales = weightScales + s * cfg.weightScaleBytes();
    full = tokenScales + s * cfg.tokenScaleBytes();
    empty = full + 8 * s;
    accFull = empty + 8 * s;
    accEmpty = accFull + 16;
    tmemSlot = accEmpty + 16;
  }
};

class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, const SM100GemmConfig &cfg)
      : e(b, loc), b(b), loc(loc), cfg(cfg), layout(cfg) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name);

private:
  // Addresses: shared (i32 offsets in the CTA window), TMEM (i32).
  Value i32(Value index) {
    return arith::IndexCastOp::create(b, loc, e.i32, index);
  }
  Value c32(int64_t v) { return e.ci(e.i32, v); }
  Value shared(int64_t offset, Value dynamic = Value()) {
    Value a = arith::AddIOp::create(b, loc, base, c32(offset));
    return dynamic ? arith::AddIOp::create(b, loc, a, dynamic).getResult() : a;
  }
  Value sptr(Value addr) {
    return LLVM::IntToPtrOp::create(b, loc,
                                    LLVM::LLVMPointerType::get(e.ctx, 3), addr);
  }
  Value tptr(Value addr) {
    return LLVM::IntToPtrOp::create(b, loc,
                                    LLVM::LLVMPointerType::get(e.ctx, 6), addr);
  }
  Value arithAdd(Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value barrier(int64_t offset, Value index) {
    return sptr(
        shared(offset, arith::MulIOp::create(b, loc, i32(index), c32(8))));
  }
  void waitParity(Value bar, Value parity /*index 0/1*/) {
    NVVM::MBarrierTryWaitParityOp::create(b, loc, bar, i32(parity),
                                          c32(10000000));
  }
  /// tcgen05 shared-memory matrix descriptor; the op ORs in the version
  /// bit but does not shift: pass addresses and offsets >> 4.
  Value smemDesc(Value addr, int64_t lbo, int64_t sbo, int64_t swizzle) {
    return NVVM::Tcgen05MmaSmemDescOp::create(
        b, loc, e.i64, arith::ShRUIOp::create(b, loc, addr, c32(4)),
        c32(lbo >> 4), c32(sbo >> 4), e.ci(e.i8, 0),
        arith::ConstantIntOp::create(b, loc, e.i1, 0), e.ci(e.i8, swizzle));
  }

  // Per-tile operand coordinates.
  struct TileOperands {
    ScheduledTile tile;
    Value tokenMap, weightMap;     // !llvm.ptr
    Value tokenCodeRow, weightRow; // index: map rows of the tiles' first rows
    Value tokenScaleBase;          // i64: the group's first scale unit
    Value tokenScaleBlock;         // index: first 128-row block of the tile
    Value tokenScaleBlocks;        // index: the group's blocks (valid)
    Value weightScaleBase;         // i64: unit (weight tile, 0)
  };
  TileOperands operandsOf(Value t);
  Value contiguousScaleBlockBase(Value g);

  void emitProducer();
  void emitMma();
  void emitEpilogue();
  Value alphaOf(Value g);

  Emitter e;
  OpBuilder &b;
  Location loc;
  const SM100GemmConfig &cfg;
  SharedLayout layout;
  KernelArgs args;
  TileSpace space;
  std::optional<TileSchedule> schedule;
  Value base; // i32: the aligned shared-memory base
  Value tmem; // i32: the TMEM allocation (read after the allocation)
  Value warp, lane;
};

Value KernelBuilder::contiguousScaleBlockBase(Value g) {
  // The repacked token scales start each group at a 128-row block: group g
  // begins after sum_{h < g} ceil(rows_h / 128) blocks.
  auto loop = scf::ForOp::create(
      b, loc, e.c(0), g, e.c(1), ValueRange{e.c(0)},
      [&](OpBuilder &, Location, Value h, ValueRange acc) {
        Value blocks =
            e.divu(e.add(schedule->groupRows(h), e.c(127)), e.c(128));
        scf::YieldOp::create(b, loc, ValueRange{e.add(acc[0], blocks)});
      });
  return loop.getResult(0);
}

KernelBuilder::TileOperands KernelBuilder::operandsOf(Value t) {
  TileOperands ops;
  ops.tile = schedule->tile(t);
  const ScheduledTile &tile = ops.tile;
  Value g = tile.group;
  Value local = e.sub(tile.rowStart, tile.rowBase);
  int64_t unitBytes = cfg.unitCols() * 512; // one 128-row block of scales
  ops.tokenMap = schedule->pick(args.tokenMaps, g);
  ops.weightMap = schedule->pick(args.weightMaps, g);
  Value tokenScales = schedule->pick(args.tokenScales, g);
  Value weightScales = schedule->pick(args.weightScales, g);
  Value groupBlocks = e.divu(e.add(schedule->groupRows(g), e.c(127)), e.c(128));
  Value firstBlock; // the group's first block in its scale tensor
  switch (cfg.mode) {
  case Grouping::independent:
    ops.tokenCodeRow = local;
    firstBlock = e.c(0);
    ops.tokenScaleBlocks = groupBlocks;
    break;
  case Grouping::contiguous:
    ops.tokenCodeRow = tile.rowStart;
    firstBlock = contiguousScaleBlockBase(g);
    ops.tokenScaleBlocks = groupBlocks;
    break;
  case Grouping::masked:
    ops.tokenCodeRow = tile.rowStart;
    firstBlock = e.mul(g, e.c(ceilDiv(cfg.maxRows, 128)));
    ops.tokenScaleBlocks = e.c(ceilDiv(cfg.maxRows, 128));
    break;
  }
  ops.tokenScaleBase =
      e.add(tokenScales, e.toI64(e.mul(firstBlock, e.c(unitBytes))));
  ops.tokenScaleBlock = e.divu(local, e.c(128));
  // Weights: stacked [G, N, K] operands are one map of G * N rows.
  Value weightRow0 = e.mul(tile.weightTile, e.c(kSM100TileRows));
  ops.weightRow = cfg.stackedWeights() ? e.add(e.mul(g, e.c(cfg.n)), weightRow0)
                                       : weightRow0;
  Value weightGroupBase =
      cfg.stackedWeights()
          ? e.toI64(e.mul(g, e.c(cfg.weightTiles() * unitBytes)))
          : e.toI64(e.c(0));
  ops.weightScaleBase = e.add(e.add(weightScales, weightGroupBase),
                              e.toI64(e.mul(tile.weightTile, e.c(unitBytes))));
  return ops;
}

//===----------------------------------------------------------------------===//
// Warp 0: TMA producer
//===----------------------------------------------------------------------===//

void KernelBuilder::emitProducer() {
  // One elected lane: for every tile of this CTA and every K stage, wait
  // until the MMAs released the stage, expect its bytes, and issue the TMA
  // of both FP4 tiles and the bulk copies of their scale units.
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value total = schedule->totalTiles();
  int64_t units = cfg.unitsPerStage();
  scf::ForOp::create(
      b, loc, bid, total, grid, ValueRange{e.c(0)},
      [&](OpBuilder &, Location, Value t, ValueRange it0) {
        TileOperands ops = operandsOf(t);
        auto kloop = scf::ForOp::create(
            b, loc, e.c(0), e.c(cfg.kStages()), e.c(1), it0,
            [&](OpBuilder &, Location, Value ks, ValueRange it) {
              Value s = e.remu(it[0], e.c(cfg.stages));
              Value phase = e.remu(e.divu(it[0], e.c(cfg.stages)), e.c(2));
              Value full = barrier(layout.full, s);
              // A fresh barrier passes a wait on parity 1: the first round
              // does not wait.
              waitParity(barrier(layout.empty, s), e.sub(e.c(1), phase));
              // Scale units of this stage: the last stage may have fewer
              // (K not a multiple of 256); blocks past the token operand
              // have none.
              Value firstUnit = e.mul(ks, e.c(units));
              Value nUnits =
                  e.minsi(e.c(units), e.sub(e.c(cfg.unitCols()), firstUnit));
              Value unitBytes = e.mul(nUnits, e.c(512));
              SmallVector<Value> tokenBlockOk;
              Value bytes =
                  e.add(e.c(cfg.weightBytes() + cfg.tokenBytes()), unitBytes);
              for (int64_t rb = 0; rb < cfg.tokenScaleBlocks(); ++rb) {
                Value ok = e.lt(e.add(ops.tokenScaleBlock, e.c(rb)),
                                ops.tokenScaleBlocks);
                tokenBlockOk.push_back(ok);
                bytes = e.add(bytes, e.select(ok, unitBytes, e.c(0)));
              }
              NVVM::MBarrierArriveExpectTxOp::create(
                  b, loc, Type(), full, i32(bytes), NVVM::MemScopeKind::CTA,
                  /*relaxed=*/false, Value());
              // The FP4 tiles: 128-byte rows of K (256 values), 128B
              // swizzle; rows and K past the operand are zero-filled.
              Value kx = i32(e.mul(ks, e.c(128)));
              auto tma = [&](int64_t ringOffset, int64_t stageBytes, Value map,
                             Value row) {
                Value dst =
                    sptr(shared(ringOffset, i32(e.mul(s, e.c(stageBytes)))));
                NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                    b, loc, dst, map, ValueRange{kx, i32(row)}, full,
                    ValueRange{}, Value(), Value(),
                    NVVM::TMALoadModeAttr::get(e.ctx, NVVM::TMALoadMode::TILE),
                    b.getBoolAttr(true), NVVM::CTAGroupKindAttr(), Value());
              };
              tma(layout.weights, cfg.weightBytes(), ops.weightMap,
                  ops.weightRow);
              tma(layout.tokens, cfg.tokenBytes(), ops.tokenMap,
                  ops.tokenCodeRow);
              // The scale units: `units` consecutive 512-byte units of each
              // 128-row block (the swizzled layout orders them along K).
              auto bulk = [&](Value dstAddr, Value src) {
                Value srcPtr =
                    LLVM::IntToPtrOp::create(b, loc, e.globalPtr, src);
                NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
                    b, loc, sptr(dstAddr), srcPtr, full, i32(unitBytes),
                    Value(), Value());
              };
              Value unitOffset = e.toI64(e.mul(firstUnit, e.c(512)));
              bulk(shared(layout.weightScales,
                          i32(e.mul(s, e.c(cfg.weightScaleBytes())))),
                   e.add(ops.weightScaleBase, unitOffset));
              for (int64_t rb = 0; rb < cfg.tokenScaleBlocks(); ++rb) {
                e.ifThen(tokenBlockOk[rb], [&] {
                  Value block = e.add(ops.tokenScaleBlock, e.c(rb));
                  Value src = e.add(
                      e.add(ops.tokenScaleBase,
                            e.toI64(e.mul(block, e.c(cfg.unitCols() * 512)))),
                      unitOffset);
                  bulk(shared(layout.tokenScales,
                              i32(e.add(e.mul(s, e.c(cfg.tokenScaleBytes())),
                                        e.c(rb * units * 512)))),
                       src);
                });
              }
              scf::YieldOp::create(b, loc, ValueRange{e.add(it[0], e.c(1))});
            });
        scf::YieldOp::create(b, loc, kloop.getResults());
      });
}

//===----------------------------------------------------------------------===//
// Warp 1: MMA issuer
//===----------------------------------------------------------------------===//

void KernelBuilder::emitMma() {
  // One elected lane. Tile i of this CTA accumulates into TMEM buffer
  // i % accBuffers, once the epilogue has emptied it.
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value total = schedule->totalTiles();
  int64_t units = cfg.unitsPerStage();
  int64_t nbuf = cfg.accBuffers();
  auto kind = cfg.mxfp4 ? NVVM::MMABlockScaleKind::MXF4
                        : NVVM::MMABlockScaleKind::MXF4NVF4;
  auto blockScale = cfg.mxfp4 ? NVVM::Tcgen05MMABlockScale::BLOCK32
                              : NVVM::Tcgen05MMABlockScale::BLOCK16;
  int64_t scaleColsPerStage = cfg.weightScaleCols() + cfg.tokenScaleCols();
  int64_t scaleCol0 = nbuf * cfg.tokenTile;
  scf::ForOp::create(
      b, loc, bid, total, grid, ValueRange{e.c(0), e.c(0)},
      [&](OpBuilder &, Location, Value t, ValueRange st) {
        Value it0 = st[0], i = st[1];
        ScheduledTile tile = schedule->tile(t);
        Value buf = e.remu(i, e.c(nbuf));
        Value accPhase = e.remu(e.divu(i, e.c(nbuf)), e.c(2));
        // Wait for the epilogue to have read this buffer (fresh: passes).
        waitParity(barrier(layout.accEmpty, buf), e.sub(e.c(1), accPhase));
        NVVM::Tcgen05FenceOp::create(b, loc,
                                     NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
        Value acc = tptr(arithAdd(tmem, i32(e.mul(buf, e.c(cfg.tokenTile)))));
        // 64-token tiles read half of a 128-row scale block: the MMA's
        // token scales start 0 or 2 columns into it ((row % 128) / 32).
        Value tokenScaleShift = c32(0);
        if (cfg.tokenTile < 128)
          tokenScaleShift = i32(e.divu(
              e.remu(e.sub(tile.rowStart, tile.rowBase), e.c(128)), e.c(32)));
        auto kloop = scf::ForOp::create(
            b, loc, e.c(0), e.c(cfg.kStages()), e.c(1), ValueRange{it0},
            [&](OpBuilder &, Location, Value ks, ValueRange itv) {
              Value it = itv[0];
              Value s = e.remu(it, e.c(cfg.stages));
              Value phase = e.remu(e.divu(it, e.c(cfg.stages)), e.c(2));
              waitParity(barrier(layout.full, s), phase);
              NVVM::Tcgen05FenceOp::create(
                  b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
              // Scale units -> this stage's own TMEM columns (a copy never
              // overwrites scales an earlier, still running MMA reads).
              Value stageCol = arithAdd(
                  tmem,
                  i32(e.add(e.c(scaleCol0), e.mul(s, e.c(scaleColsPerStage)))));
              Value weightCol = stageCol;
              Value tokenCol = arithAdd(stageCol, c32(cfg.weightScaleCols()));
              Value weightScales =
                  shared(layout.weightScales,
                         i32(e.mul(s, e.c(cfg.weightScaleBytes()))));
              Value tokenScales =
                  shared(layout.tokenScales,
                         i32(e.mul(s, e.c(cfg.tokenScaleBytes()))));
              Value firstUnit = e.mul(ks, e.c(units));
              auto copy = [&](Value tcol, Value smemAddr) {
                // One 512-byte unit (128 rows x 4 bytes, 32 rows of 16 B)
                // -> 4 columns, replicated to the 4 lane quarters.
                NVVM::Tcgen05CpOp::create(
                    b, loc, NVVM::Tcgen05CpShape::SHAPE_32x128b,
                    NVVM::CTAGroupKind::CTA_1, NVVM::Tcgen05CpMulticast::WARPX4,
                    NVVM::Tcgen05CpSrcFormatAttr(), tptr(tcol),
                    smemDesc(smemAddr, 0, 128, 0));
              };
              for (int64_t u = 0; u < units; ++u) {
                e.ifThen(
                    e.lt(e.add(firstUnit, e.c(u)), e.c(cfg.unitCols())), [&] {
                      copy(arithAdd(weightCol, c32(4 * u)),
                           arithAdd(weightScales, c32(512 * u)));
                      for (int64_t rb = 0; rb < cfg.tokenScaleBlocks(); ++rb)
                        copy(
                            arithAdd(
                                tokenCol,
                                c32(4 * (u * cfg.tokenScaleBlocks() + rb))),
                            arithAdd(tokenScales, c32(512 * (rb * units + u))));
                    });
              }
              // 4 MMAs of K = 64: descriptors +32 bytes (+2 encoded) along
              // the 128-byte swizzle row; the first of the tile overwrites.
              Value weightDesc = smemDesc(
                  shared(layout.weights, i32(e.mul(s, e.c(cfg.weightBytes())))),
                  16, 1024, 2);
              Value tokenDesc = smemDesc(
                  shared(layout.tokens, i32(e.mul(s, e.c(cfg.tokenBytes())))),
                  16, 1024, 2);
              for (int64_t j = 0; j < kSM100StageK / kSM100MmaK; ++j) {
                Value step = e.add(e.mul(ks, e.c(4)), e.c(j));
                e.ifThen(e.lt(step, e.c(cfg.mmaSteps())), [&] {
                  // NVFP4 (block16): unit j, scale id 0. MXFP4 (block32):
                  // one unit covers K = 128, id 0 / 2 picks its half.
                  int64_t u = cfg.mxfp4 ? j / 2 : j;
                  int64_t sfId = cfg.mxfp4 ? 2 * (j % 2) : 0;
                  Value adesc = j ? arith::AddIOp::create(b, loc, weightDesc,
                                                          e.ci(e.i64, 2 * j))
                                        .getResult()
                                  : weightDesc;
                  Value bdesc = j ? arith::AddIOp::create(b, loc, tokenDesc,
                                                          e.ci(e.i64, 2 * j))
                                        .getResult()
                                  : tokenDesc;
                  Value accumulate =
                      e.cmp(arith::CmpIPredicate::ne, step, e.c(0));
                  Value sfa = tptr(arithAdd(weightCol, c32(4 * u)));
                  Value sfb = tptr(arithAdd(
                      arithAdd(tokenCol, c32(4 * u * cfg.tokenScaleBlocks())),
                      tokenScaleShift));
                  NVVM::Tcgen05MMABlockScaleOp::create(
                      b, loc, kind, NVVM::CTAGroupKind::CTA_1, blockScale,
                      NVVM::Tcgen05MMACollectorOp::DISCARD, acc, adesc, bdesc,
                      c32(cfg.instructionDescriptor(sfId)), accumulate, sfa,
                      sfb);
                });
              }
              // The stage is free once these MMAs complete.
              NVVM::Tcgen05CommitOp::create(b, loc, barrier(layout.empty, s),
                                            Value());
              scf::YieldOp::create(b, loc, ValueRange{e.add(it, e.c(1))});
            });
        NVVM::Tcgen05CommitOp::create(b, loc, barrier(layout.accFull, buf),
                                      Value());
        scf::YieldOp::create(b, loc,
                             ValueRange{kloop.getResult(0), e.add(i, e.c(1))});
      });
}

//===----------------------------------------------------------------------===//
// Warps 2-5: epilogue
//===----------------------------------------------------------------------===//

Value KernelBuilder::alphaOf(Value g) {
  return emitGroupAlpha(e, cfg, args.aDecode, args.bDecode, args.alpha, g);
}

void KernelBuilder::emitEpilogue() {
  // Thread (warp w, lane l) owns TMEM lane 32 (w % 4) + l: weight row n of
  // the tile. tcgen05.ld 32x32b.x32 gives it 32 consecutive tokens; C is
  // [token][n], so the warp's stores of one token are 32 consecutive n.
  Value quarter = e.remu(warp, e.c(4));
  Value tileLane = e.add(e.mul(quarter, e.c(32)), lane);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value total = schedule->totalTiles();
  int64_t nbuf = cfg.accBuffers();
  unsigned outBytes = cfg.outElement.getIntOrFloatBitWidth() / 8;
  Value laneBits = c32(0);
  laneBits =
      arith::ShLIOp::create(b, loc, i32(e.mul(quarter, e.c(32))), c32(16));
  scf::ForOp::create(
      b, loc, bid, total, grid, ValueRange{e.c(0)},
      [&](OpBuilder &, Location, Value t, ValueRange st) {
        Value i = st[0];
        ScheduledTile tile = schedule->tile(t);
        Value buf = e.remu(i, e.c(nbuf));
        Value accPhase = e.remu(e.divu(i, e.c(nbuf)), e.c(2));
        waitParity(barrier(layout.accFull, buf), accPhase);
        NVVM::Tcgen05FenceOp::create(b, loc,
                                     NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
        Value n = e.add(e.mul(tile.weightTile, e.c(kSM100TileRows)), tileLane);
        Value nOk = e.lt(n, e.c(cfg.n));
        Value alpha = alphaOf(tile.group);
        Value outBase = schedule->pick(args.outputs, tile.group);
        Value accBase =
            cfg.hasAcc ? schedule->pick(args.accs, tile.group) : Value();
        Value outRowBase =
            cfg.mode == Grouping::independent ? tile.rowBase : e.c(0);
        Value accCol = arithAdd(arithAdd(tmem, laneBits),
                                i32(e.mul(buf, e.c(cfg.tokenTile))));
        auto vec32 = VectorType::get({32}, e.i32);
        for (int64_t chunk = 0; chunk < cfg.tokenTile / 32; ++chunk) {
          Value raw = NVVM::Tcgen05LdOp::create(
              b, loc, vec32, /*pack=*/false,
              NVVM::Tcgen05LdStShape::SHAPE_32X32B,
              tptr(arithAdd(accCol, c32(32 * chunk))), Value());
          NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::LOAD);
          for (int64_t j = 0; j < 32; ++j) {
            Value token = e.add(tile.rowStart, e.c(32 * chunk + j));
            Value ok = e.land(nOk, e.lt(token, tile.rowEnd));
            Value bits = vector::ExtractOp::create(b, loc, raw, j);
            Value v =
                e.fmul(LLVM::BitcastOp::create(b, loc, e.f32, bits).getResult(),
                       alpha);
            e.ifThen(ok, [&] {
              Value offset =
                  e.add(e.mul(e.sub(token, outRowBase), e.c(cfg.n)), n);
              Value byteOffset = e.mul(offset, e.c(outBytes));
              Value out = v;
              if (cfg.hasAcc) {
                Value cin = e.load(cfg.outElement, e.gep(accBase, byteOffset),
                                   outBytes);
                if (!cfg.outElement.isF32())
                  cin = arith::ExtFOp::create(b, loc, e.f32, cin);
                out = e.fadd(out, e.fmul(e.cf(cfg.beta), cin));
              }
              if (!cfg.outElement.isF32())
                out = arith::TruncFOp::create(b, loc, cfg.outElement, out);
              LLVM::StoreOp::create(b, loc, out, e.gep(outBase, byteOffset),
                                    outBytes);
            });
          }
        }
        // Hand the buffer back to the MMA warp: one arrival per warp.
        NVVM::Tcgen05FenceOp::create(
            b, loc, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
        e.ifThen(e.eq(lane, e.c(0)), [&] {
          NVVM::MBarrierArriveOp::create(
              b, loc, Type(), barrier(layout.accEmpty, buf), Value());
        });
        scf::YieldOp::create(b, loc, ValueRange{e.add(i, e.c(1))});
      });
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

gpu::GPUFuncOp KernelBuilder::build(gpu::GPUModuleOp module, StringRef name) {
  MLIRContext *ctx = e.ctx;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  std::string smemName = (name + "_smem").str();
  declareDynamicShared(b, loc, smemName);

  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> argTypes(2 * cfg.operandPointers(), ptrType);
  int64_t numI64 = 2 * cfg.operandPointers() + EpilogueArgs::count(cfg);
  argTypes.append(numI64, e.i64);
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     FunctionType::get(ctx, argTypes, {}));
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
  space.mode = cfg.mode;
  space.groups = cfg.groups;
  space.rowsPerGroup = cfg.rowsPerGroup;
  space.maxRows = cfg.maxRows;
  space.tokenTile = cfg.tokenTile;
  space.weightTiles = cfg.weightTiles();
  schedule.emplace(b, loc, space, args.groupInfo);

  // The aligned base of the ring and the barriers.
  base = i32(emitDynamicShared(b, loc, smemName, cfg.sharedBytes()).second);

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  warp = e.divu(tid, e.c(32));
  lane = e.remu(tid, e.c(32));
  // Barriers (thread 0): full[s] <- the producer's expect_tx + TMA bytes;
  // empty[s] and accFull[b] <- one tcgen05.commit; accEmpty[b] <- the 4
  // epilogue warps.
  e.ifThen(e.eq(tid, e.c(0)), [&] {
    for (int64_t s = 0; s < cfg.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, barrier(layout.full, e.c(s)), c32(1),
                                   Value());
      NVVM::MBarrierInitOp::create(b, loc, barrier(layout.empty, e.c(s)),
                                   c32(1), Value());
    }
    for (int64_t buf = 0; buf < 2; ++buf) {
      NVVM::MBarrierInitOp::create(b, loc, barrier(layout.accFull, e.c(buf)),
                                   c32(1), Value());
      NVVM::MBarrierInitOp::create(b, loc, barrier(layout.accEmpty, e.c(buf)),
                                   c32(4), Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  });
  // Tensor memory: warp 1 allocates (the whole warp) and gives up the
  // allocation permit; everyone reads the address after the barrier.
  Value isMmaWarp = e.eq(warp, e.c(1));
  Value slot = sptr(shared(layout.tmemSlot));
  Value ncols = c32(cfg.tmemColumns());
  e.ifThen(isMmaWarp, [&] {
    NVVM::Tcgen05AllocOp::create(b, loc, slot, ncols);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc);
  });
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  NVVM::Barrier0Op::create(b, loc);
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  tmem = LLVM::LoadOp::create(b, loc, e.i32, slot, 4);

  // Roles. Warps 0 and 1 work on one elected lane; the others wait at the
  // final barrier.
  auto elected = [&](function_ref<void()> body) {
    Value one = NVVM::ElectSyncOp::create(b, loc, e.i1, Value());
    e.ifThen(one, body);
  };
  scf::IfOp::create(
      b, loc, e.eq(warp, e.c(0)),
      [&](OpBuilder &, Location) {
        elected([&] { emitProducer(); });
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &, Location) {
        scf::IfOp::create(
            b, loc, isMmaWarp,
            [&](OpBuilder &, Location) {
              elected([&] { emitMma(); });
              scf::YieldOp::create(b, loc);
            },
            [&](OpBuilder &, Location) {
              emitEpilogue();
              scf::YieldOp::create(b, loc);
            });
        scf::YieldOp::create(b, loc);
      });
  // Teardown: everyone meets, warp 1 frees the tensor memory.
  NVVM::Barrier0Op::create(b, loc);
  e.ifThen(isMmaWarp, [&] {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(b, loc, tptr(tmem), ncols);
  });
  gpu::ReturnOp::create(b, loc);
  return func;
}

} // namespace

gpu::GPUFuncOp mlir::nvfp4::buildSM100BlockScaledGemmKernel(
    OpBuilder &b, Location loc, gpu::GPUModuleOp module, StringRef name,
    const SM100GemmConfig &config) {
  KernelBuilder builder(b, loc, config);
  return builder.build(module, name);
}
