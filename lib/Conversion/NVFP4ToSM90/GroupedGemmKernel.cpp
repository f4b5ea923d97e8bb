//===- GroupedGemmKernel.cpp - the sm_90a block-scaled GEMM kernel
//---------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Builds the persistent, warp-specialised RS-wgmma kernel described in
// GroupedGemmKernel.h and docs/design/sm90-gemm.md. The op sequences (RS
// wgmma through inline asm with tied accumulators, the 128B-swizzle smem
// descriptor, the mbarrier ring, the shuffle epilogue, the extern dynamic
// shared memory) follow the compile-checked prototypes
// (docs/design/findings.md).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToSM90/GroupedGemmKernel.h"

#include "nvfp4/Dialect/NVFP4/Utils/KernelEmitter.h"
#include "nvfp4/Dialect/NVFP4/Utils/TileSchedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::nvfp4;

int64_t mlir::nvfp4::sm90PermutedK(int64_t chunk, int64_t i) {
  // A thread (lane%4 == chunk) holds the 16 values of K chunk `chunk` of a
  // 64-block. Value i feeds k16 step s = 2*(i/8) + (i%2), fragment slot
  // t = (i%8)/2: slots 0,1 are wgmma columns 2c, 2c+1; slots 2,3 are 2c+8,
  // 2c+9 (the m64nNk16 A-fragment layout).
  int64_t h = i / 8, r8 = i % 8, p = r8 % 2, t = r8 / 2;
  int64_t step = 2 * h + p;
  int64_t column = t < 2 ? 2 * chunk + t : 2 * chunk + 8 + (t - 2);
  return 16 * step + column;
}

namespace {

/// The kernel's runtime arguments, named.
struct KernelArgs : EpilogueArgs {
  Value tokenMap;
  SmallVector<Value> weights, scales;
};

class GemmKernelBuilder {
public:
  GemmKernelBuilder(OpBuilder &b, Location loc, const SM90GemmConfig &cfg)
      : e(b, loc), b(b), loc(loc), cfg(cfg) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name);

private:
  // Schedule (built in build(), once the group-info argument exists).
  Value totalTiles() { return schedule->totalTiles(); }
  ScheduledTile decodeTile(Value t) { return schedule->tile(t); }
  Value pick(ArrayRef<Value> values, Value g) {
    return schedule->pick(values, g);
  }
  // Roles.
  void emitProducer(Value bars, Value stageBase);
  void emitConsumer(Value bars, Value stageBase, Value warpgroup);
  // The stage ring: stage s of `stages` holds one token block; full[s]
  // (barrier s) completes when its TMA bytes landed, empty[s] (barrier
  // stages + s) when the consumer warps released it. A position is (stage,
  // parity of the round), computed from the count of blocks the role has
  // passed through the ring.
  struct RingPos {
    Value stage; // index
    Value phase; // i1: parity of the round
  };
  RingPos ringAt(Value counter);
  Value barrierId(Value stage, bool empty);
  // Consumer pieces.
  struct Raw {
    Value row0, row1;     // vector<2xi32>: 8 bytes of each of the two rows
    Value scale0, scale1; // i32: the 4 scale bytes (K chunks 0-3) of a row
  };
  /// What the consumer's tile loops share: thread coordinates, barriers and
  /// the descriptor of stage 0.
  struct ConsumerFrame {
    Value bars, warpgroup, warp, lane, lane4;
    Value desc0; // i64: the shared-memory descriptor of stage 0
  };
  Raw loadRaw(Value weightBase, Value scaleBase, Value row0, Value kb,
              Value lane4);
  Raw validScales(Raw raw, Value row0, Value kb, Value lane4);
  /// Whether K is whole blocks and a whole number of prefetch groups: the
  /// K loop then never loads past the last block but in its last
  /// iteration, whose loads are redirected to the last group and unused.
  bool blocksInRange() const;
  SmallVector<SmallVector<Value>> dequant(const Raw &raw, Value scaleSelector);
  Value stageDescriptor(const ConsumerFrame &f, Value stage);
  /// One K block's four k16 wgmmas of width n into the first n/2 of the
  /// accumulator registers `acc` (the rest pass through).
  Value issueWgmmas(int64_t n, Value acc, ArrayRef<SmallVector<Value>> a,
                    const ConsumerFrame &f, Value stage, Value accumulate);
  /// The same, with the width chosen at run time: tileWidths()[which].
  Value issueWgmmasOfWidth(Value which, Value acc,
                           ArrayRef<SmallVector<Value>> a,
                           const ConsumerFrame &f, Value stage,
                           Value accumulate);
  Value addAccumulators(Value total, Value acc);
  /// The K loop and epilogue of one tile; `which` selects its wgmma width.
  void emitTile(Value which, const ConsumerFrame &f, const ScheduledTile &tile,
                Value it0);
  void emitEpilogue(Value acc, const ScheduledTile &tile,
                    const ConsumerFrame &f);
  Value alphaOf(Value g);
  /// wgmma N of each tile shape the consumer instantiates (granule 32 up to
  /// the token tile).
  SmallVector<int64_t> tileWidths() const;

