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

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
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

int64_t mlir::nvfp4::sm90FragmentK(int64_t k) {
  // Value v (0..15) of chunk q (0..7): thread c = q / 2 holds it, in the
  // stage's first half (k16 steps 0-3) for even q, the second otherwise.
  // nvfp4k.dequant.fragment_a puts value j = v % 8 of code word w = v / 8
  // into step 2w + j % 2 of the half, slot t = j / 2: columns 2c, 2c + 1
  // (t = 0, 1) or 2c + 8, 2c + 9 (t = 2, 3) of that step.
  int64_t q = k / 16, v = k % 16;
  int64_t c = q / 2, half = q % 2, w = v / 8, j = v % 8;
  int64_t step = 4 * half + 2 * w + j % 2, t = j / 2;
  int64_t column = t < 2 ? 2 * c + t : 2 * c + 8 + (t - 2);
  return 16 * step + column;
}

namespace {

/// The kernel's runtime arguments, named.
struct KernelArgs : EpilogueArgs {
  Value tokenMap;
  SmallVector<Value> weightMaps, scales;
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

  void emitProducer();
  void emitConsumer(Value warpgroup);
  void emitEpilogue(Value acc, ValueRange tile, Value warpgroup, Value warp,
                    Value lane);

  const SM90GemmConfig &cfg;
  MLIRContext *ctx;
  KernelArgs args;
  Value smem, ring, scheduler;
  Type tokenMapType, weightMapType;
};

//===----------------------------------------------------------------------===//
// Producer: one elected thread fills the ring
//===----------------------------------------------------------------------===//

void KernelBuilder::emitProducer() {
  NVVM::SetMaxRegisterOp::create(
      b, b.getI32IntegerAttr(kSM90ProducerRegisters),
      NVVM::SetMaxRegisterActionAttr::get(
          ctx, NVVM::SetMaxRegisterAction::decrease));
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warpInGroup = divu(remu(tid, c(128)), c(32));
  ifThen(eq(warpInGroup, c(0)), [&] {
    Value elected = NVVM::ElectSyncOp::create(b, b.getI1Type(), Value());
    ifThen(elected, [&] {
      Value tokenMap = asMap(args.tokenMap, tokenMapType);
      nvgpu::TmaPrefetchOp::create(b, tokenMap, Value());
      for (Value ptr : args.weightMaps)
        nvgpu::TmaPrefetchOp::create(b, asMap(ptr, weightMapType), Value());
      Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
      Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
      Value total = nvfp4k::SchedulerCountOp::create(b, scheduler);
      int64_t unitBytes = cfg.scaleRowTileBytes(); // 128 weight rows
      scf::ForOp::create(
          b, bid, total, grid, ValueRange{c(0)},
          [&](OpBuilder &, Location, Value t, ValueRange it0) {
            auto tile = nvfp4k::SchedulerTileOp::create(b, scheduler, t);
            Value g = tile.getGroup(), wt = tile.getWeightTile();
            // Independent groups: one map per group (chosen as a pointer).
            Value weightMap = asMap(pick(args.weightMaps, g), weightMapType);
            Value weightRow = mul(wt, c(kSM90TileRows));
            Value scaleBase =
                add(pick(args.scales, g), toI64(mul(wt, c(unitBytes))));
            if (cfg.stackedWeights()) {
              weightRow = add(weightRow, mul(g, c(cfg.n)));
              scaleBase =
                  add(scaleBase, toI64(mul(g, c(cfg.nTiles() * unitBytes))));
            }
            int64_t last = cfg.kStages() - 1;
            scf::ForOp::create(
                b, c(0), c(cfg.kStages()), c(1), ValueRange{},
                [&](OpBuilder &, Location, Value kb, ValueRange) {
                  Value i = add(it0[0], kb);
                  nvfp4k::RingWaitEmptyOp::create(b, ring, i);
                  // Every TMA box is whole (zeros past the operands); the
                  // last stage may carry one scale unit instead of two.
                  int64_t fixed = cfg.tokenBytes() + cfg.weightBytes();
                  Value units = c(2);
                  if (cfg.stageUnits(last) != 2)
                    units =
                        select(eq(kb, c(last)), c(cfg.stageUnits(last)), c(2));
                  Value scaleBytes =
                      mul(units, c(Swizzled128x4Attr::kUnitBytes));
                  nvfp4k::RingExpectTxOp::create(b, ring, i,
                                                 add(c(fixed), scaleBytes));
                  Value s = nvfp4k::RingStageOp::create(b, ring, i);
                  Value k0 = mul(kb, c(kSM90StageK));
                  auto atom = shared({cfg.tokenTile, 64}, b.getF16Type());
                  for (int64_t h = 0; h < 2; ++h)
                    nvfp4k::TmaLoadOp::create(
                        b, tokenMap,
                        ValueRange{add(k0, c(64 * h)), tile.getRowStart()},
                        stageView(s, h * cfg.tokenBytes() / 2, atom), ring, i);
                  nvfp4k::TmaLoadOp::create(
                      b, weightMap,
                      ValueRange{mul(kb, c(kSM90StageK / 2)), weightRow},
                      stageView(s, cfg.tokenBytes(),
                                shared({kSM90TileRows, kSM90StageK / 2},
                                       b.getIntegerType(8, false))),
                      ring, i);
                  nvfp4k::BulkLoadOp::create(
                      b, add(scaleBase, toI64(mul(kb, c(cfg.scaleBytes())))),
                      stageView(s, cfg.tokenBytes() + cfg.weightBytes(),
                                shared({cfg.scaleBytes()}, b.getI8Type())),
                      scaleBytes, ring, i);
                  scf::YieldOp::create(b);
                });
            scf::YieldOp::create(b, ValueRange{add(it0[0], c(cfg.kStages()))});
          });
    });
  });
}

//===----------------------------------------------------------------------===//
// Consumers
//===----------------------------------------------------------------------===//

void KernelBuilder::emitConsumer(Value warpgroup) {
  NVVM::SetMaxRegisterOp::create(
      b, b.getI32IntegerAttr(kSM90ConsumerRegisters),
      NVVM::SetMaxRegisterActionAttr::get(
          ctx, NVVM::SetMaxRegisterAction::increase));
  Type i32 = b.getI32Type();
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value t128 = remu(tid, c(128));
  Value warp = divu(t128, c(32)), lane = remu(t128, c(32));
  Value g8 = divu(lane, c(4)), c4 = remu(lane, c(4));
  // The thread's two weight rows: fragment rows g and g + 8 of its warp are
  // tile rows rho = 64 J + 8 w + g and rho + 32 (J: the warpgroup), so that
  // their scale words sit side by side in the swizzled unit
  // ((r % 32) * 16 + ((r % 128) / 32) * 4): one 8-byte load.
  Value rho = add(add(mul(warpgroup, c(64)), mul(warp, c(8))), g8);
  // Byte offsets inside a stage: the thread's 16 code bytes of each row
  // (bytes 16c .. 16c + 15 of the row's 64: chunks 2c and 2c + 1), and its
  // scale words: row rho's in unit c / 2 of the stage's two, and row
  // rho + 32's right after it (rho % 128 < 96).
  int64_t weights = cfg.tokenBytes(), scales = weights + cfg.weightBytes();
  Value codeWord0 = divu(add(mul(rho, c(64)), mul(c4, c(16))), c(4));
  Value codeWord1 = add(codeWord0, c(32 * 64 / 4));
  Value scaleWord =
      divu(add(mul(divu(c4, c(2)), c(Swizzled128x4Attr::kUnitBytes)),
               Swizzled128x4Attr::buildOffsetInUnit(b, b.getLoc(), rho, c(0))),
           c(4));
  // prmt selector of the thread's scale bytes: chunk 2c (byte 2(c%2)) and
  // 2c + 1 of row rho (word 0, bytes 0-3) and rho + 32 (word 1, bytes 4-7),
  // as (rho, rho + 32) for each chunk.
  Value h2 = mul(remu(c4, c(2)), c(2));
  Value selector = arith::IndexCastOp::create(
      b, i32,
      add(add(h2, mul(add(h2, c(4)), c(16))),
          add(mul(add(h2, c(1)), c(256)), mul(add(h2, c(5)), c(4096)))));
  auto wordsType = shared({cfg.weightBytes() / 4}, i32);
  auto scaleWordsType = shared({cfg.scaleBytes() / 4}, i32);
  auto tokensType = shared({cfg.tokenTile, kSM90StageK}, b.getF16Type());
  auto descType = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, cast<MemRefType>(tokensType));
  auto accType = VectorType::get({cfg.tokenTile / 2}, b.getF32Type());
  auto e4m3x2 = VectorType::get({2}, b.getType<Float8E4M3FNType>());
  Value tokenMap = asMap(args.tokenMap, tokenMapType);
  SmallVector<int64_t> widths = tileWidths();
  bool promote = cfg.promoteEvery > 0;
  int64_t chunkStages = promote ? cfg.promoteEvery / 2 : 0;
  Value zeroAcc = arith::ConstantOp::create(
      b, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));

  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value total = nvfp4k::SchedulerCountOp::create(b, scheduler);
  scf::ForOp::create(
      b, bid, total, grid, ValueRange{},
      [&](OpBuilder &, Location, Value t, ValueRange) {
        // Every tile passes kStages positions through the ring.
        Value it0 = mul(divu(sub(t, bid), grid), c(cfg.kStages()));
        auto tile = nvfp4k::SchedulerTileOp::create(b, scheduler, t);
        // The narrowest width that covers the tile's tokens.
        Value rows = sub(tile.getTileEnd(), tile.getRowStart());
        Value which = divu(add(rows, c(cfg.granule - 1)), c(cfg.granule));
        which = arith::MinSIOp::create(
            b, arith::MaxSIOp::create(b, sub(which, c(1)), c(0)),
            c(widths.size() - 1));
        if (widths.size() == 1)
          which = Value();
        // Scale bytes outside the operand count as zero (a zero scale makes
        // any code zero): rows past N, and chunks past K in the last stage
        // (which may also hold an uncopied unit).
        Value rowMask;
        if (cfg.n % kSM90TileRows) {
          Value row = add(mul(tile.getWeightTile(), c(kSM90TileRows)), rho);
          rowMask = arith::OrIOp::create(
              b, select(lt(row, c(cfg.n)), c32(0x00FF00FF), c32(0)),
              select(lt(add(row, c(32)), c(cfg.n)), c32(0xFF00FF00), c32(0)));
        }
        Value tailMask;
        int64_t last = cfg.kStages() - 1;
        if (cfg.k % kSM90StageK) {
          Value chunk = add(c(8 * last), mul(c4, c(2)));
          int64_t chunks = cfg.k / 16;
          tailMask = arith::OrIOp::create(
              b, select(lt(chunk, c(chunks)), c32(0x0000FFFF), c32(0)),
              select(lt(add(chunk, c(1)), c(chunks)), c32(0xFFFF0000), c32(0)));
        }
        SmallVector<Value> init{zeroAcc};
        if (promote)
          init.push_back(zeroAcc);
        auto loop = scf::ForOp::create(
            b, c(0), c(cfg.kStages()), c(1), init,
            [&](OpBuilder &, Location, Value kb, ValueRange st) {
              Value acc = st[0];
              Value sum = promote ? st[1] : Value();
              Value i = add(it0, kb);
              nvfp4k::RingWaitFullOp::create(b, ring, i);
              Value s = nvfp4k::RingStageOp::create(b, ring, i);
              Value codes = stageView(s, weights, wordsType);
              auto load = [&](Value words, Value at, int64_t n, int64_t align) {
                return vector::LoadOp::create(
                           b, VectorType::get({n}, i32), words, ValueRange{at},
                           /*nontemporal=*/false, llvm::Align(align))
                    .getResult();
              };
              Value row0 = load(codes, codeWord0, 4, 16);
              Value row1 = load(codes, codeWord1, 4, 16);
              Value sw =
                  load(stageView(s, scales, scaleWordsType), scaleWord, 2, 8);
              Value bytes = NVVM::PermuteOp::create(
                  b, i32, vector::ExtractOp::create(b, sw, 0),
                  vector::ExtractOp::create(b, sw, 1), selector,
                  NVVM::PermuteMode::DEFAULT);
              if (rowMask)
                bytes = arith::AndIOp::create(b, bytes, rowMask);
              if (tailMask)
                bytes = arith::AndIOp::create(
                    b, bytes, select(eq(kb, c(last)), tailMask, c32(-1)));
              Value desc = nvgpu::WarpgroupGenerateDescriptorOp::create(
                  b, descType, stageView(s, 0, tokensType), tokenMap);
              // The stage's two halves: chunk 2c + h (code words 2h, 2h + 1
              // of each row, scale bytes 2h, 2h + 1) feeds k16 steps
              // 4h .. 4h + 3.
              auto halfCodes = [&](int64_t h) {
                SmallVector<Value> words;
                for (Value row : {row0, row1})
                  for (int64_t w = 0; w < 2; ++w)
                    words.push_back(
                        vector::ExtractOp::create(b, row, 2 * h + w));
                return vector::FromElementsOp::create(
                           b, VectorType::get({4}, i32), words)
                    .getResult();
              };
              auto fragments = [&](Value codeWords, Value scaleBits) {
                Value pair = vector::BitCastOp::create(
                    b, e4m3x2,
                    LLVM::BitcastOp::create(
                        b, VectorType::get({2}, b.getI8Type()),
                        arith::TruncIOp::create(b, b.getI16Type(), scaleBits)));
                return nvfp4k::DequantFragmentAOp::create(
                           b, VectorType::get({4, 8}, b.getF16Type()),
                           vector::ShapeCastOp::create(
                               b, VectorType::get({2, 2}, i32), codeWords),
                           pair)
                    .getResult();
              };
              auto mma = [&](Value a, int64_t h, Value scaleD) {
                acc = nvfp4k::WgmmaRSOp::create(b, accType, acc, a, desc, which,
                                                scaleD,
                                                b.getDenseI64ArrayAttr(widths),
                                                b.getI64IntegerAttr(h * 64));
              };
              Value a0 = fragments(halfCodes(0), bytes);
              // The first step of a chunk of promoteEvery blocks (and of the
              // tile) starts a new tensor-core sum; with promotion, the
              // finished chunk goes to the fp32 total first.
              Value chunkStart =
                  promote ? eq(remu(kb, c(chunkStages)), c(0)) : eq(kb, c(0));
              if (promote) {
                auto fold = scf::IfOp::create(
                    b, TypeRange{accType, accType},
                    arith::AndIOp::create(
                        b, chunkStart,
                        cmp(arith::CmpIPredicate::sgt, kb, c(0))),
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
              ifThen(arith::AndIOp::create(
                         b, cmp(arith::CmpIPredicate::sgt, kb, c(0)),
                         eq(lane, c(0))),
                     [&] {
                       nvfp4k::RingReleaseOp::create(b, ring, sub(i, c(1)));
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
        Value result = nvfp4k::WgmmaWaitOp::create(
                           b, ValueRange{loop.getResult(0)}, /*pending=*/0)
                           .getResult(0);
        ifThen(eq(lane, c(0)), [&] {
          nvfp4k::RingReleaseOp::create(b, ring,
                                        add(it0, c(cfg.kStages() - 1)));
        });
        if (promote)
          result = arith::AddFOp::create(b, loop.getResult(1), result);
        emitEpilogue(result, tile.getResults(), warpgroup, warp, lane);
        scf::YieldOp::create(b);
      });
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
  Value alpha = perElement ? Value()
                           : args.alphaAt(b, b.getLoc(), cfg, g, Value(),
                                          Value(), Value());
  Value out = pick(args.outputs, g);
  Value accIn = cfg.hasAcc ? pick(args.accs, g) : Value();
  // Output rows are token-matrix rows, from the group's first row for
  // independent groups (each has its own output).
  Value rowBase = cfg.mode == Grouping::independent ? groupStart : c(0);
  Value rows = sub(tileEnd, rowBase);
  Value width = arith::ConstantIntOp::create(b, b.getI32Type(), 32);
  Value four = arith::ConstantIntOp::create(b, b.getI32Type(), 4);
  auto pair = VectorType::get({2}, b.getF32Type());
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
                args.alphaAt(b, b.getLoc(), cfg, g, row, rows, column),
                args.alphaAt(b, b.getLoc(), cfg, g, row, rows,
                             add(column, c(1)))});
      nvfp4k::StoreOp::create(
          b, vector::FromElementsOp::create(b, pair, ValueRange{lo, hi}), out,
          row, column, rows, c(cfg.n), pairAlpha, accIn,
          TypeAttr::get(cfg.outElement), b.getI64IntegerAttr(cfg.n),
          b.getF32FloatAttr(cfg.beta));
    }
  }
}

gpu::GPUFuncOp KernelBuilder::build(gpu::GPUModuleOp module, StringRef name) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  tokenMapType = nvgpu::TensorMapDescriptorType::get(
      ctx,
      MemRefType::get({cfg.tokenTile, 64}, b.getF16Type(),
                      MemRefLayoutAttrInterface(), workgroup),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  weightMapType = sm90WeightMapType(ctx);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> argTypes(1 + cfg.operandPointers(), ptrType);
  argTypes.append(cfg.operandPointers() + EpilogueArgs::count(cfg),
                  b.getI64Type());
  auto func =
      gpu::GPUFuncOp::create(b, name, FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("nvvm.maxntid",
                b.getDenseI32ArrayAttr({int32_t(cfg.threads()), 1, 1}));
  func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(1));

  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  auto argIt = entry.getArguments().begin();
  args.tokenMap = *argIt++;
  for (int64_t i = 0; i < cfg.operandPointers(); ++i)
    args.weightMaps.push_back(*argIt++);
  for (int64_t i = 0; i < cfg.operandPointers(); ++i)
    args.scales.push_back(*argIt++);
  static_cast<EpilogueArgs &>(args) = EpilogueArgs::take(cfg, argIt);

  smem = nvfp4k::SharedMemoryOp::create(
      b, shared({cfg.bufferBytes()}, b.getI8Type()));
  ring = nvfp4k::RingCreateOp::create(
      b, nvfp4k::RingType::get(ctx, cfg.stages, 4 * kSM90ConsumerWarpgroups));
  auto space = nvfp4k::SchedulerType::get(
      ctx, cfg.mode, cfg.groups, cfg.maxRows, cfg.nTiles(), kSM90TileRows,
      cfg.tokenTile, cfg.granule,
      cfg.mode == Grouping::independent ? ArrayRef<int64_t>(cfg.rowsPerGroup)
                                        : ArrayRef<int64_t>());
  scheduler = nvfp4k::SchedulerCreateOp::create(b, space, args.groupInfo);
  gpu::BarrierOp::create(b);

  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warpgroup = divu(tid, c(128));
  scf::IfOp::create(
      b, eq(warpgroup, c(kSM90ConsumerWarpgroups)),
      [&](OpBuilder &, Location) {
        emitProducer();
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

gpu::GPUFuncOp
mlir::nvfp4::buildSM90GroupedGemmKernel(OpBuilder &builder, Location loc,
                                        gpu::GPUModuleOp module, StringRef name,
                                        const SM90GemmConfig &config) {
  ImplicitLocOpBuilder b(loc, builder);
  KernelBuilder kernel(b, config);
  return kernel.build(module, name);
}
