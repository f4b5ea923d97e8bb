//===- TileSchedule.h - persistent tiles over grouped matmuls -----*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tile order shared by the chip-specific GEMM kernels (sm_90a, sm_100a):
// a grouped matmul's output is cut into tiles of (group, weight tile of
// `weightTileRows` rows of N, token tile of `tokenTile` rows of its group);
// tiles are numbered group by group, weight tile by weight tile, token tiles
// fastest, so the CTAs of a persistent grid that run together share a
// weight tile in L2. Token rows live in one "token matrix": the groups'
// rows one after another (independent: in operand order; contiguous: A
// itself, bounded by group_offsets; masked: G slots of maxRows rows,
// bounded by masked_m).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_UTILS_TILESCHEDULE_H
#define NVFP4_DIALECT_NVFP4_UTILS_TILESCHEDULE_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace nvfp4 {

/// What is static about a grouped tile space.
struct TileSpace {
  Grouping mode = Grouping::independent;
  int64_t groups = 1;
  /// Token rows per group (independent mode).
  SmallVector<int64_t> rowsPerGroup;
  /// All token rows (contiguous), rows per slot (masked), the sum of
  /// rowsPerGroup (independent).
  int64_t maxRows = 0;
  int64_t tokenTile = 64;
  /// Balanced token tiles (when non-zero): a group of R rows is cut into
  /// ceil(R / tokenTile) tiles of ceil(R / tiles) rows rounded up to this
  /// granule (a divisor of tokenTile), instead of full tiles and a
  /// remainder, so the tiles of a group cost about the same in a kernel that
  /// sizes its MMA to the tile (sm_90a).
  int64_t balanceGranule = 0;
  /// Weight tiles per group: ceil(N / weight tile rows).
  int64_t weightTiles = 1;
};

/// One tile, in index values.
struct ScheduledTile {
  Value group, weightTile, tokenTile;
  Value rowStart; // token-matrix row of the tile's first token
  Value rowEnd;   // end of the group's rows (exclusive)
  Value tileEnd;  // end of the tile's rows (exclusive, <= rowEnd)
  Value rowBase;  // token-matrix row of the group's first token
};

/// Emits the schedule's arithmetic in a kernel. `groupInfo` is the i64
/// device address of the group offsets (contiguous, G+1 i32) or the valid
/// rows (masked, G i32); null for independent groups. Run-time tables are
/// clamped to the operand, so a bad table cannot send a tile out of it.
class TileSchedule {
public:
  TileSchedule(OpBuilder &b, Location loc, const TileSpace &space,
               Value groupInfo);

  /// Rows of group g, and the token-matrix row of its first token.
  Value groupRows(Value g);
  Value groupRowBase(Value g);
  /// Token tiles of group g.
  Value tokenTiles(Value g);
  /// Rows per token tile of a group of `rows` rows cut into `tiles` tiles.
  Value rowsPerTile(Value rows, Value tiles);
  /// Tiles of all groups.
  Value totalTiles();
  /// Tile number t (0 <= t < totalTiles()).
  ScheduledTile tile(Value t);

  /// values[g] for a run-time group g (a select chain: G is small).
  Value pick(ArrayRef<Value> values, Value g);

private:
  Value c(int64_t v);
  Value loadInfo(Value index);

  OpBuilder &b;
  Location loc;
  const TileSpace &space;
  Value groupInfo;
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_UTILS_TILESCHEDULE_H