  Emitter e;
  OpBuilder &b;
  Location loc;
  const SM90GemmConfig &cfg;
  KernelArgs args;
  TileSpace space;
  std::optional<TileSchedule> schedule;
  Type descType, accType;
  int64_t kBlocksPadded = 0;
};

//===----------------------------------------------------------------------===//
// Producer: one elected thread fills the token ring with TMA
//===----------------------------------------------------------------------===//

GemmKernelBuilder::RingPos GemmKernelBuilder::ringAt(Value counter) {
  // With a power-of-two stage count (the default) this is a mask and a
  // shift of a value every thread of the warpgroup shares (uniform
  // registers); a carried (stage, phase) pair would take two more
  // per-thread registers in the consumers' loop.
  Value stage = e.remu(counter, e.c(cfg.stages));
  Value round = e.divu(counter, e.c(cfg.stages));
  return {stage, e.eq(e.remu(round, e.c(2)), e.c(1))};
}

Value GemmKernelBuilder::barrierId(Value stage, bool empty) {
  return empty ? e.add(stage, e.c(cfg.stages)) : stage;
}

//===----------------------------------------------------------------------===//
// Producer: one elected thread fills the token ring with TMA
//===----------------------------------------------------------------------===//

void GemmKernelBuilder::emitProducer(Value bars, Value stageBase) {
  NVVM::SetMaxRegisterOp::create(
      b, loc, b.getI32IntegerAttr(24),
      NVVM::SetMaxRegisterActionAttr::get(
          e.ctx, NVVM::SetMaxRegisterAction::decrease));
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpInGroup = e.divu(e.remu(tid, e.c(128)), e.c(32));
  e.ifThen(e.eq(warpInGroup, e.c(0)), [&] {
    Value elected = NVVM::ElectSyncOp::create(b, loc, e.i1, Value());
    e.ifThen(elected, [&] {
      Value desc =
          UnrealizedConversionCastOp::create(b, loc, descType, args.tokenMap)
              .getResult(0);
      nvgpu::TmaPrefetchOp::create(b, loc, desc, Value());
      Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
      Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
      Value total = totalTiles();
      auto stageType = MemRefType::get(
          {cfg.tokenTile, kSM90BlockK}, e.f16, MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(e.ctx, gpu::AddressSpace::Workgroup));
      Value ticks = e.c(10000000);
      scf::ForOp::create(
          b, loc, bid, total, grid, ValueRange{e.c(0)},
          [&](OpBuilder &, Location, Value t, ValueRange it0) {
            ScheduledTile tile = decodeTile(t);
            scf::ForOp::create(
                b, loc, e.c(0), e.c(kBlocksPadded), e.c(1), ValueRange{},
                [&](OpBuilder &, Location, Value kb, ValueRange) {
                  RingPos p = ringAt(e.add(it0[0], kb));
                  // Wait until the consumers released the stage: parity of
                  // the previous round (a fresh barrier passes the first).
                  nvgpu::MBarrierTryWaitParityOp::create(
                      b, loc, bars,
                      arith::XOrIOp::create(b, loc, p.phase, e.ci(e.i1, 1)),
                      ticks, barrierId(p.stage, /*empty=*/true));
                  Value full = barrierId(p.stage, /*empty=*/false);
                  nvgpu::MBarrierArriveExpectTxOp::create(
                      b, loc, bars, e.c(cfg.stageBytes()), full, Value());
                  Value view = memref::ViewOp::create(
                      b, loc, stageType, stageBase,
                      e.mul(p.stage, e.c(cfg.stageBytes())),
                      ValueRange{});
                  nvgpu::TmaAsyncLoadOp::create(
                      b, loc, view, bars, desc,
                      ValueRange{e.mul(kb, e.c(kSM90BlockK)), tile.rowStart},
                      full, Value(), Value());
                  scf::YieldOp::create(b, loc);
                });
            scf::YieldOp::create(b, loc,
                                 ValueRange{e.add(it0[0], e.c(kBlocksPadded))});
          });
    });
  });
}

//===----------------------------------------------------------------------===//
// Consumers
//===----------------------------------------------------------------------===//

bool GemmKernelBuilder::blocksInRange() const {
  return cfg.k % kSM90BlockK == 0 && cfg.kBlocks() % cfg.weightPrefetch == 0;
}

