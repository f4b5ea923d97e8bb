//===- NVFP4KernelToNVVM.cpp - nvfp4k ops to NVGPU/NVVM -------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// One pattern per nvfp4k op, in the style of upstream NVGPUToNVVM: each
// expands to upstream nvgpu/nvvm ops (mbarrier groups, TMA, descriptors,
// conversions) plus the index arithmetic around them. The only inline PTX
// is the register-A wgmma, which MLIR 22 lacks (test/Canary pins the gap).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4KernelToNVVM/NVFP4KernelToNVVM.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"

#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4KERNELTONVVM
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4k;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value cIndex(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}
Value cInt(ImplicitLocOpBuilder &b, Type type, int64_t v) {
  return arith::ConstantIntOp::create(b, type, v);
}

/// A pointer into global memory: the i64 address `base` plus `byteOffset`
/// (index).
Value globalAddress(ImplicitLocOpBuilder &b, Value base, Value byteOffset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value ptr = LLVM::IntToPtrOp::create(b, ptrType, base);
  Value offset = arith::IndexCastOp::create(b, b.getI64Type(), byteOffset);
  return LLVM::GEPOp::create(b, ptrType, b.getI8Type(), ptr,
                             ValueRange{offset});
}

/// The shared-memory pointer of a workgroup memref with an identity layout.
Value sharedPointer(ImplicitLocOpBuilder &b, Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
  Value i64 = arith::IndexCastOp::create(b, b.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), i64);
}

/// Position `i` of a ring: its stage `i mod S` (index) and the parity of its
/// round `i / S` (i1). In i32: the divisor is a constant, so this is a
/// multiply-high (a mask and a shift for a power-of-two S), where 64-bit
/// index arithmetic would be a long sequence.
struct RingPosition {
  Value stage, parity;
};

RingPosition ringPosition(ImplicitLocOpBuilder &b, RingType ring,
                          Value position) {
  Value i = arith::IndexCastUIOp::create(b, b.getI32Type(), position);
  Value stages = cInt(b, b.getI32Type(), ring.getStages());
  Value stage = arith::RemUIOp::create(b, i, stages);
  Value round = arith::DivUIOp::create(b, i, stages);
  return {arith::IndexCastUIOp::create(b, b.getIndexType(), stage),
          arith::TruncIOp::create(b, b.getI1Type(), round)};
}

/// The barrier index of a stage's empty barrier (full barriers come first).
Value emptyBarrier(ImplicitLocOpBuilder &b, RingType ring, Value stage) {
  return arith::AddIOp::create(b, stage, cIndex(b, ring.getStages()));
}

/// Suspend-time hint of the mbarrier waits (the PTX loop retries after it).
constexpr int64_t kWaitTicks = 10000000;

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

struct SharedMemoryLowering : OpConversionPattern<SharedMemoryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SharedMemoryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
    auto module = kernel ? kernel->getParentOfType<gpu::GPUModuleOp>()
                         : gpu::GPUModuleOp();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not in a gpu.func of a gpu.module");
    MLIRContext *ctx = op.getContext();
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    auto bytesType = [&](int64_t n) {
      return MemRefType::get({n}, IntegerType::get(ctx, 8),
                             MemRefLayoutAttrInterface(), workgroup);
    };
    // An extern `.shared .align 1024` array: the dynamic window.
    std::string symbol = (kernel.getName() + "_smem").str();
    if (!SymbolTable::lookupSymbolIn(module, symbol)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      memref::GlobalOp::create(rewriter, op.getLoc(), symbol,
                               rewriter.getStringAttr("public"), bytesType(0),
                               Attribute(), /*constant=*/false,
                               rewriter.getI64IntegerAttr(1024));
    }
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    int64_t bytes = op.getBuffer().getType().getNumElements();
    int64_t window = sharedMemoryLaunchBytes(bytes);
    Value global = memref::GetGlobalOp::create(b, bytesType(0), symbol);
    Value all = memref::ReinterpretCastOp::create(
        b, bytesType(window), global, /*offset=*/0, ArrayRef<int64_t>{window},
        ArrayRef<int64_t>{1});
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, all);
    Value aligned = arith::AndIOp::create(
        b, arith::AddIOp::create(b, base, cIndex(b, 1023)),
        cIndex(b, ~int64_t(1023)));
    Value pad = arith::SubIOp::create(b, aligned, base);
    rewriter.replaceOpWithNewOp<memref::ViewOp>(op, op.getBuffer().getType(),
                                                all, pad, ValueRange{});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The ring
//===----------------------------------------------------------------------===//

struct RingCreateLowering : OpConversionPattern<RingCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingType ring = op.getRing().getType();
    Type groupType = getTypeConverter()->convertType(ring);
    Value group = nvgpu::MBarrierCreateOp::create(b, groupType);
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    Value first =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, cIndex(b, 0));
    int64_t stages = ring.getStages();
    for (int64_t s = 0; s < stages; ++s)
      nvgpu::MBarrierInitOp::create(b, group, cIndex(b, ring.getProducers()),
                                    cIndex(b, s), first);
    for (int64_t s = 0; s < stages; ++s)
      nvgpu::MBarrierInitOp::create(b, group, cIndex(b, ring.getConsumers()),
                                    cIndex(b, stages + s), first);
    // The asynchronous proxy (TMA complete_tx, tcgen05.commit) must see the
    // initialised barriers.
    scf::IfOp::create(b, first, [&](OpBuilder &nested, Location loc) {
      NVVM::FenceMbarrierInitOp::create(nested, loc);
      NVVM::FenceProxyOp::create(
          nested, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(nested.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      scf::YieldOp::create(nested, loc);
    });
    rewriter.replaceOp(op, group);
    return success();
  }
};

struct RingStageLowering : OpConversionPattern<RingStageOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(
        op,
        ringPosition(b, op.getRing().getType(), adaptor.getPosition()).stage);
    return success();
  }
};

/// wait_full and wait_empty: try_wait.parity on the stage's full barrier
/// with the round's parity, or on its empty barrier with the parity of the
/// round before (a fresh barrier passes a wait on parity 1).
template <typename OpTy, bool Empty>
struct RingWaitLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingType ring = op.getRing().getType();
    RingPosition p = ringPosition(b, ring, adaptor.getPosition());
    Value barrier = p.stage, parity = p.parity;
    if (Empty) {
      barrier = emptyBarrier(b, ring, p.stage);
      parity = arith::XOrIOp::create(b, parity, cInt(b, b.getI1Type(), 1));
    }
    nvgpu::MBarrierTryWaitParityOp::create(b, adaptor.getRing(), parity,
                                           cIndex(b, kWaitTicks), barrier);
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingExpectTxLowering : OpConversionPattern<RingExpectTxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingPosition p =
        ringPosition(b, op.getRing().getType(), adaptor.getPosition());
    nvgpu::MBarrierArriveExpectTxOp::create(
        b, adaptor.getRing(), adaptor.getBytes(), p.stage, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingReleaseLowering : OpConversionPattern<RingReleaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingType ring = op.getRing().getType();
    RingPosition p = ringPosition(b, ring, adaptor.getPosition());
    nvgpu::MBarrierArriveOp::create(
        b, nvgpu::MBarrierTokenType::get(op.getContext()), adaptor.getRing(),
        emptyBarrier(b, ring, p.stage));
    rewriter.eraseOp(op);
    return success();
  }
};

struct RingArriveLowering : OpConversionPattern<RingArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RingArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingPosition p =
        ringPosition(b, op.getRing().getType(), adaptor.getPosition());
    nvgpu::MBarrierArriveOp::create(
        b, nvgpu::MBarrierTokenType::get(op.getContext()), adaptor.getRing(),
        p.stage);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The tile scheduler
