//===- GroupedGemmKernel.cpp - the sm_90a block-scaled GEMM kernel --------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Builds the persistent, warp-specialised RS-wgmma kernel described in
// GroupedGemmKernel.h and docs/design/sm90-gemm.md out of nvfp4k ops (the
// ring, the scheduler, the loads, the MMA step, the epilogue) and upstream
// gpu/nvgpu/nvvm ops. Nothing here computes a barrier phase, decodes a
// tile or writes PTX: the nvfp4k lowering owns those.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToSM90/GroupedGemmKernel.h"
#include "nvfp4/Conversion/GPUCommon/DependentLaunch.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// The kernel's runtime arguments, named.
struct KernelArgs : EpilogueArgs {
  /// The token operand's tensor map, and what its source needs besides:
  /// the FP4 tokens' swizzled scales; the quantized tokens' scale source
  /// (amax bits or the given scale) and seed.
  Value tokenMap, tokenScales, scaleSource, seed;
  SmallVector<Value> weightMaps, scales;
  /// Stream-K: the partial accumulators and the tiles' arrival flags.
  Value workspace, flags;
};

/// A work unit of this CTA (nvfp4k.scheduler.unit) with its tile decoded.
struct Unit {
  /// The unit's index among this CTA's units, and their count.
  Value index, units;
  Value kBegin, kEnd, position;
  mutable nvfp4k::SchedulerTileOp tile;
  Value group() const { return tile.getGroup(); }
  Value rowStart() const { return tile.getRowStart(); }
  Value tileEnd() const { return tile.getTileEnd(); }
};

class KernelBuilder : KernelArith {
public:
  KernelBuilder(ImplicitLocOpBuilder &b, const SM90GemmConfig &cfg)
      : KernelArith(b), cfg(cfg), ctx(b.getContext()) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name);

private:
  /// A view of `type` at byte `offset` of the stage `stage`.
  Value stageView(Value stage, int64_t offset, Type type) {
    Value at = add(mul(stage, c(cfg.stageBytes())), c(offset));
    return memref::ViewOp::create(b, type, smem, at, ValueRange{});
  }
  Value asMap(Value ptr, Type mapType) {
    return UnrealizedConversionCastOp::create(b, mapType, ptr).getResult(0);
  }
  /// wgmma N of each tile width the consumers instantiate (granule steps
  /// up to the token tile).
  SmallVector<int64_t> tileWidths() const {
    SmallVector<int64_t> widths;
    for (int64_t n = cfg.granule; n < cfg.tokenTile; n += cfg.granule)
      widths.push_back(n);
    widths.push_back(cfg.tokenTile);
    return widths;
  }
  /// Byte offsets inside a stage.
  int64_t weightsOffset() const { return cfg.tokenBytes(); }
  int64_t scalesOffset() const { return weightsOffset() + cfg.weightBytes(); }
  int64_t rawOffset() const { return scalesOffset() + cfg.scaleBytes(); }
  /// The stage's token operand (the wgmma B tile), [tokenTile, 128] of
  /// the MMA's element type (f16, or bf16: weight-only bf16 activations).
  Type tokenTileType() {
    return shared({cfg.tokenTile, kSM90StageK}, cfg.mmaElement(b.getContext()));
  }

  /// Runs `body` for each work unit of this CTA, in order.
  void forEachUnit(function_ref<void(const Unit &)> body);
  /// The ring position of K block `kb` of unit `u`.
  Value position(const Unit &u, Value kb) {
    return add(u.position, sub(kb, u.kBegin));
  }
  /// Runs `body(kb, i)` over the unit's K blocks and their ring positions.
  void forEachBlock(const Unit &u, function_ref<void(Value, Value)> body) {
    scf::ForOp::create(b, u.kBegin, u.kEnd, c(1), ValueRange{},
                       [&](OpBuilder &, Location, Value kb, ValueRange) {
                         body(kb, position(u, kb));
                         scf::YieldOp::create(b);
                       });
  }

  /// FP4 tokens: the row of the token operand's scales that token-matrix
  /// row `row` of group `g` is, and the byte offset of its 128-row tile in
  /// the swizzled scales ([B?, RT, CT, 32, 4, 4]; masked groups are batch
  /// entries of maxRows rows).
  std::pair<Value, Value> tokenScaleRow(Value g, Value row) {
    int64_t unitBytes = cfg.scaleRowTileBytes();
    if (cfg.mode != Grouping::masked)
      return {row, mul(divu(row, c(128)), c(unitBytes))};
    Value local = sub(row, mul(g, c(cfg.maxRows)));
    int64_t entryTiles = ceilDiv(cfg.maxRows, 128);
    return {local,
            mul(add(mul(g, c(entryTiles)), divu(local, c(128))), c(unitBytes))};
  }

  void emitProducer();
  void emitIssuer();
  void emitConverter(Value thread);
  /// The 16 f16 token values of chunk q of row r of the stage (r inside
  /// the tile's rows, the chunk inside K); `scales` are the fused
  /// quantize's per-tensor values for the unit's group (quantized tokens).
  Value convertChunk(const Unit &u, Value stage, Value kb, Value r, Value q,
                     const TensorScales *scales);
  /// Quantized tokens: the fused quantize's S_enc, S_dec and decode scale
  /// of group g's batch entry (masked groups; the one tensor's otherwise),
  /// from the scale source.
  TensorScales tokenScales(Value g);
  Value emitQuantizedChunk(const Unit &u, Value stage, Value kb, Value r,
                           Value q, const TensorScales &scales);

  void emitConsumer(Value warpgroup);
  /// A thread that does not call nvfp4k.scheduler.cluster_sum: it passes
  /// the cluster barrier's first phase and arrives at its second.
  void emitClusterPass() {
    NVVM::ClusterWaitOp::create(b, /*aligned=*/UnitAttr());
    NVVM::ClusterArriveOp::create(b, /*aligned=*/UnitAttr());
  }
  void emitEpilogue(Value acc, ValueRange tile, Value warpgroup, Value warp,
                    Value lane);
  /// The global pointer of an i64 device address.
  Value globalPointer(Value address) {
    return LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(ctx, 1),
                                    address);
  }
  /// A fused output quantize's S_enc and S_dec, from its given encode or
  /// decode scale (written before the launch: an invariant load).
  std::pair<Value, Value> outputGlobalScales() {
    Value given = LLVM::LoadOp::create(
        b, b.getF32Type(), globalPointer(args.quantScale), /*alignment=*/4,
        /*isVolatile=*/false, /*isNonTemporal=*/false, /*isInvariant=*/true);
    nvfp4::NumericsBuilder numerics(b, b.getLoc(), b.getF32Type());
    return cfg.outputQuantize->encode ? numerics.givenEncodeScale(given)
                                      : numerics.givenDecodeScale(given);
  }
  /// One thread's two outputs of an epilogue: the accumulators, their
  /// token-matrix row (from the group's first), first column and alpha.
  struct EpiloguePair {
    Value values, row, column, alpha;
  };
  /// The epilogue of a fused output quantize: codes and scales of the
  /// pairs' results.
  void emitOutputQuantize(ArrayRef<EpiloguePair> pairs, Value out, Value rows,
                          Value bias, Value accIn, Value warpgroup, Value warp,
                          Value lane, Value rowStart, Value rowBase,
                          Value weightTile);

  const SM90GemmConfig &cfg;
  MLIRContext *ctx;
  KernelArgs args;
  Value smem, ring, convertedRing, scheduler;
  /// This CTA, the grid and the scheduler's tile count.
  Value bid, grid, count;
  Type tokenMapType, weightMapType;
};