GemmKernelBuilder::Raw GemmKernelBuilder::loadRaw(Value weightBase,
                                                  Value scaleBase, Value row0,
                                                  Value kb, Value lane4) {
  // Every load is unconditional, from an address inside the operand (rows
  // past N clamped to the last row; blocks, and chunks past K, to the last
  // ones): a load under a condition becomes a predicated load and a select
  // of zero, a move that waits for the load. What lies outside is zeroed
  // where it is consumed (validScales). With blocksInRange() the caller
  // passes blocks inside K and the address is the plain induction.
  Value kChunk, kbClamped;
  if (blocksInRange()) {
    kbClamped = kb;
    kChunk = e.add(e.mul(kb, e.c(4)), lane4);
  } else if (cfg.k % kSM90BlockK == 0) {
    kbClamped = e.minsi(kb, e.c(cfg.kBlocks() - 1));
    kChunk = e.add(e.mul(kbClamped, e.c(4)), lane4);
  } else {
    kChunk = e.minsi(e.add(e.mul(kb, e.c(4)), lane4), e.c(cfg.k / 16 - 1));
    kbClamped = e.divu(kChunk, e.c(4));
  }
  auto vec2 = VectorType::get({2}, e.i32);
  auto loadRow = [&](Value row) -> std::pair<Value, Value> {
    row = e.minsi(row, e.c(cfg.n - 1));
    // Bytes [8c, 8c+8) of the 32-byte slice of block kb of this row.
    Value off = e.add(e.mul(row, e.c(cfg.k / 2)), e.mul(kChunk, e.c(8)));
    Value data = e.loadInvariant(vec2, e.gep(weightBase, off), 8);
    // Its scales: bytes (r%32)*16 + ((r%128)/32)*4 + c, c = 0..3, of the
    // 512-byte unit (r/128, kb) of the swizzled scales, as one word.
    int64_t colTiles = ceilDiv(cfg.k / 16, kScaleTileCols);
    Value unit = e.add(e.mul(e.divu(row, e.c(128)), e.c(colTiles)), kbClamped);
    Value soff =
        e.add(e.mul(unit, e.c(512)),
              e.add(e.mul(e.remu(row, e.c(32)), e.c(16)),
                    e.mul(e.divu(e.remu(row, e.c(128)), e.c(32)), e.c(4))));
    Value sc = e.loadInvariant(e.i32, e.gep(scaleBase, soff), 4);
    return {data, sc};
  };
  auto [d0, s0] = loadRow(row0);
  auto [d1, s1] = loadRow(e.add(row0, e.c(8)));
  return {d0, d1, s0, s1};
}

GemmKernelBuilder::Raw GemmKernelBuilder::validScales(Raw raw, Value row0,
                                                      Value kb, Value lane4) {
  // A zero scale makes the block's values +-0 whatever its codes are: rows
  // past N, chunks past K and blocks past the last contribute nothing.
  // With whole weight tiles and K in whole prefetch groups there are none.
  if (blocksInRange() && cfg.n % kSM90TileRows == 0)
    return raw;
  Value inK = e.lt(e.add(e.mul(kb, e.c(4)), lane4), e.c(cfg.k / 16));
  Value zero = e.ci(e.i32, 0);
  raw.scale0 = e.select(e.land(inK, e.lt(row0, e.c(cfg.n))), raw.scale0, zero);
  raw.scale1 = e.select(e.land(inK, e.lt(e.add(row0, e.c(8)), e.c(cfg.n))),
                        raw.scale1, zero);
  return raw;
}

SmallVector<SmallVector<Value>>
GemmKernelBuilder::dequant(const Raw &raw, Value scaleSelector) {
  // e2m1 nibble n -> the e4m3 bit pattern ((n&7)<<2) | ((n&8)<<4), which is
  // e2m1(n) * 2^-6; cvt.rn.f16x2.e4m3x2 makes it f16 (exact, normal), and a
  // multiply by scale * 2^6 (f16, exact, <= 28672) gives e2m1 * scale.
  auto f16x2 = VectorType::get({2}, e.f16);
  auto i8x2 = VectorType::get({2}, e.i8);
  auto cvt = [&](Value halfWord /*i32, low 16 bits*/) {
    Value v16 = arith::TruncIOp::create(b, loc, e.i16, halfWord);
    Value pair = LLVM::BitcastOp::create(b, loc, i8x2, v16);
    return NVVM::ConvertF8x2ToF16x2Op::create(
               b, loc, f16x2, pair, b.getBoolAttr(false),
               TypeAttr::get(b.getType<Float8E4M3FNType>()))
        .getResult();
  };
  auto toE4M3 = [&](Value v) {
    return e.ori(e.shl(e.andi(v, e.ci(e.i32, 0x07070707)), e.ci(e.i32, 2)),
                 e.shl(e.andi(v, e.ci(e.i32, 0x08080808)), e.ci(e.i32, 4)));
  };
  // Both scales at once: (s0, s1) -> f16x2 * 64.
  // This thread's chunk's scale byte of each row, side by side.
  Value scalePair = cvt(NVVM::PermuteOp::create(b, loc, e.i32, raw.scale0,
                                                raw.scale1, scaleSelector,
                                                NVVM::PermuteMode::DEFAULT));
  Value sixtyFour = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(f16x2, APFloat(APFloat::IEEEhalf(), "64")));
  scalePair = arith::MulFOp::create(b, loc, scalePair, sixtyFour);
  Value splat0 = vector::ShuffleOp::create(b, loc, scalePair, scalePair,
                                           ArrayRef<int64_t>{0, 0});
  Value splat1 = vector::ShuffleOp::create(b, loc, scalePair, scalePair,
                                           ArrayRef<int64_t>{1, 1});
  // pairs[row][step][slot] as i32 registers.
  auto rowPairs = [&](Value data, Value splat) {
    SmallVector<std::array<Value, 2>> steps(4);
    for (int64_t h = 0; h < 2; ++h) {
      Value w = vector::ExtractOp::create(b, loc, data, h);
      Value lo = e.andi(w, e.ci(e.i32, 0x0F0F0F0F));
      Value hi = e.andi(e.shru(w, e.ci(e.i32, 4)), e.ci(e.i32, 0x0F0F0F0F));
      Value el = toE4M3(lo), eh = toE4M3(hi);
      auto scaled = [&](Value half) {
        Value v = arith::MulFOp::create(b, loc, cvt(half), splat);
        return LLVM::BitcastOp::create(b, loc, e.i32, v).getResult();
      };
      Value sixteen = e.ci(e.i32, 16);
      // Step 2h: nibbles (0,2) and (4,6); step 2h+1: (1,3) and (5,7).
      steps[2 * h] = {scaled(el), scaled(e.shru(el, sixteen))};
      steps[2 * h + 1] = {scaled(eh), scaled(e.shru(eh, sixteen))};
    }
    return steps;
  };
  auto r0 = rowPairs(raw.row0, splat0);
  auto r1 = rowPairs(raw.row1, splat1);
  SmallVector<SmallVector<Value>> regs;
  for (int s = 0; s < 4; ++s) // {a0a1, a2a3, a4a5, a6a7}
    regs.push_back({r0[s][0], r1[s][0], r0[s][1], r1[s][1]});
  return regs;
}