//===----------------------------------------------------------------------===//

/// The arithmetic of a tile space (SchedulerType describes it): the one
/// place that walks groups. `table` is the i64 address of the group table
/// (contiguous: G + 1 i32 offsets; masked: G i32 row counts).
class TileWalk : nvfp4::KernelArith {
public:
  TileWalk(ImplicitLocOpBuilder &b, SchedulerType space, Value table)
      : KernelArith(b), space(space), table(table) {}

  /// Rows of group g, and the token-matrix row of its first token.
  Value groupRows(Value g) {
    switch (space.getMode()) {
    case nvfp4::Grouping::independent:
      return pick(staticRows(), g);
    case nvfp4::Grouping::contiguous: {
      Value lo = clamp(entry(g), c(0), c(space.getRows()));
      Value hi = clamp(entry(add(g, c(1))), lo, c(space.getRows()));
      return sub(hi, lo);
    }
    case nvfp4::Grouping::masked:
      return clamp(entry(g), c(0), c(space.getRows()));
    }
    llvm_unreachable("grouping");
  }
  Value groupStart(Value g) {
    switch (space.getMode()) {
    case nvfp4::Grouping::independent: {
      SmallVector<int64_t> starts;
      int64_t acc = 0;
      for (int64_t r : space.getGroupRows()) {
        starts.push_back(acc);
        acc += r;
      }
      return pick(starts, g);
    }
    case nvfp4::Grouping::contiguous:
      return clamp(entry(g), c(0), c(space.getRows()));
    case nvfp4::Grouping::masked:
      return mul(g, c(space.getRows()));
    }
    llvm_unreachable("grouping");
  }
  Value tokenTiles(Value g) { return tokenTilesOf(groupRows(g)); }
  /// Token tiles of a group of `rows` rows.
  Value tokenTilesOf(Value rows) {
    return divu(add(rows, c(space.getTokenTile() - 1)),
                c(space.getTokenTile()));
  }
  /// All tiles of group g (its token tiles times the weight tiles).
  Value groupTiles(Value g) {
    return mul(tokenTiles(g), c(space.getWeightTiles()));
  }
  /// Rows per token tile of a group of `rows` rows cut into `tiles` tiles.
  Value rowsPerTile(Value rows, Value tiles) {
    int64_t granule = space.getGranule();
    if (!granule)
      return c(space.getTokenTile());
    // ceil(rows / tiles) rounded up to the granule: <= token_tile, since
    // tiles = ceil(rows / token_tile) and the granule divides token_tile.
    Value safe = arith::MaxSIOp::create(b, tiles, c(1));
    Value per = divu(add(rows, sub(safe, c(1))), safe);
    return mul(divu(add(per, c(granule - 1)), c(granule)), c(granule));
  }
  Value count() {
    auto loop = scf::ForOp::create(
        b, c(0), c(space.getGroups()), c(1), ValueRange{c(0)},
        [&](OpBuilder &, Location, Value g, ValueRange acc) {
          scf::YieldOp::create(b, ValueRange{add(acc[0], groupTiles(g))});
        });
    return loop.getResult(0);
  }
  /// (group, weight tile, row start, tile end, group start, group end,
  /// group's first tile). The walk over the groups' tile counts starts at
  /// `cursor` (an earlier tile's group and first tile) when it is given and
  /// not past t, else at group 0; it stops at the group that holds t (the
  /// last group for a t past every tile).
  SmallVector<Value> tile(Value t, ValueRange cursor) {
    Value g0 = c(0), first0 = c(0);
    if (!cursor.empty()) {
      Value usable =
          arith::AndIOp::create(b, cmp(arith::CmpIPredicate::ule, cursor[1], t),
                                lt(cursor[0], c(space.getGroups())));
      g0 = select(usable, cursor[0], c(0));
      first0 = select(usable, cursor[1], c(0));
    }
    // One group per iteration: `next` is the first tile of the group after
    // g, computed once and handed from the condition to the body. The state
    // is i32 (tile numbers and groups are below 2^31, SchedulerType's
    // verifier): in index values the walk spilled in the 40-register TMA
    // issuer.
    Type i32 = b.getI32Type();
    Value t32 = toI32(t);
    auto walk = scf::WhileOp::create(
        b, TypeRange{i32, i32, i32},
        ValueRange{toI32(g0), toI32(first0), toI32(first0)},
        [&](OpBuilder &, Location, ValueRange st) {
          Value g = st[0], first = st[1];
          Value next = add(first, toI32(groupTiles(toIndex(g))));
          Value more = arith::AndIOp::create(
              b, cmp(arith::CmpIPredicate::uge, t32, next),
              lt(add(g, c32(1)), c32(space.getGroups())));
          scf::ConditionOp::create(b, more, ValueRange{g, first, next});
        },
        [&](OpBuilder &, Location, ValueRange st) {
          scf::YieldOp::create(b, ValueRange{add(st[0], c32(1)), st[2], st[2]});
        });
    Value group = toIndex(walk.getResult(0));
    Value groupFirst = toIndex(walk.getResult(1));
    Value local = sub(t, groupFirst);
    Value rows = groupRows(group);
    Value tiles = tokenTilesOf(rows);
    Value tokenTile = arith::RemUIOp::create(b, local, tiles);
    Value weightTile = divu(local, tiles);
    Value start = groupStart(group);
    Value per = rowsPerTile(rows, tiles);
    Value rowStart = add(start, mul(tokenTile, per));
    Value groupEnd = add(start, rows);
    Value tileEnd = arith::MinSIOp::create(b, groupEnd, add(rowStart, per));
    return {group, weightTile, rowStart, tileEnd, start, groupEnd, groupFirst};
  }
  /// (group, its first row) of token-matrix row `row`; (groups, 0) when no
  /// group holds it.
  SmallVector<Value> groupOf(Value row) {
    auto loop = scf::ForOp::create(
        b, c(0), c(space.getGroups()), c(1),
        ValueRange{c(space.getGroups()), c(0)},
        [&](OpBuilder &, Location, Value g, ValueRange st) {
          Value start = groupStart(g);
          Value inside = arith::AndIOp::create(
              b,
              arith::CmpIOp::create(b, arith::CmpIPredicate::sle, start, row),
              lt(row, add(start, groupRows(g))));
          Value here = arith::AndIOp::create(
              b, inside,
              arith::CmpIOp::create(b, arith::CmpIPredicate::eq, st[0],
                                    c(space.getGroups())));
          scf::YieldOp::create(b, ValueRange{select(here, g, st[0]),
                                             select(here, start, st[1])});
        });
    return {loop.getResult(0), loop.getResult(1)};
  }
  /// sum_{h < g} ceil(rows_h / block).
  Value blocksBefore(Value g, int64_t block) {
    auto loop = scf::ForOp::create(
        b, c(0), g, c(1), ValueRange{c(0)},
        [&](OpBuilder &, Location, Value h, ValueRange acc) {
          Value blocks = divu(add(groupRows(h), c(block - 1)), c(block));
          scf::YieldOp::create(b, ValueRange{add(acc[0], blocks)});
        });
    return loop.getResult(0);
  }

private:
  SmallVector<int64_t> staticRows() {
    return SmallVector<int64_t>(space.getGroupRows());
  }
  /// Entry `index` of the i32 group table.
  Value entry(Value index) {
    Value ptr = globalAddress(b, table, mul(index, c(4)));
    return toIndex(LLVM::LoadOp::create(b, b.getI32Type(), ptr, 4));
  }

  SchedulerType space;
  Value table;
};