void KernelBuilder::forEachUnit(function_ref<void(const Unit &)> body) {
  Value units =
      nvfp4k::SchedulerUnitsOp::create(b, scheduler, bid, grid, count);
  // The units' tiles increase: each decode starts its group walk where the
  // previous unit's ended (the cursor: group and its first tile, carried in
  // i32: as index values they cost the 40-register TMA issuer a spill).
  scf::ForOp::create(
      b, c(0), units, c(1), ValueRange{c32(0), c32(0)},
      [&](OpBuilder &, Location, Value u, ValueRange cursor) {
        auto unit =
            nvfp4k::SchedulerUnitOp::create(b, scheduler, u, bid, grid, count);
        auto tile = nvfp4k::SchedulerTileOp::create(
            b, scheduler, unit.getTile(),
            ValueRange{toIndex(cursor[0]), toIndex(cursor[1])});
        body(Unit{u, units, unit.getKBegin(), unit.getKEnd(),
                  unit.getPosition(), tile});
        scf::YieldOp::create(
            b, ValueRange{toI32(tile.getGroup()), toI32(tile.getGroupFirst())});
      });
}

//===----------------------------------------------------------------------===//
// Producer warpgroup: one elected thread fills the ring; with converted
// tokens, warps 1-3 turn each stage's raw tokens into the B tile
//===----------------------------------------------------------------------===//

void KernelBuilder::emitProducer() {
  if (cfg.producerRegisters())
    NVVM::SetMaxRegisterOp::create(
        b, b.getI32IntegerAttr(cfg.producerRegisters()),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::decrease));
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value t128 = remu(tid, c(128));
  Value warpInGroup = divu(t128, c(32));
  if (!cfg.convertsTokens()) {
    ifThen(eq(warpInGroup, c(0)), [&] { emitIssuer(); });
    return;
  }
  scf::IfOp::create(
      b, eq(warpInGroup, c(0)),
      [&](OpBuilder &, Location) {
        emitIssuer();
        scf::YieldOp::create(b);
      },
      [&](OpBuilder &, Location) {
        emitConverter(sub(t128, c(32)));
        scf::YieldOp::create(b);
      });
}

void KernelBuilder::emitIssuer() {
  Value elected = NVVM::ElectSyncOp::create(b, b.getI1Type(), Value());
  ifThen(elected, [&] {
    Value tokenMap = asMap(args.tokenMap, tokenMapType);
    nvgpu::TmaPrefetchOp::create(b, tokenMap, Value());
    for (Value ptr : args.weightMaps)
      nvgpu::TmaPrefetchOp::create(b, asMap(ptr, weightMapType), Value());
    int64_t unitBytes = cfg.scaleRowTileBytes(); // 128 weight rows
    int64_t last = cfg.kStages() - 1;
    forEachUnit([&](const Unit &u) {
      Value g = u.group(), wt = u.tile.getWeightTile();
      // Independent groups: one map per group (chosen as a pointer).
      Value weightMap = asMap(pick(args.weightMaps, g), weightMapType);
      Value weightRow = mul(wt, c(kSM90TileRows));
      Value scaleBase = add(pick(args.scales, g), toI64(mul(wt, c(unitBytes))));
      if (cfg.stackedWeights()) {
        weightRow = add(weightRow, mul(g, c(cfg.n)));
        scaleBase = add(scaleBase, toI64(mul(g, c(cfg.nTiles() * unitBytes))));
      }
      // FP4 tokens: the scale units of the 128-row tiles that hold the
      // tile's first and last row (the same one, or two neighbours).
      Value tokenScale0, tokenScale1, twoTokenTiles;
      if (cfg.tokens == SM90TokenSource::fp4) {
        Value lastRow = sub(u.tileEnd(), c(1));
        Value first = tokenScaleRow(g, u.rowStart()).second;
        Value second = tokenScaleRow(g, lastRow).second;
        tokenScale0 = add(args.tokenScales, toI64(first));
        tokenScale1 = add(args.tokenScales, toI64(second));
        twoTokenTiles = cmp(arith::CmpIPredicate::ne, first, second);
      }
      forEachBlock(u, [&](Value kb, Value i) {
        nvfp4k::RingWaitEmptyOp::create(b, ring, i);
        // Every TMA box is whole (zeros past the operands); the last stage
        // may carry one scale unit instead of two.
        int64_t full = cfg.stageScaleUnits();
        Value units = c(full);
        if (cfg.stageUnits(last) != full)
          units = select(eq(kb, c(last)), c(cfg.stageUnits(last)), c(full));
        Value scaleBytes = mul(units, c(Swizzled128x4Attr::kUnitBytes));
        Value bytes = add(c(cfg.weightBytes()), scaleBytes);
        switch (cfg.tokens) {
        case SM90TokenSource::prepass:
          bytes = add(bytes, c(cfg.tokenBytes()));
          break;
        case SM90TokenSource::fp4:
          bytes = add(add(bytes, c(cfg.rawCodeBytes())),
                      mul(scaleBytes, select(twoTokenTiles, c(2), c(1))));
          break;
        case SM90TokenSource::quantize:
          bytes = add(bytes, c(cfg.rawInputBytes()));
          break;
        }
        nvfp4k::RingExpectTxOp::create(b, ring, i, bytes);
        Value s = nvfp4k::RingStageOp::create(b, ring, i);
        Value k0 = mul(kb, c(kSM90StageK));
        switch (cfg.tokens) {
        case SM90TokenSource::prepass: {
          auto atom =
              shared({cfg.tokenTile, 64}, cfg.mmaElement(b.getContext()));
          for (int64_t h = 0; h < 2; ++h)
            nvfp4k::TmaLoadOp::create(
                b, tokenMap, ValueRange{add(k0, c(64 * h)), u.rowStart()},
                stageView(s, h * cfg.tokenBytes() / 2, atom), ring, i);
          break;
        }
        case SM90TokenSource::fp4: {
          nvfp4k::TmaLoadOp::create(
              b, tokenMap,
              ValueRange{mul(kb, c(kSM90StageK / 2)), u.rowStart()},
              stageView(s, rawOffset(),
                        shared({cfg.tokenTile, kSM90StageK / 2},
                               b.getIntegerType(8, false))),
              ring, i);
          Value stageScales = toI64(mul(kb, c(cfg.scaleBytes())));
          auto units = shared({cfg.scaleBytes()}, b.getI8Type());
          int64_t at = rawOffset() + cfg.rawCodeBytes();
          nvfp4k::BulkLoadOp::create(b, add(tokenScale0, stageScales),
                                     stageView(s, at, units), scaleBytes, ring,
                                     i);
          ifThen(twoTokenTiles, [&] {
            nvfp4k::BulkLoadOp::create(
                b, add(tokenScale1, stageScales),
                stageView(s, at + cfg.scaleBytes(), units), scaleBytes, ring,
                i);
          });
          break;
        }
        case SM90TokenSource::quantize:
          nvfp4k::TmaLoadOp::create(
              b, tokenMap, ValueRange{k0, u.rowStart()},
              stageView(
                  s, rawOffset(),
                  shared({cfg.tokenTile, kSM90StageK}, cfg.quantize.element)),
              ring, i);
          break;
        }
        nvfp4k::TmaLoadOp::create(
            b, weightMap, ValueRange{mul(kb, c(kSM90StageK / 2)), weightRow},
            stageView(s, weightsOffset(),
                      shared({kSM90TileRows, kSM90StageK / 2},
                             b.getIntegerType(8, false))),
            ring, i);
        nvfp4k::BulkLoadOp::create(
            b, add(scaleBase, toI64(mul(kb, c(cfg.scaleBytes())))),
            stageView(s, scalesOffset(),
                      shared({cfg.scaleBytes()}, b.getI8Type())),
            scaleBytes, ring, i);
      });
    });
  });
}