SmallVector<int64_t> GemmKernelBuilder::tileWidths() const {
  SmallVector<int64_t> widths;
  for (int64_t n = kSM90TileGranule; n < cfg.tokenTile; n += kSM90TileGranule)
    widths.push_back(n);
  widths.push_back(cfg.tokenTile);
  return widths;
}

Value GemmKernelBuilder::stageDescriptor(const ConsumerFrame &f, Value stage) {
  // Only the address field changes with the stage.
  return e.add(f.desc0, e.toI64(e.mul(stage, e.c(cfg.stageBytes() / 16))));
}

Value GemmKernelBuilder::issueWgmmas(int64_t n, Value acc,
                                     ArrayRef<SmallVector<Value>> a,
                                     const ConsumerFrame &f, Value stage,
                                     Value accumulate) {
  int64_t regs = n / 2;
  Type narrow = LLVM::LLVMStructType::getLiteral(
      e.ctx, SmallVector<Type>(regs, e.f32));
  std::string outs;
  for (int64_t i = 0; i < regs; ++i)
    outs += (i ? ", $" : "$") + std::to_string(i);
  // The register-A form, which MLIR 22's wgmma ops lack. scale-d is a
  // predicate: D = A*B + D when set, D = A*B when clear. The accumulators
  // are tied ("0".."regs-1") so they stay in place across the async group.
  // The step's descriptor is the stage's plus 2 (32 bytes in 16-byte units)
  // per k16 step, added inside the asm: done in LLVM IR, the sums are
  // hoisted out of the K loop as 64-bit loop invariants that ptxas keeps
  // in ordinary registers and moves to uniform ones before every wgmma.
  auto asmFor = [&](bool predicated, int64_t step) {
    std::string desc = "$" + std::to_string(regs + 4);
    std::string text = "wgmma.mma_async.sync.aligned.m64n" +
                       std::to_string(n) + "k16.f32.f16.f16 {" + outs +
                       "}, {$" + std::to_string(regs) + ", $" +
                       std::to_string(regs + 1) + ", $" +
                       std::to_string(regs + 2) + ", $" +
                       std::to_string(regs + 3) + "}, " +
                       (step ? "d" : desc) + (predicated ? ", p" : ", 1") +
                       ", 1, 1, 0;";
    std::string prologue;
    if (step)
      prologue += ".reg .b64 d;\nadd.s64 d, " + desc + ", " +
                  std::to_string(2 * step) + ";\n";
    if (predicated)
      prologue += ".reg .pred p;\nsetp.ne.b32 p, $" +
                  std::to_string(regs + 5) + ", 0;\n";
    return prologue.empty() ? text : "{\n" + prologue + text + "\n}";
  };
  auto constraintsFor = [&](bool predicated) {
    std::string c;
    for (int64_t i = 0; i < regs; ++i)
      c += "=f,";
    c += "r,r,r,r,l";
    if (predicated)
      c += ",r";
    for (int64_t i = 0; i < regs; ++i)
      c += "," + std::to_string(i);
    return c;
  };
  // Fence and commit in the branch of its width, so that ptxas sees them
  // next to the wgmmas whose registers they order (at the join it would
  // inject a warpgroup.arrive of its own).
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  Value stageDesc = stageDescriptor(f, stage);
  for (int64_t step = 0; step < 4; ++step) {
    bool predicated = step == 0 && accumulate;
    SmallVector<Value> operands(a[step].begin(), a[step].end());
    operands.push_back(stageDesc);
    if (predicated)
      operands.push_back(accumulate);
    for (int64_t i = 0; i < regs; ++i)
      operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
    Value out = LLVM::InlineAsmOp::create(
                    b, loc, narrow, operands, asmFor(predicated, step),
                    constraintsFor(predicated),
                    /*has_side_effects=*/true, /*is_align_stack=*/false,
                    LLVM::tailcallkind::TailCallKind::None,
                    LLVM::AsmDialectAttr::get(e.ctx, LLVM::AsmDialect::AD_ATT),
                    /*operand_attrs=*/ArrayAttr())
                    .getResult(0);
    for (int64_t i = 0; i < regs; ++i)
      acc = LLVM::InsertValueOp::create(
          b, loc, acc, LLVM::ExtractValueOp::create(b, loc, out, i), i);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return acc;
}

Value GemmKernelBuilder::issueWgmmasOfWidth(Value which, Value acc,
                                            ArrayRef<SmallVector<Value>> a,
                                            const ConsumerFrame &f,
                                            Value stage, Value accumulate) {
  // One loop serves every width: the dequantized fragments, the ring and
  // the accumulator registers are the widest tile's, and only the wgmmas
  // differ (a uniform branch per K block). Separate loops per width would
  // keep every loop's invariants live at once and spill.
  SmallVector<int64_t> widths = tileWidths();
  std::function<Value(size_t)> from = [&](size_t v) -> Value {
    if (v + 1 == widths.size())
      return issueWgmmas(widths[v], acc, a, f, stage, accumulate);
    auto branch = scf::IfOp::create(b, loc, TypeRange{accType},
                                    e.eq(which, e.c(v)),
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    scf::YieldOp::create(
        b, loc, issueWgmmas(widths[v], acc, a, f, stage, accumulate));
    b.setInsertionPointToStart(&branch.getElseRegion().front());
    scf::YieldOp::create(b, loc, from(v + 1));
    return branch.getResult(0);
  };
  return from(0);
}

Value GemmKernelBuilder::addAccumulators(Value total, Value acc) {
  for (int64_t i = 0; i < cfg.tokenTile / 2; ++i) {
    Value sum = e.fadd(LLVM::ExtractValueOp::create(b, loc, total, i),
                       LLVM::ExtractValueOp::create(b, loc, acc, i));
    total = LLVM::InsertValueOp::create(b, loc, total, sum, i);
  }
  return total;
}

Value GemmKernelBuilder::alphaOf(Value g) {
  return emitGroupAlpha(e, cfg, args.aDecode, args.bDecode, args.alpha, g);
}

void GemmKernelBuilder::emitEpilogue(Value acc, const ScheduledTile &tile,
                                     const ConsumerFrame &f) {
  // Thread (warp w, lane l; g8 = l/4, c = l%4) holds, for each n8 block j of
  // the token tile, D[w-row][token] for weight rows 16w+g8 (+8) and tokens
  // 8j+2c (+1). C is row-major [token][n]: neighbouring n sit in lanes 4
  // apart, so one shuffle pairs them up for 2-element stores.
  Value lane = f.lane;
  Value g8 = e.divu(lane, e.c(4)), c4 = e.remu(lane, e.c(4));
  Value odd = e.eq(e.remu(g8, e.c(2)), e.c(1));
  Value oddIdx = e.select(odd, e.c(1), e.c(0));
  Value nBase = e.add(e.add(e.mul(tile.weightTile, e.c(kSM90TileRows)),
                            e.mul(f.warpgroup, e.c(kSM90WarpgroupRows))),
                      e.add(e.mul(f.warp, e.c(16)), g8));
  Value alpha = alphaOf(tile.group);
  Value outBase = pick(args.outputs, tile.group);
  Value accBase = cfg.hasAcc ? pick(args.accs, tile.group) : Value();
  // Output row of token-matrix row r: its row within the group's output.
  Value outRowBase = cfg.mode == Grouping::independent ? tile.rowBase : e.c(0);
  Value width = e.ci(e.i32, 32), four = e.ci(e.i32, 4);
  unsigned outBytes = cfg.outElement.getIntOrFloatBitWidth() / 8;
  auto vecOut = VectorType::get({2}, cfg.outElement);
  auto vecF32 = VectorType::get({2}, e.f32);
  // Columns past a narrower tile's tokens fail the token bound.
  for (int64_t j = 0; j < cfg.tokenTile / 8; ++j) {
    for (int64_t h = 0; h < 2; ++h) {
      Value x0 = e.fmul(
          LLVM::ExtractValueOp::create(b, loc, acc, 4 * j + 2 * h), alpha);
      Value x1 = e.fmul(
          LLVM::ExtractValueOp::create(b, loc, acc, 4 * j + 2 * h + 1), alpha);
      Value send = e.select(odd, x0, x1);
      Value recv = gpu::ShuffleOp::create(b, loc, send, four, width,
                                          gpu::ShuffleMode::XOR)
                       .getShuffleResult();
      Value lo = e.select(odd, recv, x0);
      Value hi = e.select(odd, x1, recv);
      Value token = e.add(e.add(tile.rowStart, e.c(8 * j)),
                          e.add(e.mul(c4, e.c(2)), oddIdx));
      Value col = e.sub(e.add(nBase, e.c(8 * h)), oddIdx);
      Value ok = e.land(e.lt(token, tile.tileEnd), e.lt(col, e.c(cfg.n)));
      e.ifThen(ok, [&] {
        Value offset = e.add(e.mul(e.sub(token, outRowBase), e.c(cfg.n)), col);
        Value byteOffset = e.mul(offset, e.c(outBytes));
        Value vlo = lo, vhi = hi;
        if (cfg.hasAcc) {
          Value cin = e.load(VectorType::get({2}, cfg.outElement),
                             e.gep(accBase, byteOffset), 2 * outBytes);
          if (!cfg.outElement.isF32())
            cin = arith::ExtFOp::create(b, loc, vecF32, cin);
          Value beta = e.cf(cfg.beta);
          vlo = e.fadd(vlo,
                       e.fmul(beta, vector::ExtractOp::create(b, loc, cin, 0)));
          vhi = e.fadd(vhi,
                       e.fmul(beta, vector::ExtractOp::create(b, loc, cin, 1)));
        }
        Value pair = vector::FromElementsOp::create(b, loc, vecF32,
                                                    ValueRange{vlo, vhi});
        if (!cfg.outElement.isF32())
          pair = arith::TruncFOp::create(b, loc, vecOut, pair);
        LLVM::StoreOp::create(b, loc, pair, e.gep(outBase, byteOffset),
                              2 * outBytes);
      });
    }
  }
}

void GemmKernelBuilder::emitTile(Value which, const ConsumerFrame &f,
                                 const ScheduledTile &tile, Value it0) {
  Value ticks = e.c(10000000);
  auto waitFull = [&](RingPos p) {
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, f.bars, p.phase, ticks,
                                           barrierId(p.stage, false));
  };
  // One arrival per consumer warp: wgmma.wait_group is warpgroup-wide, so
  // once lane 0 is past it every wgmma of its warpgroup reading the stage
  // has completed.
  auto release = [&](Value stage) {
    e.ifThen(e.eq(f.lane, e.c(0)), [&] {
      nvgpu::MBarrierArriveOp::create(b, loc,
                                      nvgpu::MBarrierTokenType::get(e.ctx),
                                      f.bars, barrierId(stage, true));
    });
  };

  Value weightBase = pick(args.weights, tile.group);
  Value scaleBase = pick(args.scales, tile.group);
  if (cfg.stackedWeights()) {
    weightBase = e.add(weightBase,
                       e.toI64(e.mul(tile.group, e.c(cfg.n * cfg.k / 2))));
    int64_t unitsPerGroup = ceilDiv(cfg.n, kScaleTileRows) *
                            ceilDiv(cfg.k / 16, kScaleTileCols) * 512;
    scaleBase =
        e.add(scaleBase, e.toI64(e.mul(tile.group, e.c(unitsPerGroup))));
  }
  Value row0 = e.add(e.add(e.mul(tile.weightTile, e.c(kSM90TileRows)),
                           e.mul(f.warpgroup, e.c(kSM90WarpgroupRows))),
                     e.add(e.mul(f.warp, e.c(16)), e.divu(f.lane, e.c(4))));
  auto rawValues = [&](const Raw &r) {
    return SmallVector<Value>{r.row0, r.row1, r.scale0, r.scale1};
  };
  auto rawOf = [&](ValueRange v) { return Raw{v[0], v[1], v[2], v[3]}; };
  // prmt selector of this thread's scale bytes: byte lane%4 of row 0's word
  // (bytes 0-3) and of row 1's (bytes 4-7).
  Value lane4 = arith::IndexCastOp::create(b, loc, e.i32, f.lane4);
  Value scaleSelector = arith::OrIOp::create(
      b, loc, lane4,
      e.shl(arith::AddIOp::create(b, loc, lane4, e.ci(e.i32, 4)),
            e.ci(e.i32, 4)));
  // Prologue: the weights of blocks 0 .. depth-1 in flight in registers
  // (loads past the last block return zeros).
  int64_t depth = cfg.weightPrefetch;
  bool promote = cfg.promoteEvery > 0;
  SmallVector<Value> init;
  Value zero = LLVM::ZeroOp::create(b, loc, accType);
  init.push_back(zero); // the tensor-core accumulator
  if (promote)
    init.push_back(zero); // the fp32 total of the finished chunks
  int64_t carried = init.size();
  for (int64_t kb = 0; kb < depth; ++kb)
    llvm::append_range(init, rawValues(loadRaw(weightBase, scaleBase, row0,
                                               e.c(kb), f.lane4)));
  // The loop runs `depth` blocks per iteration: the block loaded in slot j
  // replaces the one consumed there, so in-flight loads are never moved
  // between registers (a move would wait for the load: with a shifted FIFO
  // this stalled the consumers 25% of the time). A fragments alternate
  // between two register sets (even and odd blocks): a set is rewritten
  // only after the wgmmas reading it are known complete (wait_group 1
  // after the next block's wgmmas).
  auto loop = scf::ForOp::create(
      b, loc, e.c(0), e.c(kBlocksPadded / depth), e.c(1), init,
      [&](OpBuilder &, Location, Value i, ValueRange st) {
        Value acc = st[0];
        Value total = promote ? st[1] : Value();
        // raws: blocks depth*i .. depth*i + depth - 1.
        SmallVector<Value> raws(st.drop_front(carried));
        SmallVector<Value> loaded;
        // The blocks loaded this iteration start here (see blocksInRange).
        Value nextGroup = e.mul(e.add(i, e.c(1)), e.c(depth));
        if (blocksInRange())
          nextGroup = e.minsi(nextGroup, e.c(cfg.kBlocks() - depth));
        for (int64_t slot = 0; slot < depth; ++slot) {
          Value kb = e.add(e.mul(i, e.c(depth)), e.c(slot));
          Raw raw = validScales(rawOf(ValueRange(raws).slice(4 * slot, 4)),
                                row0, kb, f.lane4);
          auto a = dequant(raw, scaleSelector);
          // Block kb + depth takes its place (in flight during the next
          // iteration).
          llvm::append_range(
              loaded, rawValues(loadRaw(weightBase, scaleBase, row0,
                                        e.add(nextGroup, e.c(slot)), f.lane4)));
          Value it = e.add(it0, kb);
          RingPos p = ringAt(it);
          waitFull(p);
          Value accumulate;
          if (promote && slot % 2 == 0) {
            // A chunk starts: fold the finished one into the fp32 total
            // (its wgmmas must be complete) and restart the tensor-core sum
            // (scale-d = 0).
            Value chunkStart = e.eq(e.remu(kb, e.c(cfg.promoteEvery)), e.c(0));
            auto fold = scf::IfOp::create(
                b, loc, TypeRange{accType},
                e.land(chunkStart,
                       e.cmp(arith::CmpIPredicate::sgt, kb, e.c(0))),
                /*withElseRegion=*/true);
            {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPointToStart(&fold.getThenRegion().front());
              NVVM::WgmmaWaitGroupSyncOp::create(b, loc,
                                                 b.getI64IntegerAttr(0));
              scf::YieldOp::create(b, loc,
                                   ValueRange{addAccumulators(total, acc)});
              b.setInsertionPointToStart(&fold.getElseRegion().front());
              scf::YieldOp::create(b, loc, ValueRange{total});
            }
            total = fold.getResult(0);
            accumulate = arith::ExtUIOp::create(
                b, loc, e.i32,
                arith::XOrIOp::create(b, loc, chunkStart, e.ci(e.i1, 1)));
          }
          acc = issueWgmmasOfWidth(which, acc, a, f, p.stage, accumulate);
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(1));
          // The previous block's wgmmas are done: its stage is free.
          auto releasePrevious = [&] {
            release(ringAt(e.sub(it, e.c(1))).stage);
          };
          if (slot > 0)
            releasePrevious();
          else
            e.ifThen(e.cmp(arith::CmpIPredicate::sgt, i, e.c(0)),
                     releasePrevious);
        }
        SmallVector<Value> yield{acc};
        if (promote)
          yield.push_back(total);
        yield.append(loaded);
        scf::YieldOp::create(b, loc, yield);
      });
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
  release(ringAt(e.add(it0, e.c(kBlocksPadded - 1))).stage);
  Value result = promote ? addAccumulators(loop.getResult(1), loop.getResult(0))
                         : loop.getResult(0);
  emitEpilogue(result, tile, f);
}