/// The work units of a space with k_blocks (SchedulerType describes them):
/// the one place that splits tiles between CTAs.
class WorkWalk : nvfp4::KernelArith {
public:
  WorkWalk(ImplicitLocOpBuilder &b, SchedulerType space, Value cta, Value ctas,
           Value count)
      : KernelArith(b), space(space), cta(cta), ctas(ctas), count(count),
        kBlocks(c(space.getKBlocks())) {}

  /// Stream-K: the share size q and CTA `x`'s share [begin, end) of the
  /// count * k_blocks iterations.
  struct Share {
    Value q, begin, end;
  };
  Share share(Value x) {
    Value total = mul(count, kBlocks);
    Value q = divu(add(total, sub(ctas, c(1))), ctas);
    Value begin = minsi(mul(x, q), total);
    return {q, begin, minsi(add(begin, q), total)};
  }

  Value units() {
    if (!space.getStreamK()) {
      // ceil((count - cta) / ctas), none past count.
      Value left = maxsi(sub(count, cta), c(0));
      return divu(add(left, sub(ctas, c(1))), ctas);
    }
    Share s = share(cta);
    Value lastTile = divu(sub(s.end, c(1)), kBlocks);
    Value n = add(sub(lastTile, divu(s.begin, kBlocks)), c(1));
    return select(lt(s.begin, s.end), n, c(0));
  }

  /// (tile, k_begin, k_end, position) of unit `u`.
  SmallVector<Value> unit(Value u) {
    if (!space.getStreamK())
      return {add(cta, mul(u, ctas)), c(0), kBlocks, mul(u, kBlocks)};
    Share s = share(cta);
    Value tile = add(divu(s.begin, kBlocks), u);
    Value first = mul(tile, kBlocks);
    Value kBegin = maxsi(sub(s.begin, first), c(0));
    Value kEnd = minsi(sub(s.end, first), kBlocks);
    return {tile, kBegin, kEnd, sub(add(first, kBegin), s.begin)};
  }

  /// The CTAs whose shares (of size q) hold tile t's first and last K
  /// block.
  std::pair<Value, Value> contributors(Value t, Value q) {
    Value first = mul(t, kBlocks);
    return {divu(first, q), divu(sub(add(first, kBlocks), c(1)), q)};
  }
  /// The partial slot of CTA x's part of tile t: 2x for the tile its share
  /// starts in, 2x + 1 for the one it ends in.
  Value slot(Value x, Value t, Value q) {
    Value startTile = divu(mul(x, q), kBlocks);
    return add(mul(x, c(2)), select(eq(t, startTile), c(0), c(1)));
  }
  Value kBlockCount() { return kBlocks; }

private:
  SchedulerType space;
  Value cta, ctas, count, kBlocks;
};

struct SchedulerUnitsLowering : OpConversionPattern<SchedulerUnitsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerUnitsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    WorkWalk walk(b, op.getScheduler().getType(), adaptor.getCta(),
                  adaptor.getCtas(), adaptor.getCount());
    rewriter.replaceOp(op, walk.units());
    return success();
  }
};

struct SchedulerUnitLowering : OpConversionPattern<SchedulerUnitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerUnitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    WorkWalk walk(b, op.getScheduler().getType(), adaptor.getCta(),
                  adaptor.getCtas(), adaptor.getCount());
    rewriter.replaceOp(op, walk.unit(adaptor.getUnit()));
    return success();
  }
};

/// The stream-K fixup (SchedulerFixupOp): store the partial, count the
/// arrival, and in the last CTA sum the partials in K order.
struct SchedulerFixupLowering : OpConversionPattern<SchedulerFixupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerFixupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    nvfp4::KernelArith k(b);
    SchedulerType space = op.getScheduler().getType();
    WorkWalk walk(b, space, adaptor.getCta(), adaptor.getCtas(),
                  adaptor.getCount());
    Value acc = adaptor.getAccumulator();
    auto accType = cast<VectorType>(acc.getType());
    int64_t n = accType.getDimSize(0), threads = op.getThreads();
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    Value t = adaptor.getTile(), thread = adaptor.getThread();
    Value whole =
        arith::AndIOp::create(b, k.eq(adaptor.getKBegin(), k.c(0)),
                              k.eq(adaptor.getKEnd(), walk.kBlockCount()));
    auto i1 = [&](bool v) { return cInt(b, b.getI1Type(), v); };
    auto barrier = [&] {
      NVVM::BarrierOp::create(b, TypeRange{}, cInt(b, i32, op.getBarrier()),
                              cInt(b, i32, threads),
                              NVVM::BarrierReductionAttr(), Value());
    };
    auto gpuFence = [&] { NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU); };
    // Element e of this thread in slot `slot`: e * threads + thread.
    auto elementAddress = [&](Value slot, int64_t e) {
      Value index =
          k.add(k.mul(slot, k.c(n * threads)), k.add(k.c(e * threads), thread));
      return globalAddress(b, adaptor.getWorkspace(), k.mul(index, k.c(4)));
    };
    auto partial = scf::IfOp::create(b, TypeRange{accType, b.getI1Type()},
                                     whole, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&partial.getThenRegion().front());
      scf::YieldOp::create(b, ValueRange{acc, i1(true)});

      b.setInsertionPointToStart(&partial.getElseRegion().front());
      WorkWalk::Share share = walk.share(adaptor.getCta());
      auto [first, last] = walk.contributors(t, share.q);
      Value mySlot = walk.slot(adaptor.getCta(), t, share.q);
      for (int64_t e = 0; e < n; ++e)
        LLVM::StoreOp::create(b, vector::ExtractOp::create(b, acc, e),
                              elementAddress(mySlot, e), 4);
      // Every thread's partial is visible at GPU scope before the arrival
      // is counted (the threadfence-reduction pattern).
      gpuFence();
      barrier();
      Value flagPtr =
          globalAddress(b, adaptor.getFlags(), k.mul(first, k.c(4)));
      Value leader = k.eq(thread, k.c(0));
      scf::IfOp::create(b, leader, [&](OpBuilder &, Location) {
        Value old = LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::add,
                                              flagPtr, cInt(b, i32, 1),
                                              LLVM::AtomicOrdering::monotonic);
        Value arrivals = arith::IndexCastOp::create(
            b, b.getIndexType(),
            arith::AddIOp::create(b, old, cInt(b, i32, 1)));
        Value isLast = k.eq(arrivals, k.add(k.sub(last, first), k.c(1)));
        // The last CTA leaves the flag as it found it for the next launch.
        scf::IfOp::create(b, isLast, [&](OpBuilder &, Location) {
          LLVM::StoreOp::create(b, cInt(b, i32, 0), flagPtr, 4);
          scf::YieldOp::create(b);
        });
        memref::StoreOp::create(b, arith::ExtUIOp::create(b, i32, isLast),
                                adaptor.getFlag(), ValueRange{k.c(0)});
        scf::YieldOp::create(b);
      });
      barrier();
      Value owner = arith::TruncIOp::create(
          b, b.getI1Type(),
          memref::LoadOp::create(b, adaptor.getFlag(), ValueRange{k.c(0)}));
      auto sum = scf::IfOp::create(b, TypeRange{accType}, owner,
                                   /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(&sum.getThenRegion().front());
        // The other CTAs' partials are visible after their fences and the
        // counted arrival.
        gpuFence();
        auto loop = scf::ForOp::create(
            b, first, k.add(last, k.c(1)), k.c(1), ValueRange{acc},
            [&](OpBuilder &, Location, Value x, ValueRange st) {
              Value mine = k.eq(x, adaptor.getCta());
              Value slot = walk.slot(x, t, share.q);
              auto part = scf::IfOp::create(b, TypeRange{accType}, mine,
                                            /*withElseRegion=*/true);
              {
                OpBuilder::InsertionGuard g2(b);
                b.setInsertionPointToStart(&part.getThenRegion().front());
                scf::YieldOp::create(b, ValueRange{acc});
                b.setInsertionPointToStart(&part.getElseRegion().front());
                // Volatile (ld.volatile: not from this SM's L1, which is
                // not coherent with the other SMs' stores).
                SmallVector<Value> elements;
                for (int64_t e = 0; e < n; ++e)
                  elements.push_back(
                      LLVM::LoadOp::create(b, f32, elementAddress(slot, e), 4,
                                           /*isVolatile=*/true));
                scf::YieldOp::create(
                    b, ValueRange{vector::FromElementsOp::create(b, accType,
                                                                 elements)});
              }
              // Sum in K order: the first contributor's partial is the
              // start, each later one is added to it.
              Value total = arith::SelectOp::create(
                  b, k.eq(x, first), part.getResult(0),
                  arith::AddFOp::create(b, st[0], part.getResult(0)));
              scf::YieldOp::create(b, ValueRange{total});
            });
        scf::YieldOp::create(b, loop.getResults());
        b.setInsertionPointToStart(&sum.getElseRegion().front());
        scf::YieldOp::create(b, ValueRange{acc});
      }
      scf::YieldOp::create(b, ValueRange{sum.getResult(0), owner});
    }
    rewriter.replaceOp(op, partial.getResults());
    return success();
  }
};