void KernelBuilder::emitConverter(Value thread) {
  int64_t items = cfg.tokenTile * (kSM90StageK / 16);
  int64_t chunks = cfg.k / 16;
  auto f16x16 = VectorType::get({16}, b.getF16Type());
  Value zeros = arith::ConstantOp::create(
      b, DenseElementsAttr::get(f16x16, APFloat(APFloat::IEEEhalf(), "0")));
  forEachUnit([&](const Unit &u) {
    Value rows = sub(u.tileEnd(), u.rowStart());
    std::optional<TensorScales> scales;
    if (cfg.tokens == SM90TokenSource::quantize)
      scales = tokenScales(u.group());
    // The rows the MMA reads: the tile's, rounded up to the granule (the
    // wgmma N the consumers pick).
    Value width = mul(divu(add(rows, c(cfg.granule - 1)), c(cfg.granule)),
                      c(cfg.granule));
    Value widthItems = minsi(mul(width, c(kSM90StageK / 16)), c(items));
    forEachBlock(u, [&](Value kb, Value i) {
      nvfp4k::RingWaitFullOp::create(b, ring, i);
      Value s = nvfp4k::RingStageOp::create(b, ring, i);
      Value tile = stageView(s, 0, tokenTileType());
      // Item = (row r, chunk q of the K block); rows past the tile and
      // chunks past K are zero (a chunk past K may have no scale copied).
      scf::ForOp::create(
          b, thread, widthItems, c(kSM90ConverterThreads), ValueRange{},
          [&](OpBuilder &, Location, Value item, ValueRange) {
            Value r = divu(item, c(8)), q = remu(item, c(8));
            Value valid = arith::AndIOp::create(
                b, lt(r, rows), lt(add(mul(kb, c(8)), q), c(chunks)));
            auto values = scf::IfOp::create(b, TypeRange{f16x16}, valid,
                                            /*withElseRegion=*/true);
            {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPointToStart(&values.getThenRegion().front());
              scf::YieldOp::create(
                  b, convertChunk(u, s, kb, r, q, scales ? &*scales : nullptr));
              b.setInsertionPointToStart(&values.getElseRegion().front());
              scf::YieldOp::create(b, zeros);
            }
            nvfp4k::StoreTokensOp::create(b, values.getResult(0), tile, r, q);
            scf::YieldOp::create(b);
          });
      // The wgmmas read the tile through the asynchronous proxy.
      NVVM::FenceProxyOp::create(
          b, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      nvfp4k::RingArriveOp::create(b, convertedRing, i);
    });
  });
}

TensorScales KernelBuilder::tokenScales(Value g) {
  return cfg.quantize.load(b, args.scaleSource, args.seed,
                           cfg.mode == Grouping::masked ? g : c(0));
}

Value KernelBuilder::emitQuantizedChunk(const Unit &u, Value stage, Value kb,
                                        Value r, Value q,
                                        const TensorScales &scales) {
  const SM90TokenQuantize &fused = cfg.quantize;
  // The 16 input values of the chunk, from the raw [tokenTile, 128] box.
  auto box = shared({cfg.tokenTile * kSM90StageK}, fused.element);
  Value loaded = vector::LoadOp::create(
      b, VectorType::get({16}, fused.element),
      stageView(stage, rawOffset(), box),
      ValueRange{add(mul(r, c(kSM90StageK)), mul(q, c(16)))},
      /*nontemporal=*/false, llvm::Align(16));
  if (!fused.element.isF32())
    loaded =
        arith::ExtFOp::create(b, VectorType::get({16}, b.getF32Type()), loaded);
  SmallVector<Value> x;
  for (int64_t i = 0; i < 16; ++i)
    x.push_back(vector::ExtractOp::create(b, loaded, i));
  // Stochastic rounding draws by the element's index in the quantize's
  // input: its batch entry and row there (masked groups are batch entries
  // of maxRows rows; otherwise the token-matrix row), and its K.
  Value row = add(u.rowStart(), r), batch;
  if (cfg.mode == Grouping::masked) {
    batch = u.group();
    row = sub(row, mul(batch, c(cfg.maxRows)));
  }
  SmallVector<Value> values =
      fused.dequantizedChunk(b, args.seed, x, scales, batch, row,
                             add(mul(kb, c(kSM90StageK)), mul(q, c(16))));
  Value f32s = vector::FromElementsOp::create(
      b, VectorType::get({16}, b.getF32Type()), values);
  return arith::TruncFOp::create(b, VectorType::get({16}, b.getF16Type()),
                                 f32s);
}

Value KernelBuilder::convertChunk(const Unit &u, Value stage, Value kb, Value r,
                                  Value q, const TensorScales *scales) {
  Type i32 = b.getI32Type();
  auto f16x16 = VectorType::get({16}, b.getF16Type());
  if (cfg.tokens == SM90TokenSource::fp4) {
    // Codes: bytes 8q .. 8q + 7 of row r of the [tokenTile, 64] box.
    auto words = shared({cfg.rawCodeBytes() / 4}, i32);
    Value codes = vector::LoadOp::create(
        b, VectorType::get({2}, i32), stageView(stage, rawOffset(), words),
        ValueRange{add(mul(r, c(16)), mul(q, c(2)))}, /*nontemporal=*/false,
        llvm::Align(8));
    // The scale: unit q / 4 of the row's 128-row tile (the first or the
    // second copied), at the row's place in it.
    Value g = u.group();
    Value row = add(u.rowStart(), r);
    auto [scaleRow, tileBytes] = tokenScaleRow(g, row);
    Value firstTile = tokenScaleRow(g, u.rowStart()).second;
    Value second = cmp(arith::CmpIPredicate::ne, tileBytes, firstTile);
    Value at = add(add(select(second, c(cfg.scaleBytes()), c(0)),
                       mul(divu(q, c(4)), c(Swizzled128x4Attr::kUnitBytes))),
                   Swizzled128x4Attr::buildOffsetInUnit(b, b.getLoc(), scaleRow,
                                                        remu(q, c(4))));
    auto bytes = shared({cfg.rawTokenScaleBytes()}, b.getI8Type());
    Value byte = memref::LoadOp::create(
        b, stageView(stage, rawOffset() + cfg.rawCodeBytes(), bytes),
        ValueRange{at});
    Value scale =
        arith::BitcastOp::create(b, b.getType<Float8E4M3FNType>(), byte);
    Value lo = nvfp4k::DequantCodesOp::create(
        b, VectorType::get({8}, b.getF16Type()),
        vector::ExtractOp::create(b, codes, 0), scale);
    Value hi = nvfp4k::DequantCodesOp::create(
        b, VectorType::get({8}, b.getF16Type()),
        vector::ExtractOp::create(b, codes, 1), scale);
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, 16));
    return vector::ShuffleOp::create(b, f16x16, lo, hi, all);
  }
  return emitQuantizedChunk(u, stage, kb, r, q, *scales);
}

//===----------------------------------------------------------------------===//
// Consumers
//===----------------------------------------------------------------------===//

