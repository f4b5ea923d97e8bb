//===- TileSchedule.cpp - persistent tiles over grouped matmuls
//------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Utils/TileSchedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::nvfp4;

TileSchedule::TileSchedule(OpBuilder &b, Location loc, const TileSpace &space,
                           Value groupInfo)
    : b(b), loc(loc), space(space), groupInfo(groupInfo) {}

Value TileSchedule::c(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value TileSchedule::loadInfo(Value index) {
  // Element `index` of the i32 table at the device address groupInfo.
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value base = LLVM::IntToPtrOp::create(b, loc, globalPtr, groupInfo);
  Value ptr = LLVM::GEPOp::create(
      b, loc, globalPtr, b.getI32Type(), base,
      ValueRange{arith::IndexCastOp::create(b, loc, b.getI64Type(), index)});
  Value v = LLVM::LoadOp::create(b, loc, b.getI32Type(), ptr, 4);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value TileSchedule::pick(ArrayRef<Value> values, Value g) {
  Value result = values.front();
  for (size_t i = 1; i < values.size(); ++i)
    result = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, g, c(i)),
        values[i], result);
  return result;
}

Value TileSchedule::groupRows(Value g) {
  auto clamp = [&](Value v, Value lo, Value hi) {
    return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, v, lo),
                                  hi);
  };
  switch (space.mode) {
  case Grouping::independent: {
    SmallVector<Value> rows;
    for (int64_t r : space.rowsPerGroup)
      rows.push_back(c(r));
    return pick(rows, g);
  }
  case Grouping::contiguous: {
    Value lo = clamp(loadInfo(g), c(0), c(space.maxRows));
    Value hi = clamp(loadInfo(arith::AddIOp::create(b, loc, g, c(1))), lo,
                     c(space.maxRows));
    return arith::SubIOp::create(b, loc, hi, lo);
  }
  case Grouping::masked:
    return clamp(loadInfo(g), c(0), c(space.maxRows));
  }
  return Value();
}

Value TileSchedule::groupRowBase(Value g) {
  switch (space.mode) {
  case Grouping::independent: {
    SmallVector<Value> bases;
    int64_t acc = 0;
    for (int64_t r : space.rowsPerGroup) {
      bases.push_back(c(acc));
      acc += r;
    }
    return pick(bases, g);
  }
  case Grouping::contiguous:
    return arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, loadInfo(g), c(0)),
        c(space.maxRows));
  case Grouping::masked:
    return arith::MulIOp::create(b, loc, g, c(space.maxRows));
  }
  return Value();
}

Value TileSchedule::tokenTiles(Value g) {
  Value rows = groupRows(g);
  return arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rows, c(space.tokenTile - 1)),
      c(space.tokenTile));
}

Value TileSchedule::rowsPerTile(Value rows, Value tiles) {
  int64_t granule = space.balanceGranule;
  if (!granule)
    return c(space.tokenTile);
  // ceil(rows / tiles) rounded up to the granule (<= tokenTile since tiles =
  // ceil(rows / tokenTile) and the granule divides tokenTile).
  Value safeTiles = arith::MaxSIOp::create(b, loc, tiles, c(1));
  Value per = arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, rows,
          arith::SubIOp::create(b, loc, safeTiles, c(1))),
      safeTiles);
  return arith::MulIOp::create(
      b, loc,
      arith::DivUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, per, c(granule - 1)),
          c(granule)),
      c(granule));
}

Value TileSchedule::totalTiles() {
  auto loop = scf::ForOp::create(
      b, loc, c(0), c(space.groups), c(1), ValueRange{c(0)},
      [&](OpBuilder &, Location, Value g, ValueRange acc) {
        Value next = arith::AddIOp::create(
            b, loc, acc[0],
            arith::MulIOp::create(b, loc, tokenTiles(g), c(space.weightTiles)));
        scf::YieldOp::create(b, loc, next);
      });
  return loop.getResult(0);
}

ScheduledTile TileSchedule::tile(Value t) {
  // Walk the groups: the first whose tile count exceeds what is left of t.
  auto loop = scf::ForOp::create(
      b, loc, c(0), c(space.groups), c(1), ValueRange{t, c(-1), c(0)},
      [&](OpBuilder &, Location, Value g, ValueRange st) {
        Value rem = st[0], found = st[1], local = st[2];
        Value count =
            arith::MulIOp::create(b, loc, tokenTiles(g), c(space.weightTiles));
        Value searching = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, found, c(0));
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             rem, count);
        Value here = arith::AndIOp::create(b, loc, searching, inside);
        Value past = arith::AndIOp::create(
            b, loc, searching,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, rem,
                                  count));
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::SelectOp::create(
                           b, loc, past,
                           arith::SubIOp::create(b, loc, rem, count), rem),
                       arith::SelectOp::create(b, loc, here, g, found),
                       arith::SelectOp::create(b, loc, here, rem, local)});
      });
  ScheduledTile tile;
  tile.group = loop.getResult(1);
  Value local = loop.getResult(2);
  Value rows = groupRows(tile.group);
  Value tiles = tokenTiles(tile.group);
  tile.tokenTile = arith::RemUIOp::create(b, loc, local, tiles);
  tile.weightTile = arith::DivUIOp::create(b, loc, local, tiles);
  tile.rowBase = groupRowBase(tile.group);
  Value per = rowsPerTile(rows, tiles);
  tile.rowStart = arith::AddIOp::create(
      b, loc, tile.rowBase, arith::MulIOp::create(b, loc, tile.tokenTile, per));
  tile.rowEnd = arith::AddIOp::create(b, loc, tile.rowBase, rows);
  tile.tileEnd = arith::MinSIOp::create(
      b, loc, tile.rowEnd, arith::AddIOp::create(b, loc, tile.rowStart, per));
  return tile;
}