struct SchedulerCreateLowering : OpConversionPattern<SchedulerCreateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerCreateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value table = adaptor.getTable();
    if (!table)
      table = arith::ConstantIntOp::create(rewriter, op.getLoc(),
                                           rewriter.getI64Type(), 0);
    rewriter.replaceOp(op, table);
    return success();
  }
};

struct SchedulerCountLowering : OpConversionPattern<SchedulerCountOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerCountOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    TileWalk walk(b, op.getScheduler().getType(), adaptor.getScheduler());
    rewriter.replaceOp(op, walk.count());
    return success();
  }
};

struct SchedulerTileLowering : OpConversionPattern<SchedulerTileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    TileWalk walk(b, op.getScheduler().getType(), adaptor.getScheduler());
    rewriter.replaceOp(op, walk.tile(adaptor.getTile(), adaptor.getCursor()));
    return success();
  }
};

struct SchedulerBlocksBeforeLowering
    : OpConversionPattern<SchedulerBlocksBeforeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerBlocksBeforeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    TileWalk walk(b, op.getScheduler().getType(), adaptor.getScheduler());
    rewriter.replaceOp(op,
                       walk.blocksBefore(adaptor.getGroup(), op.getBlock()));
    return success();
  }
};

struct SchedulerGroupOfLowering : OpConversionPattern<SchedulerGroupOfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerGroupOfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    TileWalk walk(b, op.getScheduler().getType(), adaptor.getScheduler());
    rewriter.replaceOp(op, walk.groupOf(adaptor.getRow()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Loads
//===----------------------------------------------------------------------===//

struct TmaLoadLowering : OpConversionPattern<TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingPosition p =
        ringPosition(b, op.getRing().getType(), adaptor.getPosition());
    nvgpu::TmaAsyncLoadOp::create(
        b, adaptor.getDestination(), adaptor.getRing(), adaptor.getMap(),
        adaptor.getCoordinates(), p.stage, Value(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkLoadLowering : OpConversionPattern<BulkLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BulkLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingPosition p =
        ringPosition(b, op.getRing().getType(), adaptor.getPosition());
    Value barrier = nvgpu::MBarrierGetOp::create(b, b.getI64Type(),
                                                 adaptor.getRing(), p.stage);
    auto shared = LLVM::LLVMPointerType::get(op.getContext(), 3);
    auto global = LLVM::LLVMPointerType::get(op.getContext(), 1);
    // The shared::cluster form (PTX 8.0, sm_90): a CTA's own shared address
    // is a valid shared::cluster address; the .shared::cta destination
    // needs PTX 8.6.
    auto cluster = LLVM::LLVMPointerType::get(op.getContext(), 7);
    NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
        b,
        LLVM::AddrSpaceCastOp::create(
            b, cluster, sharedPointer(b, adaptor.getDestination())),
        LLVM::IntToPtrOp::create(b, global, adaptor.getSource()),
        LLVM::IntToPtrOp::create(b, shared, barrier),
        arith::IndexCastOp::create(b, b.getI32Type(), adaptor.getBytes()),
        Value(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sm_90a MMA step
//===----------------------------------------------------------------------===//

/// The exact E2M1 x E4M3 -> f16 arithmetic of the sm_90a dequantization
/// ops: a code becomes the E4M3 bit pattern of e2m1 * 2^-6, which
/// cvt.rn.f16x2.e4m3x2 widens exactly, and one mul.f16x2 by scale * 2^6
/// (exact in f16: <= 28672) gives e2m1 * scale.
class E2M1ToF16 {
public:
  explicit E2M1ToF16(ImplicitLocOpBuilder &b) : b(b) {}

  /// E4M3 bit pattern pairs (vector<2xi8>) -> f16x2.
  Value cvt(Value pair) {
    return NVVM::ConvertF8x2ToF16x2Op::create(
               b, VectorType::get({2}, b.getF16Type()), pair,
               b.getBoolAttr(false),
               TypeAttr::get(b.getType<Float8E4M3FNType>()))
        .getResult();
  }
  /// Two E4M3 scale bytes (vector<2xf8E4M3FN> or their bits, vector<2xi8>)
  /// as f16x2, times 2^6.
  Value scalePair(Value scales) {
    auto i8x2 = VectorType::get({2}, b.getI8Type());
    if (scales.getType() != i8x2)
      scales = vector::BitCastOp::create(b, i8x2, scales);
    Value pair = cvt(scales);
    Value sixtyFour = arith::ConstantOp::create(
        b, DenseElementsAttr::get(VectorType::get({2}, b.getF16Type()),
                                  APFloat(APFloat::IEEEhalf(), "64")));
    return arith::MulFOp::create(b, pair, sixtyFour);
  }
  /// Lane `lane` of an f16x2 in both lanes.
  Value splat(Value pair, int64_t lane) {
    return vector::ShuffleOp::create(b, pair, pair,
                                     ArrayRef<int64_t>{lane, lane});
  }
  /// The codes of the even (odd) nibbles of `x`, one per byte.
  Value nibbles(Value x, bool odd) {
    if (odd)
      x = arith::ShRUIOp::create(b, x, word(4));
    return arith::AndIOp::create(b, x, word(0x0F0F0F0F));
  }
  /// One code per byte -> the E4M3 bit pattern
  /// ((n & 7) << 2) | ((n & 8) << 4) = e2m1(n) * 2^-6, four bytes at once.
  Value toE4M3(Value nibbles) {
    Value mag = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, nibbles, word(0x07070707)), word(2));
    Value sign = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, nibbles, word(0x08080808)), word(4));
    return arith::OrIOp::create(b, mag, sign);
  }
  /// What `half` takes: the codes' E4M3 patterns.
  Value prepare(Value nibbles) { return toE4M3(nibbles); }
  /// Two E4M3 bytes (the low or high half of `bits`) -> f16x2 * scale
  /// (an f16x2 of scale * 2^6 in both lanes).
  Value half(Value bits, bool high, Value scale) {
    if (high)
      bits = arith::ShRUIOp::create(b, bits, word(16));
    Value pair = LLVM::BitcastOp::create(
        b, VectorType::get({2}, b.getI8Type()),
        arith::TruncIOp::create(b, b.getI16Type(), bits));
    return arith::MulFOp::create(b, cvt(pair), scale);
  }

private:
  Value word(int64_t v) { return cInt(b, b.getI32Type(), v); }
  ImplicitLocOpBuilder &b;
};

/// The exact E2M1 x E4M3 -> bf16 arithmetic (the A fragments of a bf16
/// wgmma): a code's bits s.e1e0.m0 placed at bf16 bits 15 and 8..6 are the
/// bf16 pattern of e2m1 * 2^-126 (subnormal for the codes below 1, as
/// E2M1's own are), one mul.bf16x2 by 2^126 gives e2m1 exactly and one by
/// the scale (widened exactly through f16 and f32) e2m1 * scale.
class E2M1ToBF16 {
public:
  /// e8m0: the scales are E8M0 (MXFP4), else E4M3.
  explicit E2M1ToBF16(ImplicitLocOpBuilder &b, bool e8m0 = false)
      : b(b), e8m0(e8m0) {}

  /// Two scale bytes (vector<2xf8E4M3FN> / vector<2xf8E8M0FNU> or their
  /// bits) as bf16x2: E4M3 widened through f16 and f32; E8M0 e as the bf16
  /// pattern e << 7 (2^(e - 127)), 0x0040 for e = 0 (2^-127, subnormal),
  /// 0x7FC0 (NaN) for e = 255.
  Value scalePair(Value scales) {
    auto i8x2 = VectorType::get({2}, b.getI8Type());
    if (scales.getType() != i8x2)
      scales = vector::BitCastOp::create(b, i8x2, scales);
    if (e8m0) {
      auto i16x2 = VectorType::get({2}, b.getI16Type());
      auto splat = [&](int64_t v) {
        return arith::ConstantOp::create(
            b, DenseElementsAttr::get(i16x2, b.getI16IntegerAttr(v)));
      };
      Value e = arith::ExtUIOp::create(b, i16x2, scales);
      Value bits = arith::ShLIOp::create(b, e, splat(7));
      bits = arith::SelectOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, e, splat(0)),
          splat(0x0040), bits);
      bits = arith::SelectOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, e, splat(255)),
          splat(0x7FC0), bits);
      return vector::BitCastOp::create(b, bf16x2(), bits);
    }
    Value f16 = E2M1ToF16(b).cvt(scales);
    Value f32 = arith::ExtFOp::create(
        b, VectorType::get({2}, b.getF32Type()), f16);
    return arith::TruncFOp::create(b, bf16x2(), f32);
  }
  Value splat(Value pair, int64_t lane) {
    return vector::ShuffleOp::create(b, pair, pair,
                                     ArrayRef<int64_t>{lane, lane});
  }
  Value nibbles(Value x, bool odd) { return E2M1ToF16(b).nibbles(x, odd); }
  /// `half` takes the codes themselves, one per byte.
  Value prepare(Value nibbles) { return nibbles; }
  /// The codes in bytes 0, 1 (2, 3 when `high`) of `codes` -> bf16x2 *
  /// scale (a bf16x2 of the scale in both lanes).
  Value half(Value codes, bool high, Value scale) {
    if (high)
      codes = arith::ShRUIOp::create(b, codes, word(16));
    // One code in the low byte of each 16-bit lane.
    Value lane0 = arith::AndIOp::create(b, codes, word(0xFF));
    Value lane1 = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, codes, word(0xFF00)), word(8));
    Value lanes = arith::OrIOp::create(b, lane0, lane1);
    Value magnitude = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, lanes, word(0x00070007)), word(6));
    Value sign = arith::ShLIOp::create(
        b, arith::AndIOp::create(b, lanes, word(0x00080008)), word(12));
    Value pattern = LLVM::BitcastOp::create(
        b, bf16x2(), arith::OrIOp::create(b, magnitude, sign));
    Value two126 = arith::ConstantOp::create(
        b, DenseElementsAttr::get(
               bf16x2(), APFloat(APFloat::BFloat(), "8.50705917302346158658e37")));
    return arith::MulFOp::create(
        b, arith::MulFOp::create(b, pattern, two126), scale);
  }