void KernelBuilder::emitConsumer(Value warpgroup) {
  if (cfg.consumerRegisters())
    NVVM::SetMaxRegisterOp::create(
        b, b.getI32IntegerAttr(cfg.consumerRegisters()),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::increase));
  Type i32 = b.getI32Type();
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value t128 = remu(tid, c(128));
  Value warp = divu(t128, c(32)), lane = remu(t128, c(32));
  // K split: warpgroups 2 and 3 (pair 1) take the odd stages of each unit,
  // for the same rows as warpgroups 0 and 1 (pair 0). The pair selects the
  // stages, so the ring positions and stage addresses follow it: taken
  // warp-uniform, they stay in uniform registers (without it ptxas moves
  // each stage's descriptors and offsets to them one by one: 35 fewer
  // vector-pipe instructions per stage, sm_90a SASS of a 640-thread kernel).
  if (cfg.kSplit == 2)
    warpgroup = warpUniform(warpgroup);
  Value pair = divu(warpgroup, c(kSM90ConsumerWarpgroups));
  warpgroup = remu(warpgroup, c(kSM90ConsumerWarpgroups));
  // The thread's share of each stage (two weight rows' codes and their
  // scale bytes) is nvfp4k.fragment_a.load's.
  int64_t weights = weightsOffset(), scales = scalesOffset();
  auto wordsType = shared({cfg.weightBytes() / 4}, i32);
  auto scaleWordsType = shared({cfg.scaleBytes() / 4}, i32);
  auto tokensType = tokenTileType();
  auto descType = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, cast<MemRefType>(tokensType));
  auto accType = VectorType::get({cfg.tokenTile / 2}, b.getF32Type());
  auto scalex2 = VectorType::get(
      {2}, cfg.mxfp4 ? Type(b.getType<Float8E8M0FNUType>())
                     : Type(b.getType<Float8E4M3FNType>()));
  // The descriptors take the B tile's swizzle from the type of the map
  // that writes it: the f16 pre-pass map's (converted tokens are stored in
  // its layout).
  Value bTileMap = asMap(
      args.tokenMap, bTileMapType(ctx, cfg.tokenTile, cfg.mmaElement(ctx)));
  SmallVector<int64_t> widths = tileWidths();
  bool promote = cfg.promoteEvery > 0;
  int64_t chunkStages = promote ? cfg.promoteEvery / 2 : 0;
  Value zeroAcc = arith::ConstantOp::create(
      b, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  // Stream-K: the fixup's broadcast word after the stages.
  Value flagWord;
  if (cfg.streamK)
    flagWord = memref::ViewOp::create(b, shared({1}, i32), smem,
                                      c(cfg.flagOffset()), ValueRange{});
  // K split: pair 1's sums, element e of consumer thread t (of 256) at
  // e * 256 + t (conflict-free).
  int64_t pairThreads = 128 * kSM90ConsumerWarpgroups;
  Value handover, pairThread;
  // The cluster split: the other ranks' shares of this CTA's slice.
  Value clusterBuffer;
  if (cfg.cluster > 1)
    clusterBuffer = memref::ViewOp::create(
        b, shared({cfg.clusterBytes() / 4}, b.getF32Type()), smem,
        c(cfg.clusterOffset()), ValueRange{});
  if (cfg.kSplit == 2) {
    handover = memref::ViewOp::create(
        b, shared({cfg.tokenTile / 2 * pairThreads}, b.getF32Type()), smem,
        c(cfg.splitOffset()), ValueRange{});
    pairThread = add(mul(warpgroup, c(128)), t128);
  }
  auto namedBarrier = [&](int64_t id, bool arrive) {
    Value barrierId = c32(id), threads = c32(cfg.kSplit * pairThreads);
    if (arrive)
      NVVM::BarrierArriveOp::create(b, barrierId, threads);
    else
      NVVM::BarrierOp::create(b, TypeRange{}, barrierId, threads,
                              NVVM::BarrierReductionAttr(), Value());
  };

  forEachUnit([&](const Unit &u) {
    auto tile = u.tile;
    // The narrowest width that covers the tile's tokens.
    Value rows = sub(tile.getTileEnd(), tile.getRowStart());
    Value which = divu(add(rows, c(cfg.granule - 1)), c(cfg.granule));
    which = arith::MinSIOp::create(
        b, arith::MaxSIOp::create(b, sub(which, c(1)), c(0)),
        c(widths.size() - 1));
    if (widths.size() == 1)
      which = Value();
    // Scale bytes outside the operand count as zero (fragment_a.load):
    // rows past N (the tile's rows that exist), and chunks past K in the
    // last stage (which may also hold an uncopied unit).
    Value tileRows;
    if (cfg.n % kSM90TileRows)
      tileRows = sub(c(cfg.n), mul(tile.getWeightTile(), c(kSM90TileRows)));
    int64_t last = cfg.kStages() - 1;
    int64_t tailChunks = cfg.k % kSM90StageK ? cfg.k / 16 - 8 * last : 0;
    SmallVector<Value> init{zeroAcc};
    if (promote)
      init.push_back(zeroAcc);
    // The pair's stages: kBegin + pair + kSplit * s for s < steps.
    int64_t stride = cfg.kSplit;
    Value first = add(u.kBegin, pair);
    Value steps = divu(arith::MaxSIOp::create(
                           b, sub(add(u.kEnd, c(stride - 1)), first), c(0)),
                       c(stride));
    auto loop = scf::ForOp::create(
        b, c(0), steps, c(1), init,
        [&](OpBuilder &, Location, Value step, ValueRange st) {
          Value kb = add(first, mul(step, c(stride)));
          Value acc = st[0];
          Value sum = promote ? st[1] : Value();
          Value i = position(u, kb);
          nvfp4k::RingWaitFullOp::create(b, ring, i);
          // Converted tokens: the converters' stores are in the tile
          // (they waited for the stage's loads too).
          if (convertedRing)
            nvfp4k::RingWaitFullOp::create(b, convertedRing, i);
          Value s = nvfp4k::RingStageOp::create(b, ring, i);
          auto share = nvfp4k::FragmentALoadOp::create(
              b, stageView(s, weights, wordsType),
              stageView(s, scales, scaleWordsType), warpgroup, t128, tileRows,
              tailChunks ? eq(kb, c(last)) : Value(), tailChunks, cfg.mxfp4);
          Value row0 = vector::ExtractOp::create(b, share.getRowCodes(), 0);
          Value row1 = vector::ExtractOp::create(b, share.getRowCodes(), 1);
          Value bytes = share.getScaleBytes();
          Value desc = nvgpu::WarpgroupGenerateDescriptorOp::create(
              b, descType, stageView(s, 0, tokensType), bTileMap);
          // The stage's two halves: chunk 2c + h (code words 2h, 2h + 1
          // of each row, scale bytes 2h, 2h + 1) feeds k16 steps
          // 4h .. 4h + 3.
          auto halfCodes = [&](int64_t h) {
            SmallVector<Value> words;
            for (Value row : {row0, row1})
              for (int64_t w = 0; w < 2; ++w)
                words.push_back(vector::ExtractOp::create(b, row, 2 * h + w));
            return vector::FromElementsOp::create(b, VectorType::get({4}, i32),
                                                  words)
                .getResult();
          };
          auto fragments = [&](Value codeWords, Value scaleBits) {
            Value pair = vector::BitCastOp::create(
                b, scalex2,
                LLVM::BitcastOp::create(
                    b, VectorType::get({2}, b.getI8Type()),
                    arith::TruncIOp::create(b, b.getI16Type(), scaleBits)));
            return nvfp4k::DequantFragmentAOp::create(
                       b,
                       VectorType::get({4, 8}, cfg.mmaElement(b.getContext())),
                       vector::ShapeCastOp::create(
                           b, VectorType::get({2, 2}, i32), codeWords),
                       pair)
                .getResult();
          };
          auto mma = [&](Value a, int64_t h, Value scaleD) {
            acc = nvfp4k::WgmmaRSOp::create(
                b, accType, acc, a, desc, which, scaleD,
                b.getDenseI64ArrayAttr(widths), b.getI64IntegerAttr(h * 64));
          };
          Value a0 = fragments(halfCodes(0), bytes);
          // The first step of a chunk of promoteEvery blocks (and of the
          // unit) starts a new tensor-core sum; with promotion, the
          // finished chunk goes to the fp32 total first. A split pair's
          // chunks are promoteEvery blocks of its own stages.
          Value later = cmp(arith::CmpIPredicate::sgt, step, c(0));
          Value unitStart = eq(step, c(0));
          Value chunkPosition = stride == 1 ? kb : step;
          Value chunkStart =
              promote ? arith::OrIOp::create(
                            b, eq(remu(chunkPosition, c(chunkStages)), c(0)),
                            unitStart)
                            .getResult()
                      : unitStart;
          if (promote) {
            auto fold = scf::IfOp::create(
                b, TypeRange{accType, accType},
                arith::AndIOp::create(b, chunkStart, later),
                /*withElseRegion=*/true);
            {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPointToStart(&fold.getThenRegion().front());
              Value done = nvfp4k::WgmmaWaitOp::create(b, ValueRange{acc},
                                                       /*pending=*/0)
                               .getResult(0);
              scf::YieldOp::create(
                  b, ValueRange{arith::AddFOp::create(b, sum, done), done});
              b.setInsertionPointToStart(&fold.getElseRegion().front());
              scf::YieldOp::create(b, ValueRange{sum, acc});
            }
            sum = fold.getResult(0);
            acc = fold.getResult(1);
          }
          mma(a0, 0,
              arith::XOrIOp::create(
                  b, chunkStart,
                  arith::ConstantIntOp::create(b, b.getI1Type(), 1)));
          // The previous stage's wgmmas (the last read the second half's
          // fragment registers) are complete after this wait; the
          // second half's fragments are computed from its results.
          auto waited = nvfp4k::WgmmaWaitOp::create(
              b, ValueRange{halfCodes(1), bytes}, /*pending=*/1);
          // wait_group is warpgroup-wide: one arrival per warp releases
          // the previous stage.
          ifThen(arith::AndIOp::create(b, later, eq(lane, c(0))), [&] {
            nvfp4k::RingReleaseOp::create(b, ring, sub(i, c(stride)));
          });
          Value a1 = fragments(
              waited.getResult(0),
              arith::ShRUIOp::create(b, waited.getResult(1), c32(16)));
          mma(a1, 1, Value());
          // The first half's wgmmas are complete: the next stage may
          // rewrite its fragment registers.
          nvfp4k::WgmmaWaitOp::create(b, ValueRange{}, /*pending=*/1);
          SmallVector<Value> yield{acc};
          if (promote)
            yield.push_back(sum);
          scf::YieldOp::create(b, yield);
        });
    // The accumulators are read only through the wait that completes
    // them.
    Value result = nvfp4k::WgmmaWaitOp::create(b, ValueRange{loop.getResult(0)},
                                               /*pending=*/0)
                       .getResult(0);
    ifThen(arith::AndIOp::create(b, cmp(arith::CmpIPredicate::sgt, steps,
                                        c(0)),
                                 eq(lane, c(0))),
           [&] {
             Value last = add(first, mul(sub(steps, c(1)), c(stride)));
             nvfp4k::RingReleaseOp::create(b, ring, position(u, last));
           });
    if (promote)
      result = arith::AddFOp::create(b, loop.getResult(1), result);
    if (cfg.kSplit == 2) {
      // Pair 1 hands its sum to pair 0 (once pair 0 has read the previous
      // unit's) and is done with the unit; pair 0 adds it: pair 0's sum
      // plus pair 1's, the same order on every run.
      auto hand = scf::IfOp::create(b, TypeRange{accType},
                                    eq(pair, c(1)), /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&hand.getThenRegion().front());
        ifThen(cmp(arith::CmpIPredicate::sgt, u.index, c(0)),
               [&] { namedBarrier(kSM90SplitFreeBarrier, false); });
        for (int64_t e = 0; e < cfg.tokenTile / 2; ++e)
          memref::StoreOp::create(
              b, vector::ExtractOp::create(b, result, e), handover,
              ValueRange{add(c(e * pairThreads), pairThread)});
        NVVM::MembarOp::create(b, NVVM::MemScopeKind::CTA);
        namedBarrier(kSM90SplitFullBarrier, true);
        scf::YieldOp::create(b, result);
        b.setInsertionPointToStart(&hand.getElseRegion().front());
        namedBarrier(kSM90SplitFullBarrier, false);
        SmallVector<Value> other;
        for (int64_t e = 0; e < cfg.tokenTile / 2; ++e)
          other.push_back(memref::LoadOp::create(
              b, handover, ValueRange{add(c(e * pairThreads), pairThread)}));
        Value sum = arith::AddFOp::create(
            b, result, vector::FromElementsOp::create(b, accType, other));
        ifThen(cmp(arith::CmpIPredicate::slt, u.index, sub(u.units, c(1))),
               [&] {
                 NVVM::MembarOp::create(b, NVVM::MemScopeKind::CTA);
                 namedBarrier(kSM90SplitFreeBarrier, true);
               });
        scf::YieldOp::create(b, sum);
      }
      result = hand.getResult(0);
    }
    auto store = [&] {
      if (cfg.cluster > 1) {
        // A tile the cluster's CTAs split: each sums its slice of the
        // accumulators in rank order and stores it.
        Value thread = add(mul(warpgroup, c(128)), t128);
        auto sum = nvfp4k::SchedulerClusterSumOp::create(
            b, accType, b.getI1Type(), scheduler, result, clusterBuffer, thread,
            b.getI64IntegerAttr(pairThreads));
        ifThen(sum.getOwner(), [&] {
          emitEpilogue(sum.getResult(), tile.getResults(), warpgroup, warp,
                       lane);
        });
        return;
      }
      if (!cfg.streamK) {
        emitEpilogue(result, tile.getResults(), warpgroup, warp, lane);
        return;
      }
      // A tile whose K blocks several CTAs summed: the last to finish
      // adds the partials in K order and stores.
      auto fixup = nvfp4k::SchedulerFixupOp::create(
          b, accType, b.getI1Type(), scheduler, tile.getTile(), bid, grid,
          count, u.kBegin, u.kEnd, result, args.workspace, args.flags,
          flagWord, tid, b.getI64IntegerAttr(pairThreads),
          b.getI64IntegerAttr(kSM90FixupBarrier));
      ifThen(fixup.getOwner(), [&] {
        emitEpilogue(fixup.getResult(), tile.getResults(), warpgroup, warp,
                     lane);
      });
    };
    // The epilogue and the fixup are pair 0's.
    if (cfg.kSplit == 2)
      ifThen(eq(pair, c(0)), store);
    else
      store();
  });
  // Pair 1's part in the cluster split's barrier.
  if (cfg.cluster > 1 && cfg.kSplit == 2)
    ifThen(eq(pair, c(1)), [&] { emitClusterPass(); });
}