void GemmKernelBuilder::emitConsumer(Value bars, Value stageBase,
                                     Value warpgroup) {
  NVVM::SetMaxRegisterOp::create(
      b, loc, b.getI32IntegerAttr(240),
      NVVM::SetMaxRegisterActionAttr::get(
          e.ctx, NVVM::SetMaxRegisterAction::increase));
  ConsumerFrame f;
  f.bars = bars;
  f.warpgroup = warpgroup;
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value t128 = e.remu(tid, e.c(128));
  f.warp = e.divu(t128, e.c(32));
  f.lane = e.remu(t128, e.c(32));
  f.lane4 = e.remu(f.lane, e.c(4));
  Value stageAddr = e.toI64(
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, stageBase));
  // K-major, 128B swizzle: address>>4 in bits 0-13, LBO 16 B (unused) in
  // bits 16-29, SBO 1024 B (8 rows of 128 B) in bits 32-45, swizzle mode 1
  // (128B) in bits 62-63.
  f.desc0 =
      e.ori(e.andi(e.shru(stageAddr, e.ci(e.i64, 4)), e.ci(e.i64, 0x3FFF)),
            e.ci(e.i64, (int64_t(1) << 16) | (int64_t(64) << 32) |
                            (int64_t(1) << 62)));
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value total = totalTiles();
  int64_t numWidths = tileWidths().size();
  scf::ForOp::create(
      b, loc, bid, total, grid, ValueRange{e.c(0)},
      [&](OpBuilder &, Location, Value t, ValueRange itIn) {
        Value it0 = e.mul(e.divu(e.sub(t, bid), grid), e.c(kBlocksPadded));
        ScheduledTile tile = decodeTile(t);
        // The narrowest wgmma N that covers the tile's tokens.
        Value rows = e.sub(tile.tileEnd, tile.rowStart);
        Value which = e.divu(e.add(rows, e.c(kSM90TileGranule - 1)),
                             e.c(kSM90TileGranule));
        which = e.minsi(e.maxsi(e.sub(which, e.c(1)), e.c(0)),
                        e.c(numWidths - 1));
        emitTile(which, f, tile, it0);
        scf::YieldOp::create(b, loc,
                             ValueRange{e.add(it0, e.c(kBlocksPadded))});
      });
}