private:
  VectorType bf16x2() { return VectorType::get({2}, b.getBF16Type()); }
  Value word(int64_t v) { return cInt(b, b.getI32Type(), v); }
  ImplicitLocOpBuilder &b;
  bool e8m0;
};

struct DequantFragmentALowering : OpConversionPattern<DequantFragmentAOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantFragmentAOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    bool e8m0 =
        isa<Float8E8M0FNUType>(op.getScales().getType().getElementType());
    Value result = op.getFragments().getType().getElementType().isBF16()
                       ? lower(E2M1ToBF16(b, e8m0), b, op, adaptor)
                       : lower(E2M1ToF16(b), b, op, adaptor);
    rewriter.replaceOp(op, result);
    return success();
  }

  template <typename Arith>
  static Value lower(Arith dq, ImplicitLocOpBuilder &b, DequantFragmentAOp op,
                     OpAdaptor adaptor) {
    // Both rows' scales at once (f16: times 2^6).
    Value scalePair = dq.scalePair(adaptor.getScales());
    Value splat[2] = {dq.splat(scalePair, 0), dq.splat(scalePair, 1)};
    VectorType codes = op.getCodes().getType();
    int64_t words = codes.getDimSize(1);
    Value result = arith::ConstantOp::create(
        b, DenseElementsAttr::get(
               op.getFragments().getType(),
               b.getFloatAttr(op.getFragments().getType().getElementType(), 0)
                   .getValue()));
    for (int64_t w = 0; w < words; ++w) {
      // [row][parity][slots t0t1, t2t3]
      Value regs[2][2][2];
      for (int64_t r = 0; r < 2; ++r) {
        Value x = vector::ExtractOp::create(b, adaptor.getCodes(),
                                            ArrayRef<int64_t>{r, w});
        for (int64_t p = 0; p < 2; ++p) {
          Value e = dq.prepare(dq.nibbles(x, p == 1));
          regs[r][p][0] = dq.half(e, false, splat[r]);
          regs[r][p][1] = dq.half(e, true, splat[r]);
        }
      }
      for (int64_t p = 0; p < 2; ++p) {
        // a0a1 (r0,t0t1) a2a3 (r1,t0t1) a4a5 (r0,t2t3) a6a7 (r1,t2t3).
        Value lo = vector::ShuffleOp::create(b, regs[0][p][0], regs[1][p][0],
                                             ArrayRef<int64_t>{0, 1, 2, 3});
        Value hi = vector::ShuffleOp::create(b, regs[0][p][1], regs[1][p][1],
                                             ArrayRef<int64_t>{0, 1, 2, 3});
        Value step = vector::ShuffleOp::create(
            b, lo, hi, ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
        result = vector::InsertOp::create(b, step, result,
                                          ArrayRef<int64_t>{2 * w + p});
      }
    }
    return result;
  }
};

struct DequantCodesLowering : OpConversionPattern<DequantCodesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantCodesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    E2M1ToF16 dq(b);
    Value scale = vector::BroadcastOp::create(
        b, VectorType::get({2}, b.getI8Type()),
        arith::BitcastOp::create(b, b.getI8Type(), adaptor.getScale()));
    Value scaled = dq.splat(dq.scalePair(scale), 0);
    // Even nibbles hold values 0, 2, 4, 6 (bytes 0..3), odd ones 1, 3, 5, 7:
    // halves (0, 2), (4, 6) and (1, 3), (5, 7).
    Value even = dq.toE4M3(dq.nibbles(adaptor.getCodes(), false));
    Value odd = dq.toE4M3(dq.nibbles(adaptor.getCodes(), true));
    Value e02 = dq.half(even, false, scaled), e46 = dq.half(even, true, scaled);
    Value o13 = dq.half(odd, false, scaled), o57 = dq.half(odd, true, scaled);
    Value lo =
        vector::ShuffleOp::create(b, e02, o13, ArrayRef<int64_t>{0, 2, 1, 3});
    Value hi =
        vector::ShuffleOp::create(b, e46, o57, ArrayRef<int64_t>{0, 2, 1, 3});
    rewriter.replaceOp(
        op, vector::ShuffleOp::create(
                b, lo, hi, ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    return success();
  }
};