void KernelBuilder::emitEpilogue(Value acc, ValueRange tile, Value warpgroup,
                                 Value warp, Value lane) {
  // Thread (warp w, lane l; g = l / 4, c = l % 4) holds, for each n8 block
  // j of the token tile, D[fragment row][token] for fragment rows g, g + 8
  // (tile rows rho, rho + 32) and tokens 8j + 2c, 8j + 2c + 1. C is
  // row-major [token][n]: neighbouring n sit in lanes 4 apart, so one
  // shuffle pairs them up for 2-element stores.
  Value g = tile[0], weightTile = tile[1], rowStart = tile[2],
        tileEnd = tile[3], groupStart = tile[4];
  Value g8 = divu(lane, c(4)), c4 = remu(lane, c(4));
  Value odd = eq(remu(g8, c(2)), c(1));
  Value oddIdx = select(odd, c(1), c(0));
  Value rho = add(add(mul(warpgroup, c(64)), mul(warp, c(8))), g8);
  Value nBase = add(mul(weightTile, c(kSM90TileRows)), sub(rho, oddIdx));
  bool perElement = cfg.alphaPerOutput();
  // A fused quantize's decode scale is the kernel's own (per group for
  // masked groups), not an operand.
  EpilogueArgs epilogue = args;
  if (cfg.tokens == SM90TokenSource::quantize)
    epilogue.aDecode = tokenScales(g).decodeScale;
  Value alpha = perElement ? Value()
                           : epilogue.alphaAt(b, b.getLoc(), cfg, g, Value(),
                                              Value(), Value());
  Value out = pick(args.outputs, g);
  Value accIn = cfg.hasAcc ? pick(args.accs, g) : Value();
  Value bias = args.biasRow(b, b.getLoc(), cfg, g);
  // Output rows are token-matrix rows, from the group's first row for
  // independent groups (each has its own output).
  Value rowBase = cfg.mode == Grouping::independent ? groupStart : c(0);
  Value rows = sub(tileEnd, rowBase);
  Value width = arith::ConstantIntOp::create(b, b.getI32Type(), 32);
  Value four = arith::ConstantIntOp::create(b, b.getI32Type(), 4);
  auto pair = VectorType::get({2}, b.getF32Type());
  SmallVector<EpiloguePair> quantized;
  for (int64_t j = 0; j < cfg.tokenTile / 8; ++j) {
    for (int64_t h = 0; h < 2; ++h) {
      Value x0 = vector::ExtractOp::create(b, acc, 4 * j + 2 * h);
      Value x1 = vector::ExtractOp::create(b, acc, 4 * j + 2 * h + 1);
      Value send = select(odd, x0, x1);
      Value recv =
          gpu::ShuffleOp::create(b, send, four, width, gpu::ShuffleMode::XOR)
              .getShuffleResult();
      Value lo = select(odd, recv, x0), hi = select(odd, x1, recv);
      Value token = add(add(rowStart, c(8 * j)), add(mul(c4, c(2)), oddIdx));
      Value column = add(nBase, c(32 * h));
      Value row = sub(token, rowBase);
      // Row-scaled operands: the outer product of their decode scales.
      Value pairAlpha = alpha;
      if (perElement)
        pairAlpha = vector::FromElementsOp::create(
            b, pair,
            ValueRange{
                epilogue.alphaAt(b, b.getLoc(), cfg, g, row, rows, column),
                epilogue.alphaAt(b, b.getLoc(), cfg, g, row, rows,
                                 add(column, c(1)))});
      // (column, column + 1) is a gate/up pair of a fused swiglu.
      Value values =
          vector::FromElementsOp::create(b, pair, ValueRange{lo, hi});
      if (cfg.outputQuantize) {
        quantized.push_back({values, row, column, pairAlpha});
        continue;
      }
      nvfp4k::StoreOp::create(
          b, values, out, row, column, rows, c(cfg.n), pairAlpha, bias, accIn,
          TypeAttr::get(cfg.outElement), b.getI64IntegerAttr(cfg.n),
          b.getF32FloatAttr(cfg.beta), sm90EpilogueSwiglu(ctx, cfg),
          biasElementAttr(cfg));
    }
  }
  if (cfg.outputQuantize)
    emitOutputQuantize(quantized, out, rows, bias, accIn, warpgroup, warp, lane,
                       rowStart, rowBase, weightTile);
}