gpu::GPUFuncOp GemmKernelBuilder::build(gpu::GPUModuleOp module,
                                        StringRef name) {
  MLIRContext *ctx = e.ctx;
  // Whole iterations of the consumers' unrolled loop; the producer loads
  // the same blocks (zeros past K: the TMA box is out of bounds).
  kBlocksPadded =
      ceilDiv(cfg.kBlocks(), cfg.weightPrefetch) * cfg.weightPrefetch;
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(cfg.tokenTile / 2, e.f32));
  descType = nvgpu::TensorMapDescriptorType::get(
      ctx,
      MemRefType::get({cfg.tokenTile, kSM90BlockK}, e.f16,
                      MemRefLayoutAttrInterface(), workgroup),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  std::string smemName = (name + "_smem").str();
  declareDynamicShared(b, loc, smemName);

  SmallVector<Type> argTypes{LLVM::LLVMPointerType::get(ctx)};
  int64_t numI64 =
      2 * cfg.operandPointers() + cfg.outputPointers() * (cfg.hasAcc ? 2 : 1);
  numI64 += cfg.mode != Grouping::independent;
  numI64 += cfg.aDecode + cfg.bDecode + cfg.alpha;
  argTypes.append(numI64, e.i64);
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr("nvvm.maxntid",
                b.getDenseI32ArrayAttr({int32_t(cfg.threads()), 1, 1}));
  func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(1));

  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  auto argIt = entry.getArguments().begin();
  args.tokenMap = *argIt++;
  auto take = [&](int64_t count, SmallVector<Value> &into) {
    for (int64_t i = 0; i < count; ++i)
      into.push_back(*argIt++);
  };
  take(cfg.operandPointers(), args.weights);
  take(cfg.operandPointers(), args.scales);
  static_cast<EpilogueArgs &>(args) = EpilogueArgs::take(cfg, argIt);
  space.mode = cfg.mode;
  space.groups = cfg.groups;
  space.rowsPerGroup = cfg.rowsPerGroup;
  space.maxRows = cfg.maxRows;
  space.tokenTile = cfg.tokenTile;
  space.balanceGranule = kSM90TileGranule;
  space.weightTiles = cfg.nTiles();
  schedule.emplace(b, loc, space, args.groupInfo);

  // Barriers: full[s] (TMA bytes landed) and empty[s] (consumers done).
  auto barsType = nvgpu::MBarrierGroupType::get(ctx, workgroup, 2 * cfg.stages);
  Value bars = nvgpu::MBarrierCreateOp::create(b, loc, barsType);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value first = e.eq(tid, e.c(0));
  for (int64_t s = 0; s < cfg.stages; ++s) {
    nvgpu::MBarrierInitOp::create(b, loc, bars, e.c(1), e.c(s), first);
    nvgpu::MBarrierInitOp::create(b, loc, bars,
                                  e.c(4 * kSM90ConsumerWarpgroups),
                                  e.c(cfg.stages + s), first);
  }
  gpu::BarrierOp::create(b, loc);

  // The ring, 1024-byte aligned (128B-swizzle atoms).
  auto [all, aligned] = emitDynamicShared(b, loc, smemName, cfg.sharedBytes());
  Value pad = e.sub(
      aligned, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, all));
  auto ringType = MemRefType::get({cfg.sharedBytes() - 1024}, e.i8,
                                  MemRefLayoutAttrInterface(), workgroup);
  Value ring = memref::ViewOp::create(b, loc, ringType, all, pad, ValueRange{});

  Value warpgroup = e.divu(tid, e.c(128));
  scf::IfOp::create(
      b, loc, e.eq(warpgroup, e.c(kSM90ConsumerWarpgroups)),
      [&](OpBuilder &, Location) {
        emitProducer(bars, ring);
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &, Location) {
        emitConsumer(bars, ring, warpgroup);
        scf::YieldOp::create(b, loc);
      });
  gpu::ReturnOp::create(b, loc);
  return func;
}

} // namespace

gpu::GPUFuncOp
mlir::nvfp4::buildSM90GroupedGemmKernel(OpBuilder &b, Location loc,
                                        gpu::GPUModuleOp module, StringRef name,
                                        const SM90GemmConfig &config) {
  GemmKernelBuilder builder(b, loc, config);
  return builder.build(module, name);
}