/// Chunk q of a token row into the B tile: value pairs (j, j + 2) as one
/// 32-bit store each, at column wgmmaFragmentK(j) + 64 (q % 2) + 2 (q / 2)
/// of the K block, in 128-byte-swizzled [rows, 64] atoms.
struct StoreTokensLowering : OpConversionPattern<StoreTokensOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreTokensOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    nvfp4::KernelArith k(b);
    int64_t rows = op.getTile().getType().getDimSize(0);
    Value row = adaptor.getRow(), q = adaptor.getChunk();
    // wgmmaFragmentK(j) is a multiple of 8 below 64 for the first value of
    // each pair, and 2 (q / 2) <= 6: the pair sits in 16-byte unit
    // wgmmaFragmentK(j) / 8 of atom q % 2, at byte 4 (q / 2) of it.
    Value rowBase =
        k.add(k.mul(k.remu(q, k.c(2)), k.c(rows * 128)), k.mul(row, k.c(128)));
    Value inUnit = k.mul(k.divu(q, k.c(2)), k.c(4));
    Value rowPhase = k.remu(row, k.c(8));
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, adaptor.getTile());
    auto sharedPtr = LLVM::LLVMPointerType::get(op.getContext(), 3);
    auto f16x2 = VectorType::get({2}, b.getF16Type());
    for (int64_t j : {0, 1, 4, 5, 8, 9, 12, 13}) {
      int64_t column = nvfp4k::wgmmaFragmentK(j);
      assert(column % 8 == 0 && column < 64 &&
             nvfp4k::wgmmaFragmentK(j + 2) == column + 1 &&
             "pairs of a chunk share a 32-bit word");
      Value unit = arith::XOrIOp::create(b, k.c(column / 8), rowPhase);
      Value offset = k.add(k.add(rowBase, k.mul(unit, k.c(16))), inUnit);
      Value address = k.toI64(k.add(base, offset));
      Value pair = vector::FromElementsOp::create(
          b, f16x2,
          ValueRange{vector::ExtractOp::create(b, adaptor.getValues(), j),
                     vector::ExtractOp::create(b, adaptor.getValues(), j + 2)});
      LLVM::StoreOp::create(b, LLVM::BitcastOp::create(b, b.getI32Type(), pair),
                            LLVM::IntToPtrOp::create(b, sharedPtr, address), 4);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct WgmmaRSLowering : OpConversionPattern<WgmmaRSOp> {
  using OpConversionPattern::OpConversionPattern;

  /// The asm of one m64n<n>k16 step: accumulators $0..$(n/2-1), A
  /// $(n/2)..$(n/2+3), the descriptor $(n/2+4) plus `descOffset` (16-byte
  /// units, added in the asm), the scale-d predicate $(n/2+5) when
  /// `predicated`.
  static std::string asmText(int64_t n, int64_t descOffset, bool predicated,
                             StringRef type) {
    int64_t regs = n / 2;
    std::string outs;
    for (int64_t i = 0; i < regs; ++i)
      outs += (i ? ", $" : "$") + std::to_string(i);
    std::string desc = "$" + std::to_string(regs + 4);
    std::string text =
        "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
        "k16.f32." + type.str() + "." + type.str() + " {" + outs + "}, {$" +
        std::to_string(regs) + ", $" +
        std::to_string(regs + 1) + ", $" + std::to_string(regs + 2) + ", $" +
        std::to_string(regs + 3) + "}, " + (descOffset ? "d" : desc) +
        (predicated ? ", p" : ", 1") + ", 1, 1, 0;";
    // The offset goes into the descriptor's low word (start address, bits
    // 0-13): a 32-bit add, since nothing carries into the high word (the
    // leading-dimension field in bits 16-29 stays below bit 32), where a
    // 64-bit add cost ptxas an add with carry and moves of both halves.
    std::string prologue;
    if (descOffset)
      prologue += ".reg .b32 lo, hi;\n.reg .b64 d;\nmov.b64 {lo, hi}, " + desc +
                  ";\nadd.u32 lo, lo, " + std::to_string(descOffset) +
                  ";\nmov.b64 d, {lo, hi};\n";
    if (predicated)
      prologue += ".reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(regs + 5) +
                  ", 0;\n";
    return prologue.empty() ? text : "{\n" + prologue + text + "\n}";
  }
  static std::string constraints(int64_t n, bool predicated) {
    int64_t regs = n / 2;
    std::string c;
    for (int64_t i = 0; i < regs; ++i)
      c += "=f,";
    c += "r,r,r,r,l";
    if (predicated)
      c += ",r";
    for (int64_t i = 0; i < regs; ++i)
      c += "," + std::to_string(i);
    return c;
  }

  /// fence, the k16 steps of width n, commit.
  Value issue(ImplicitLocOpBuilder &b, WgmmaRSOp op, OpAdaptor adaptor,
              int64_t n) const {
    MLIRContext *ctx = op.getContext();
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    int64_t regs = n / 2;
    Type narrow =
        LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(regs, f32));
    MemRefType tile = op.getDescriptor().getType().getTensor();
    int64_t atomBytes = tile.getDimSize(0) * 128; // rows x 64 f16
    Value desc = UnrealizedConversionCastOp::create(b, b.getI64Type(),
                                                    adaptor.getDescriptor())
                     .getResult(0);
    Value accumulate;
    if (adaptor.getScaleD())
      accumulate = arith::ExtUIOp::create(b, i32, adaptor.getScaleD());
    Value acc = adaptor.getAccumulator();
    VectorType a = op.getA().getType();
    NVVM::WgmmaFenceAlignedOp::create(b);
    for (int64_t s = 0; s < a.getDimSize(0); ++s) {
      int64_t k = op.getKOffset() + 16 * s;
      int64_t offset =
          ((k / kWgmmaAtomK) * atomBytes + (k % kWgmmaAtomK) * 2) / 16;
      bool predicated = s == 0 && accumulate;
      Value step = vector::ExtractOp::create(b, adaptor.getA(), s);
      Value words =
          vector::BitCastOp::create(b, VectorType::get({4}, i32), step);
      SmallVector<Value> operands;
      for (int64_t j = 0; j < 4; ++j)
        operands.push_back(vector::ExtractOp::create(b, words, j));
      operands.push_back(desc);
      if (predicated)
        operands.push_back(accumulate);
      for (int64_t i = 0; i < regs; ++i)
        operands.push_back(vector::ExtractOp::create(b, acc, i));
      Value out =
          LLVM::InlineAsmOp::create(
              b, narrow, operands,
              asmText(n, offset, predicated,
                      a.getElementType().isBF16() ? "bf16" : "f16"),
              constraints(n, predicated), /*has_side_effects=*/true,
              /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
              LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
              /*operand_attrs=*/ArrayAttr())
              .getResult(0);
      for (int64_t i = 0; i < regs; ++i)
        acc = vector::InsertOp::create(
            b, LLVM::ExtractValueOp::create(b, out, i), acc, i);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    return acc;
  }

  LogicalResult
  matchAndRewrite(WgmmaRSOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    ArrayRef<int64_t> widths = op.getN();
    // A binary tree of uniform branches over the widths. The fence and the
    // commit stay in each leaf, next to the wgmmas whose registers they
    // order (at a join ptxas would insert a warpgroup.arrive of its own).
    std::function<Value(size_t, size_t)> from = [&](size_t lo,
                                                    size_t hi) -> Value {
      if (lo == hi)
        return issue(b, op, adaptor, widths[lo]);
      size_t mid = (lo + hi) / 2;
      Value low = arith::CmpIOp::create(b, arith::CmpIPredicate::ule,
                                        adaptor.getWidth(), cIndex(b, mid));
      auto branch = scf::IfOp::create(b, TypeRange{op.getResult().getType()},
                                      low, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&branch.getThenRegion().front());
      scf::YieldOp::create(b, from(lo, mid));
      b.setInsertionPointToStart(&branch.getElseRegion().front());
      scf::YieldOp::create(b, from(mid + 1, hi));
      return branch.getResult(0);
    };
    rewriter.replaceOp(op, from(0, widths.size() - 1));
    return success();
  }
};

struct WgmmaWaitLowering : OpConversionPattern<WgmmaWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WgmmaWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    int64_t pending = op.getPending();
    if (adaptor.getValues().empty()) {
      NVVM::WgmmaWaitGroupSyncOp::create(b, b.getI64IntegerAttr(pending));
      rewriter.eraseOp(op);
      return success();
    }
    // One asm statement: the wait, with every 32-bit register of `values`
    // tied through it ("=r"/"=f" outputs, "0".."n-1" inputs).
    SmallVector<Value> scalars;
    for (Value v : adaptor.getValues()) {
      auto vector = dyn_cast<VectorType>(v.getType());
      if (!vector) {
        scalars.push_back(v);
        continue;
      }
      Value flat = vector::ShapeCastOp::create(
          b,
          VectorType::get({vector.getNumElements()}, vector.getElementType()),
          v);
      for (int64_t i = 0; i < vector.getNumElements(); ++i)
        scalars.push_back(vector::ExtractOp::create(b, flat, i));
    }
    std::string constraints;
    SmallVector<Type> types;
    for (Value v : scalars) {
      constraints += v.getType().isF32() ? "=f," : "=r,";
      types.push_back(v.getType());
    }
    for (size_t i = 0; i < scalars.size(); ++i)
      constraints += (i ? "," : "") + std::to_string(i);
    auto structType = LLVM::LLVMStructType::getLiteral(op.getContext(), types);
    Value out =
        LLVM::InlineAsmOp::create(
            b, structType, scalars,
            "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";",
            constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None,
            LLVM::AsmDialectAttr::get(op.getContext(),
                                      LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/ArrayAttr())
            .getResult(0);
    SmallVector<Value> results;
    int64_t next = 0;
    for (Value v : adaptor.getValues()) {
      auto vector = dyn_cast<VectorType>(v.getType());
      if (!vector) {
        results.push_back(LLVM::ExtractValueOp::create(b, out, next++));
        continue;
      }
      auto flatType =
          VectorType::get({vector.getNumElements()}, vector.getElementType());
      SmallVector<Value> elements;
      for (int64_t i = 0; i < vector.getNumElements(); ++i)
        elements.push_back(LLVM::ExtractValueOp::create(b, out, next++));
      results.push_back(vector::ShapeCastOp::create(
          b, vector, vector::FromElementsOp::create(b, flatType, elements)));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sm_100a MMA step
//===----------------------------------------------------------------------===//

/// The tcgen05 instruction descriptor of a block-scaled MMA (PTX ISA,
/// "Instruction descriptor format for .kind::mxf4 and .kind::mxf4nvf4"):
/// bits 4-5 SFB id, 7-9 A type (E2M1 = 1), 10-11 B type (E2M1 = 1),
/// 17-22 N >> 3, 23 scale type (UE8M0 = 1, UE4M3 = 0), 27-28 M >> 7,
/// 29-30 SFA id. Both operands K-major, no negation, dense.
static uint32_t blockScaledInstructionDescriptor(int64_t m, int64_t n,
                                                 bool mxfp4, int64_t sfId) {
  uint32_t v = 0;
  v |= static_cast<uint32_t>(sfId & 3) << 4;
  v |= 1u << 7;
  v |= 1u << 10;
  v |= static_cast<uint32_t>(n >> 3) << 17;
  if (mxfp4)
    v |= 1u << 23;
  v |= static_cast<uint32_t>(m >> 7) << 27;
  v |= static_cast<uint32_t>(sfId & 3) << 29;
  return v;
}

struct Tcgen05ScaledMmaLowering : OpConversionPattern<Tcgen05ScaledMmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05ScaledMmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    MLIRContext *ctx = op.getContext();
    Type i32 = b.getI32Type();
    auto c32 = [&](int64_t v) { return cInt(b, i32, v); };
    auto add = [&](Value x, Value y) {
      return arith::AddIOp::create(b, x, y).getResult();
    };
    auto tmem = [&](Value address) {
      return LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(ctx, 6),
                                      address);
    };
    auto sharedAddress = [&](Value memref) {
      Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
      return arith::IndexCastOp::create(b, i32, index).getResult();
    };
    // Shared-memory matrix descriptor (tcgen05): the op ORs in the version
    // bit but does not shift (test/Canary): addresses and offsets >> 4.
    auto smemDesc = [&](Value address, int64_t lbo, int64_t sbo,
                        int64_t swizzle) {
      return NVVM::Tcgen05MmaSmemDescOp::create(
          b, b.getI64Type(), arith::ShRUIOp::create(b, address, c32(4)),
          c32(lbo >> 4), c32(sbo >> 4), cInt(b, b.getI8Type(), 0),
          cInt(b, b.getI1Type(), 0), cInt(b, b.getI8Type(), swizzle));
    };
    bool mxfp4 = op.getMxfp4();
    int64_t units = op.getUnits(), steps = op.getSteps();
    int64_t blocks = op.getBScaleBlocks();
    Value kStage = adaptor.getKStage();
    Value firstUnit = arith::MulIOp::create(b, kStage, cIndex(b, units));
    Value firstStep = arith::MulIOp::create(b, kStage, cIndex(b, steps));
    Value aColumns = adaptor.getScaleColumns();
    Value bColumns = add(aColumns, c32(4 * units));
    Value aScales = sharedAddress(adaptor.getAScales());
    Value bScales = sharedAddress(adaptor.getBScales());
    auto ifThen = [&](Value cond, function_ref<void()> then) {
      scf::IfOp::create(b, cond, [&](OpBuilder &, Location) {
        then();
        scf::YieldOp::create(b);
      });
    };
    auto before = [&](Value first, int64_t i, int64_t total) {
      return arith::CmpIOp::create(
          b, arith::CmpIPredicate::slt,
          arith::AddIOp::create(b, first, cIndex(b, i)), cIndex(b, total));
    };
    // The stage's scale units -> its own tensor-memory columns: one
    // 512-byte unit (32 rows x 16 B, no swizzle) -> 4 columns, replicated
    // to the 4 lane quarters.
    auto copy = [&](Value columns, Value source) {
      NVVM::Tcgen05CpOp::create(
          b, NVVM::Tcgen05CpShape::SHAPE_32x128b, NVVM::CTAGroupKind::CTA_1,
          NVVM::Tcgen05CpMulticast::WARPX4, NVVM::Tcgen05CpSrcFormatAttr(),
          tmem(columns), smemDesc(source, 0, 128, 0));
    };
    for (int64_t u = 0; u < units; ++u) {
      ifThen(before(firstUnit, u, op.getTotalUnits()), [&] {
        copy(add(aColumns, c32(4 * u)), add(aScales, c32(512 * u)));
        for (int64_t rb = 0; rb < blocks; ++rb)
          copy(add(bColumns, c32(4 * (u * blocks + rb))),
               add(bScales, c32(512 * (rb * units + u))));
      });
    }
    // K steps of 64 along the 128-byte swizzle row: +32 bytes (+2 encoded)
    // each; LBO 16 B ("assumed 1"), SBO 1024 B, 128B swizzle (code 2).
    Value aDesc = smemDesc(sharedAddress(adaptor.getA()), 16, 1024, 2);
    Value bDesc = smemDesc(sharedAddress(adaptor.getB()), 16, 1024, 2);
    auto kind = mxfp4 ? NVVM::MMABlockScaleKind::MXF4
                      : NVVM::MMABlockScaleKind::MXF4NVF4;
    auto blockScale = mxfp4 ? NVVM::Tcgen05MMABlockScale::BLOCK32
                            : NVVM::Tcgen05MMABlockScale::BLOCK16;
    for (int64_t j = 0; j < steps; ++j) {
      ifThen(before(firstStep, j, op.getTotalSteps()), [&] {
        // NVFP4 (block16): unit j, scale id 0. MXFP4 (block32): one unit
        // covers K = 128; ids 0 and 2 pick its halves.
        int64_t u = mxfp4 ? j / 2 : j;
        int64_t sfId = mxfp4 ? 2 * (j % 2) : 0;
        auto step = [&](Value desc) {
          return j ? arith::AddIOp::create(b, desc,
                                           cInt(b, b.getI64Type(), 2 * j))
                         .getResult()
                   : desc;
        };
        Value accumulate = arith::CmpIOp::create(
            b, arith::CmpIPredicate::ne,
            arith::AddIOp::create(b, firstStep, cIndex(b, j)), cIndex(b, 0));
        NVVM::Tcgen05MMABlockScaleOp::create(
            b, kind, NVVM::CTAGroupKind::CTA_1, blockScale,
            NVVM::Tcgen05MMACollectorOp::DISCARD,
            tmem(adaptor.getAccumulator()), step(aDesc), step(bDesc),
            c32(blockScaledInstructionDescriptor(128, op.getN(), mxfp4, sfId)),
            accumulate, tmem(add(aColumns, c32(4 * u))),
            tmem(add(add(bColumns, c32(4 * u * blocks)),
                     adaptor.getBScaleOffset())));
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct Tcgen05CommitLowering : OpConversionPattern<Tcgen05CommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05CommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingType ring = op.getRing().getType();
    RingPosition p = ringPosition(b, ring, adaptor.getPosition());
    Value id = op.getBarrier() == RingBarrier::empty
                   ? emptyBarrier(b, ring, p.stage)
                   : p.stage;
    Value barrier =
        nvgpu::MBarrierGetOp::create(b, b.getI64Type(), adaptor.getRing(), id);
    NVVM::Tcgen05CommitOp::create(
        b,
        LLVM::IntToPtrOp::create(
            b, LLVM::LLVMPointerType::get(op.getContext(), 3), barrier),
        Value());
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

struct AlphaLowering : OpConversionPattern<AlphaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AlphaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    // Element `index` (null: 0) of the f32 array at `address`. No kernel
    // writes its decode scales or alpha: invariant loads, which LLVM may
    // share between the outputs of a thread (row-scaled operands load per
    // output) across the epilogue's stores.
    auto factor = [&](Value address, Value index) -> Value {
      if (!address)
        return Value();
      if (address.getType().isF32()) // the value, computed in the kernel
        return address;
      if (!index)
        index = cIndex(b, 0);
      Value ptr = globalAddress(b, address,
                                arith::MulIOp::create(b, index, cIndex(b, 4)));
      return LLVM::LoadOp::create(b, b.getF32Type(), ptr, /*alignment=*/4,
                                  /*isVolatile=*/false,
                                  /*isNonTemporal=*/false,
                                  /*isInvariant=*/true);
    };
    Value group = adaptor.getGroup();
    Value aDecode = factor(adaptor.getADecode(),
                           op.getADecodePerGroup() ? group : adaptor.getRow());
    Value bDecode =
        factor(adaptor.getBDecode(),
               op.getBDecodePerGroup() ? group : adaptor.getColumn());
    Value result = nvfp4::combineAlpha(b, b.getLoc(), aDecode, bDecode,
                                       factor(adaptor.getAlpha(), group));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type element = op.getElement();
    VectorType values = op.getValues().getType();
    int64_t p = values.getDimSize(0);
    unsigned bytes = element.getIntOrFloatBitWidth() / 8;
    auto outType = VectorType::get({p}, element);
    auto lt = [&](Value x, Value y) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
    };
    Value inside =
        arith::AndIOp::create(b, lt(adaptor.getRow(), adaptor.getRows()),
                              lt(adaptor.getColumn(), adaptor.getColumns()));
    scf::IfOp::create(b, inside, [&](OpBuilder &nested, Location loc) {
      ImplicitLocOpBuilder nb(loc, nested);
      Value offset = arith::MulIOp::create(
          nb,
          arith::AddIOp::create(
              nb,
              arith::MulIOp::create(nb, adaptor.getRow(),
                                    cIndex(nb, op.getRowStride())),
              adaptor.getColumn()),
          cIndex(nb, bytes));
      Value alpha = adaptor.getAlpha();
      if (!isa<VectorType>(alpha.getType()))
        alpha = vector::BroadcastOp::create(nb, values, alpha);
      Value v = arith::MulFOp::create(nb, alpha, adaptor.getValues());
      if (adaptor.getAcc()) {
        Value cin = LLVM::LoadOp::create(
            nb, outType, globalAddress(nb, adaptor.getAcc(), offset),
            p * bytes);
        if (!element.isF32())
          cin = arith::ExtFOp::create(nb, values, cin);
        Value beta = arith::ConstantOp::create(
            nb, DenseElementsAttr::get(values, op.getBeta()));
        v = arith::AddFOp::create(nb, v, arith::MulFOp::create(nb, beta, cin));
      }
      if (!element.isF32())
        v = arith::TruncFOp::create(nb, outType, v);
      LLVM::StoreOp::create(nb, v, globalAddress(nb, adaptor.getOut(), offset),
                            p * bytes);
      scf::YieldOp::create(nb);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertNVFP4KernelToNVVMPass
    : public nvfp4::impl::ConvertNVFP4KernelToNVVMBase<
          ConvertNVFP4KernelToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    nvfp4::populateNVFP4KernelTypeConversions(converter);
    RewritePatternSet patterns(ctx);
    nvfp4::populateNVFP4KernelToNVVMConversionPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<NVFP4KernelDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateNVFP4KernelTypeConversions(TypeConverter &converter) {
  converter.addConversion([](RingType ring) -> Type {
    MLIRContext *ctx = ring.getContext();
    return nvgpu::MBarrierGroupType::get(
        ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
        2 * ring.getStages());
  });
  converter.addConversion([](SchedulerType scheduler) -> Type {
    return IntegerType::get(scheduler.getContext(), 64);
  });
}

void mlir::nvfp4::populateNVFP4KernelToNVVMConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<SharedMemoryLowering, RingCreateLowering, RingStageLowering,
           RingWaitLowering<RingWaitFullOp, false>,
           RingWaitLowering<RingWaitEmptyOp, true>, RingExpectTxLowering,
           RingReleaseLowering, RingArriveLowering, SchedulerCreateLowering,
           SchedulerCountLowering, SchedulerTileLowering,
           SchedulerBlocksBeforeLowering, SchedulerGroupOfLowering,
           SchedulerUnitsLowering, SchedulerUnitLowering,
           SchedulerFixupLowering, TmaLoadLowering, Tcgen05ScaledMmaLowering,
           Tcgen05CommitLowering, BulkLoadLowering, DequantFragmentALowering,
           DequantCodesLowering, StoreTokensLowering, WgmmaRSLowering,
           WgmmaWaitLowering, AlphaLowering, StoreLowering>(
          converter, patterns.getContext());
}