void KernelBuilder::emitOutputQuantize(ArrayRef<EpiloguePair> pairs, Value out,
                                       Value rows, Value bias, Value accIn,
                                       Value warpgroup, Value warp, Value lane,
                                       Value rowStart, Value rowBase,
                                       Value weightTile) {
  // Each pair's results (rounded to the quantize's input type), then per
  // 16-column block of a token's row its amax, scale and enc_b, then the
  // codes. Pair i = 2j + h of thread (lane l) is token
  // rowStart + 8j + t8, t8 = 2 (l % 4) + (l / 4) % 2. A block's columns lie
  // in 4 lanes (8 apart) of two warps (2bg, 2bg + 1: block bg of the
  // pair's 32 columns; of all four warps after a swiglu, each thread
  // holding one result of a pair). Three steps behind the warpgroup's
  // named barrier: (1) each warp's partial amax per (pair, token) to
  // shared memory, reduced over its lanes by shuffles; (2) each (pair,
  // token, block) once, spread over the warpgroup's threads: the block's
  // amax over its warps, its E4M3 scale (stored, with the padding it
  // owns) and enc_b (to shared memory); (3) every thread's codes.
  const GemmShape::OutputQuantize &oq = *cfg.outputQuantize;
  bool swiglu = cfg.swiglu.has_value();
  int64_t perPair = swiglu ? 1 : 2; // blocks in a pair's 32 columns
  int64_t warpsPerBlock = swiglu ? 4 : 2;
  int64_t npairs = pairs.size(), entries = npairs * 8 * perPair;
  Type f32 = b.getF32Type();
  nvfp4::NumericsBuilder numerics(b, b.getLoc(), f32);
  Value sEnc, sDec;
  std::tie(sEnc, sDec) = outputGlobalScales();
  Value amaxes =
      memref::ViewOp::create(b, shared({cfg.amaxBytes() / 4}, f32), smem,
                             c(cfg.amaxOffset()), ValueRange{});
  // This warpgroup's partial amaxes [pair][t8][warp], then its enc_b
  // [pair][t8][block].
  Value partials = mul(warpgroup, c(cfg.amaxFloatsPerWarpgroup()));
  Value encs = add(partials, c(npairs * 8 * 4));
  Value t8 = add(mul(remu(lane, c(4)), c(2)), remu(divu(lane, c(4)), c(2)));
  Value width = arith::ConstantIntOp::create(b, b.getI32Type(), 32);
  auto shuffleXor = [&](Value v, int64_t mask) {
    return gpu::ShuffleOp::create(
               b, v, arith::ConstantIntOp::create(b, b.getI32Type(), mask),
               width, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  Value barrier = add(c32(kSM90AmaxBarrier),
                      arith::IndexCastOp::create(b, b.getI32Type(), warpgroup));
  auto sync = [&] {
    NVVM::BarrierOp::create(b, TypeRange{}, barrier, c32(128),
                            NVVM::BarrierReductionAttr(), Value());
  };
  // A swiglu's neighbouring results sit in lanes 8 apart: the lower one
  // (lead) holds both and stores their codes.
  Value lead = eq(remu(divu(lane, c(8)), c(2)), c(0));
  auto resultType = VectorType::get({swiglu ? 1 : 2}, f32);
  auto pairType = VectorType::get({2}, f32);
  SmallVector<Value> xs, columns;
  for (int64_t i = 0; i < npairs; ++i) {
    const EpiloguePair &p = pairs[i];
    Value y = nvfp4k::EpilogueOp::create(
        b, resultType, p.values, p.row, p.column, rows, c(cfg.n), p.alpha, bias,
        accIn, TypeAttr::get(oq.element), b.getI64IntegerAttr(cfg.n),
        b.getF32FloatAttr(cfg.beta), sm90EpilogueSwiglu(ctx, cfg),
        biasElementAttr(cfg));
    Value x = y, column = p.column;
    if (swiglu) {
      Value own = vector::ExtractOp::create(b, y, 0);
      Value other = shuffleXor(own, 8);
      x = vector::FromElementsOp::create(
          b, pairType,
          ValueRange{select(lead, own, other), select(lead, other, own)});
      column = divu(p.column, c(2));
    }
    xs.push_back(x);
    columns.push_back(column);
    Value m = numerics.maxNum(numerics.abs(vector::ExtractOp::create(b, x, 0)),
                              numerics.abs(vector::ExtractOp::create(b, x, 1)));
    m = numerics.maxNum(m, shuffleXor(m, 8));
    m = numerics.maxNum(m, shuffleXor(m, 16));
    ifThen(cmp(arith::CmpIPredicate::ult, lane, c(8)), [&] {
      memref::StoreOp::create(
          b, m, amaxes,
          ValueRange{add(partials, add(mul(add(c(8 * i), t8), c(4)), warp))});
    });
  }
  sync();
  // (2) Entry e = (i * 8 + t8) * perPair + bg, thread t of the warpgroup
  // taking e = t, t + 128, ...
  Value t128 = add(mul(warp, c(32)), lane);
  int64_t blocks = cfg.resultColumns() / 16;
  Value totalRows = c(cfg.maxRows);
  // The tile's first block column: its 128 weight rows are 128 results
  // (8 blocks), 64 after a swiglu; a warpgroup's half of them.
  Value tileBlock = add(mul(weightTile, c(swiglu ? 4 : 8)),
                        mul(warpgroup, c(swiglu ? 2 : 4)));
  for (int64_t r = 0; r < ceilDiv(entries, 128); ++r) {
    Value e = add(t128, c(128 * r));
    auto body = [&] {
      Value i = divu(e, c(8 * perPair));
      Value token8 = remu(divu(e, c(perPair)), c(8));
      Value bg = remu(e, c(perPair));
      Value at = add(partials, add(mul(add(mul(i, c(8)), token8), c(4)),
                                   mul(bg, c(warpsPerBlock))));
      Value amax = memref::LoadOp::create(b, amaxes, ValueRange{at});
      for (int64_t w = 1; w < warpsPerBlock; ++w)
        amax = numerics.maxNum(
            amax, memref::LoadOp::create(b, amaxes, ValueRange{add(at, c(w))}));
      auto [sf, enc] = numerics.blockScale(amax, sEnc, sDec);
      memref::StoreOp::create(b, enc, amaxes, ValueRange{add(encs, e)});
      // Pair i = 2j + h: token rowStart + 8j + token8; block column
      // tileBlock + h * perPair + bg.
      Value j = divu(i, c(2)), h = remu(i, c(2));
      Value row = sub(add(add(rowStart, mul(j, c(8))), token8), rowBase);
      Value block = add(tileBlock, add(mul(h, c(perPair)), bg));
      nvfp4k::StoreScaleOp::create(b, sf, args.quantScales, row, block, rows,
                                   b.getI64IntegerAttr(blocks), totalRows,
                                   oq.swizzled ? b.getUnitAttr() : UnitAttr());
    };
    if (128 * (r + 1) <= entries)
      body();
    else
      ifThen(cmp(arith::CmpIPredicate::ult, e, c(entries)), body);
  }
  sync();
  // (3) The codes.
  Value bg = swiglu ? c(0) : remu(divu(warp, c(2)), c(2));
  for (int64_t i = 0; i < npairs; ++i) {
    Value enc = memref::LoadOp::create(
        b, amaxes,
        ValueRange{add(encs, add(mul(add(c(8 * i), t8), c(perPair)), bg))});
    auto store = [&] {
      nvfp4k::StoreFp4Op::create(b, xs[i], out, pairs[i].row, columns[i], rows,
                                 b.getI64IntegerAttr(cfg.resultColumns()), enc);
    };
    if (swiglu)
      ifThen(lead, store);
    else
      store();
  }
  // The next tile's amaxes go where these were read.
  sync();
}

gpu::GPUFuncOp KernelBuilder::build(gpu::GPUModuleOp module, StringRef name) {
  tokenMapType = sm90TokenMapType(ctx, cfg);
  weightMapType = sm90WeightMapType(ctx);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  SmallVector<Type> argTypes{ptrType};
  if (cfg.tokens == SM90TokenSource::fp4)
    argTypes.push_back(i64);
  if (cfg.tokens == SM90TokenSource::quantize) {
    argTypes.push_back(i64);
    if (cfg.quantize.spec.stochastic)
      argTypes.push_back(i64);
  }
  argTypes.append(cfg.operandPointers(), ptrType);
  argTypes.append(cfg.operandPointers(), i64);
  if (cfg.streamK)
    argTypes.append(2, i64);
  argTypes.append(EpilogueArgs::count(cfg), i64);
  auto func =
      gpu::GPUFuncOp::create(b, name, FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("nvvm.maxntid",
                b.getDenseI32ArrayAttr({int32_t(cfg.threads()), 1, 1}));
  func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(cfg.ctasPerSM));

  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  auto argIt = entry.getArguments().begin();
  args.tokenMap = *argIt++;
  if (cfg.tokens == SM90TokenSource::fp4)
    args.tokenScales = *argIt++;
  if (cfg.tokens == SM90TokenSource::quantize) {
    args.scaleSource = *argIt++;
    if (cfg.quantize.spec.stochastic)
      args.seed = *argIt++;
  }
  for (int64_t i = 0; i < cfg.operandPointers(); ++i)
    args.weightMaps.push_back(*argIt++);
  for (int64_t i = 0; i < cfg.operandPointers(); ++i)
    args.scales.push_back(*argIt++);
  if (cfg.streamK) {
    args.workspace = *argIt++;
    args.flags = *argIt++;
  }
  static_cast<EpilogueArgs &>(args) = EpilogueArgs::take(cfg, argIt);

  smem = nvfp4k::SharedMemoryOp::create(
      b, shared({cfg.bufferBytes()}, b.getI8Type()));
  ring = nvfp4k::RingCreateOp::create(
      b, nvfp4k::RingType::get(ctx, cfg.stages, 4 * kSM90ConsumerWarpgroups,
                               /*producers=*/1));
  // Converted tokens: a second ring whose full barriers the converter
  // threads complete (each arrives once per stage); its empty barriers are
  // unused (the stage is released through the first ring).
  if (cfg.convertsTokens())
    convertedRing = nvfp4k::RingCreateOp::create(
        b, nvfp4k::RingType::get(ctx, cfg.stages, 4 * kSM90ConsumerWarpgroups,
                                 kSM90ConverterThreads));
  auto space = nvfp4k::SchedulerType::get(
      ctx, cfg.mode, cfg.groups, cfg.maxRows, cfg.nTiles(), kSM90TileRows,
      cfg.tokenTile, cfg.granule,
      cfg.mode == Grouping::independent ? ArrayRef<int64_t>(cfg.rowsPerGroup)
                                        : ArrayRef<int64_t>(),
      cfg.kStages(), cfg.streamK, cfg.cluster);
  scheduler = nvfp4k::SchedulerCreateOp::create(b, space, args.groupInfo);
  bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  // Up to here the kernel reads nothing another kernel writes: with a
  // dependent launch its barrier setup overlaps the kernel ahead (the
  // token quantize); from the group table on, it waits for that kernel.
  emitGridDependencyWait(b, b.getLoc());
  count = nvfp4k::SchedulerCountOp::create(b, scheduler);
  gpu::BarrierOp::create(b);
  // The cluster split: every thread's relaxed arrival at the cluster
  // barrier's first phase, which nvfp4k.scheduler.cluster_sum waits for
  // before writing another CTA's shared memory (all have started).
  if (cfg.cluster > 1)
    NVVM::ClusterArriveRelaxedOp::create(b, /*aligned=*/UnitAttr());

  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  // A fused output quantize's decode scale: S_dec of the given scale,
  // written once.
  if (cfg.outputQuantize)
    ifThen(arith::AndIOp::create(b, eq(bid, c(0)), eq(tid, c(0))), [&] {
      LLVM::StoreOp::create(b, outputGlobalScales().second,
                            globalPointer(args.quantDecode), /*alignment=*/4);
    });
  Value warpgroup = divu(tid, c(128));
  scf::IfOp::create(
      b, eq(warpgroup, c(cfg.consumerWarpgroups())),
      [&](OpBuilder &, Location) {
        emitProducer();
        // The cluster split's barrier (nvfp4k.scheduler.cluster_sum)
        // counts every thread of the cluster: the producers pass its
        // first phase and arrive at its second.
        if (cfg.cluster > 1)
          emitClusterPass();
        scf::YieldOp::create(b);
      },
      [&](OpBuilder &, Location) {
        emitConsumer(warpgroup);
        scf::YieldOp::create(b);
      });
  gpu::ReturnOp::create(b);
  return func;
}

} // namespace

nvgpu::TensorMapDescriptorType mlir::nvfp4::bTileMapType(MLIRContext *ctx,
                                                         int64_t tokenTile,
                                                         Type element) {
  return nvgpu::TensorMapDescriptorType::get(
      ctx,
      MemRefType::get(
          {tokenTile, nvfp4k::kWgmmaAtomK}, element,
          MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

nvgpu::TensorMapDescriptorType
mlir::nvfp4::sm90TokenMapType(MLIRContext *ctx, const SM90GemmConfig &cfg) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto unswizzled = [&](int64_t columns, Type element) {
    return nvgpu::TensorMapDescriptorType::get(
        ctx,
        MemRefType::get({cfg.tokenTile, columns}, element,
                        MemRefLayoutAttrInterface(), workgroup),
        nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  };
  switch (cfg.tokens) {
  case SM90TokenSource::prepass:
    return bTileMapType(ctx, cfg.tokenTile, cfg.mmaElement(ctx));
  case SM90TokenSource::fp4:
    return unswizzled(kSM90StageK / 2,
                      IntegerType::get(ctx, 8, IntegerType::Unsigned));
  case SM90TokenSource::quantize:
    return unswizzled(kSM90StageK, cfg.quantize.element);
  }
  llvm_unreachable("token source");
}

nvgpu::TensorMapDescriptorType
mlir::nvfp4::sm90WeightMapType(MLIRContext *ctx) {
  // Raw FP4 bytes, [128 rows, 64 bytes] boxes, unswizzled: each thread reads
  // 16 contiguous bytes of a row.
  return nvgpu::TensorMapDescriptorType::get(
      ctx,
      MemRefType::get(
          {kSM90TileRows, kSM90StageK / 2},
          IntegerType::get(ctx, 8, IntegerType::Unsigned),
          MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

TensorScales SM90TokenQuantize::load(ImplicitLocOpBuilder &b, Value scaleSource,
                                     Value seed, Value entry) const {
  KernelArith k(b);
  QuantizeCodegen cg(b, b.getLoc(), spec, Value(), Value(), Value(), seed);
  auto global = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value ptr =
      LLVM::GEPOp::create(b, global, b.getI8Type(),
                          LLVM::IntToPtrOp::create(b, global, scaleSource),
                          ValueRange{k.toI64(k.mul(entry, k.c(4)))});
  // Written before the launch (the amax kernel, the caller): invariant.
  Value value = LLVM::LoadOp::create(b, b.getF32Type(), ptr, /*alignment=*/4,
                                     /*isVolatile=*/false,
                                     /*isNonTemporal=*/false,
                                     /*isInvariant=*/true);
  switch (scale) {
  case Scale::amaxBits: // the same bits, read as fp32
  case Scale::amax:
    return cg.tensorScales(value);
  case Scale::blockAmax:
    llvm_unreachable("the pre-pass reduces its amax itself");
  case Scale::encode:
  case Scale::decode:
    return cg.givenScales(value);
  }
  llvm_unreachable("scale source");
}

SmallVector<Value> SM90TokenQuantize::dequantizedChunk(
    ImplicitLocOpBuilder &b, Value seed, ArrayRef<Value> x,
    const TensorScales &scales, Value batch, Value row, Value k0) const {
  Location loc = b.getLoc();
  NumericsBuilder nb(b, loc, b.getF32Type());
  QuantizeCodegen cg(b, loc, spec, Value(), Value(), Value(), seed);
  SmallVector<Value> chunk = cg.transformChunk(x, element);
  SmallVector<Value> random;
  if (spec.stochastic)
    random = cg.randomBytes(batch, row, k0);
  auto [scaleByte, codes] = cg.quantizeBlock(chunk, scales, random);
  Value scale = nb.e4m3Decode(scaleByte);
  SmallVector<Value> values;
  for (Value code : codes)
    values.push_back(nb.mul(nb.e2m1Decode(code), scale));
  return values;
}

gpu::GPUFuncOp
mlir::nvfp4::buildSM90GroupedGemmKernel(OpBuilder &builder, Location loc,
                                        gpu::GPUModuleOp module, StringRef name,
                                        const SM90GemmConfig &config) {
  assert((config.kSplit == 1 || config.stages >= kSM90MinSplitStages) &&
         "a split ring of fewer stages hangs: configure() keeps it unsplit");
  ImplicitLocOpBuilder b(loc, builder);
  KernelBuilder kernel(b, config);
  return kernel.build(module, name);
}

TypeAttr mlir::nvfp4::biasElementAttr(const GemmShape &shape) {
  return shape.biasElement ? TypeAttr::get(shape.biasElement) : TypeAttr();
}

nvfp4k::SwigluAttr mlir::nvfp4::sm90EpilogueSwiglu(MLIRContext *ctx,
                                                   const GemmShape &shape) {
  if (!shape.swiglu)
    return nullptr;
  Builder b(ctx);
  const SwigluParams &params = *shape.swiglu;
  return nvfp4k::SwigluAttr::get(
      ctx, shape.intermediateElement, b.getF32FloatAttr(params.sigmoidScale),
      params.limit ? b.getF32FloatAttr(*params.limit) : FloatAttr(),
      b.getF32FloatAttr(params.upOffset));
}
