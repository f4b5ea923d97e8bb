//===- Scheduler.cpp - nvfp4k lowering: the tile scheduler ------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::nvfp4k;
using namespace mlir::nvfp4k::lowering;

namespace {

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

  /// Rows of group g, and the token-matrix row of its first token (a
  /// masked group's slot starts at g * rows).
  Value groupRows(Value g) {
    if (space.getMode() == nvfp4::Grouping::independent)
      return pick(staticRows(), g);
    nvfp4::GroupRowRange range = tableRange(g);
    return sub(range.end, range.begin);
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
      return tableRange(g).begin;
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
  /// Group g's rows as the table gives them (the lowerings' one reading).
  nvfp4::GroupRowRange tableRange(Value g) {
    return nvfp4::groupRowRange(b, b.getLoc(), space.getMode(), g,
                                space.getRows(),
                                [&](Value i) { return entry(i); });
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

  /// Cluster split: this CTA's cluster, the clusters, its rank.
  int64_t cluster() const { return space.getCluster(); }
  Value clusterIndex() { return divu(cta, c(cluster())); }
  Value clusters() { return divu(ctas, c(cluster())); }
  Value rank() { return remu(cta, c(cluster())); }

  Value units() {
    if (cluster() > 1) {
      // ceil((count - cluster index) / clusters), none past count.
      Value left = maxsi(sub(count, clusterIndex()), c(0));
      return divu(add(left, sub(clusters(), c(1))), clusters());
    }
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
    if (cluster() > 1) {
      // Rank r's K blocks [r * k_blocks / C, (r + 1) * k_blocks / C) of
      // each of its cluster's tiles.
      Value kBegin = divu(mul(rank(), kBlocks), c(cluster()));
      Value kEnd = divu(mul(add(rank(), c(1)), kBlocks), c(cluster()));
      return {add(clusterIndex(), mul(u, clusters())), kBegin, kEnd,
              mul(u, sub(kEnd, kBegin))};
    }
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
      // The CTA's partial is visible at GPU scope before its arrival is
      // counted: the barrier orders every thread's stores before the
      // leader's, whose fence releases them all (cumulativity) ahead of its
      // relaxed add; one fence per CTA, not one per thread (the semaphore
      // pattern of CUTLASS's split-K barrier).
      barrier();
      Value flagPtr =
          globalAddress(b, adaptor.getFlags(), k.mul(first, k.c(4)));
      Value leader = k.eq(thread, k.c(0));
      scf::IfOp::create(b, leader, [&](OpBuilder &, Location) {
        gpuFence();
        Value old = LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::add,
                                              flagPtr, cInt(b, i32, 1),
                                              LLVM::AtomicOrdering::monotonic);
        Value arrivals = arith::IndexCastOp::create(
            b, b.getIndexType(),
            arith::AddIOp::create(b, old, cInt(b, i32, 1)));
        Value isLast = k.eq(arrivals, k.add(k.sub(last, first), k.c(1)));
        scf::IfOp::create(b, isLast, [&](OpBuilder &, Location) {
          // Acquire: the other CTAs' partials, released by their leaders'
          // fences before the adds this one read, are visible to the whole
          // CTA after the barrier below.
          gpuFence();
          // The last CTA leaves the flag as it found it for the next launch.
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

/// The cluster split's sum (SchedulerClusterSumOp): shares to their
/// owners' shared memory, one cluster barrier, the owners' sums in rank
/// order.
struct SchedulerClusterSumLowering
    : OpConversionPattern<SchedulerClusterSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SchedulerClusterSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    nvfp4::KernelArith k(b);
    int64_t cluster = op.getScheduler().getType().getCluster();
    Value acc = adaptor.getAccumulator();
    auto accType = cast<VectorType>(acc.getType());
    int64_t n = accType.getDimSize(0);
    int64_t slice = op.getThreads() / cluster;
    Type i32 = b.getI32Type();
    auto quad = VectorType::get({4}, b.getF32Type());
    auto shared = LLVM::LLVMPointerType::get(op.getContext(), 3);
    auto remote = LLVM::LLVMPointerType::get(op.getContext(), 7);
    Value thread = adaptor.getThread();
    Value owner = k.divu(thread, k.c(slice));
    Value local = k.remu(thread, k.c(slice));
    Value rank = arith::IndexCastOp::create(b, b.getIndexType(),
                                            NVVM::ClusterId::create(b, i32));
    Value base = LLVM::IntToPtrOp::create(
        b, shared,
        k.toI64(memref::ExtractAlignedPointerAsIndexOp::create(
            b, adaptor.getBuffer())));
    // Byte offset of quad j of slot `slot` (sender r's share in owner o's
    // buffer: r, less one past o).
    auto offset = [&](Value slot, int64_t j) {
      return k.toI64(
          k.mul(k.add(k.mul(k.add(k.mul(slot, k.c(n / 4)), k.c(j)), k.c(slice)),
                      local),
                k.c(16)));
    };
    auto slotOf = [&](Value sender, Value to) {
      return k.sub(sender, k.select(k.lt(to, sender), k.c(1), k.c(0)));
    };
    auto quadOf = [&](Value v, int64_t j) {
      return vector::ShuffleOp::create(
          b, v, v, ArrayRef<int64_t>{4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3});
    };
    Value mine = k.eq(owner, rank);
    // The barrier's first phase (every thread's relaxed arrival at the
    // kernel's start): every CTA of the cluster runs, its shared memory may
    // be written.
    NVVM::ClusterWaitOp::create(b, /*aligned=*/UnitAttr());
    scf::IfOp::create(
        b, arith::XOrIOp::create(b, mine, cInt(b, b.getI1Type(), 1)),
        [&](OpBuilder &, Location) {
          Value to = NVVM::MapaOp::create(
              b, remote, base, arith::IndexCastOp::create(b, i32, owner));
          Value slot = slotOf(rank, owner);
          for (int64_t j = 0; j < n / 4; ++j)
            LLVM::StoreOp::create(
                b, quadOf(acc, j),
                LLVM::GEPOp::create(b, remote, b.getI8Type(), to,
                                    ValueRange{offset(slot, j)}),
                16);
          scf::YieldOp::create(b);
        });
    // Release the stores, acquire the others' (the defaults of
    // barrier.cluster's arrive and wait).
    NVVM::ClusterArriveOp::create(b, /*aligned=*/UnitAttr());
    NVVM::ClusterWaitOp::create(b, /*aligned=*/UnitAttr());
    // Rank 0's share, then each later rank's added: the same order in
    // every CTA and on every run. A share from another rank is read at its
    // slot (clamped: the own rank's position reads a slot it discards).
    auto sum = scf::IfOp::create(b, TypeRange{accType}, mine,
                                 /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&sum.getThenRegion().front());
      Value total;
      for (int64_t r = 0; r < cluster; ++r) {
        Value sender = k.c(r);
        Value slot = k.minsi(slotOf(sender, rank), k.c(cluster - 2));
        SmallVector<Value> elements;
        for (int64_t j = 0; j < n / 4; ++j) {
          Value loaded = LLVM::LoadOp::create(
              b, quad,
              LLVM::GEPOp::create(b, shared, b.getI8Type(), base,
                                  ValueRange{offset(slot, j)}),
              16);
          for (int64_t e = 0; e < 4; ++e)
            elements.push_back(vector::ExtractOp::create(b, loaded, e));
        }
        Value share = vector::FromElementsOp::create(b, accType, elements);
        share = arith::SelectOp::create(b, k.eq(rank, sender), acc, share);
        total =
            total ? arith::AddFOp::create(b, total, share).getResult() : share;
      }
      scf::YieldOp::create(b, total);
      b.setInsertionPointToStart(&sum.getElseRegion().front());
      scf::YieldOp::create(b, acc);
    }
    rewriter.replaceOp(op, {sum.getResult(0), mine});
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

} // namespace

void mlir::nvfp4k::lowering::populateSchedulerPatterns(const TypeConverter &converter,
    RewritePatternSet &patterns) {
  patterns.add<SchedulerCreateLowering, SchedulerCountLowering,
               SchedulerTileLowering, SchedulerBlocksBeforeLowering,
               SchedulerGroupOfLowering, SchedulerUnitsLowering,
               SchedulerUnitLowering, SchedulerFixupLowering,
               SchedulerClusterSumLowering>(converter, patterns.getContext());
}
