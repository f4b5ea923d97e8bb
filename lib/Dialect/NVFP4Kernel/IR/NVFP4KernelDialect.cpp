//===- NVFP4KernelDialect.cpp - the nvfp4k dialect and its types ----------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::nvfp4k;

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelOpsDialect.cpp.inc"

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelOpsTypes.cpp.inc"

void NVFP4KernelDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Facts shared by the kernels and the lowering
//===----------------------------------------------------------------------===//

int64_t mlir::nvfp4k::wgmmaFragmentK(int64_t k) {
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

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

LogicalResult RingType::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t stages, int64_t consumers,
                               int64_t producers) {
  // Each stage is two 8-byte mbarriers in the CTA's shared memory, at most
  // 227 KiB on every chip with these kernels (sm_90a, sm_100a); an mbarrier
  // counts at most 2^20 - 1 arrivals (PTX ISA, mbarrier.init).
  constexpr int64_t kMaxSharedBytes = 227 * 1024;
  constexpr int64_t kMaxStages = kMaxSharedBytes / 16;
  constexpr int64_t kMaxArrivals = (int64_t(1) << 20) - 1;
  if (stages < 1)
    return emitError() << "expected at least one stage, got " << stages;
  if (stages > kMaxStages)
    return emitError() << "expected at most " << kMaxStages
                       << " stages (two mbarriers each in shared memory), got "
                       << stages;
  if (consumers < 1)
    return emitError() << "expected at least one consumer arrival, got "
                       << consumers;
  if (consumers > kMaxArrivals)
    return emitError() << "expected at most " << kMaxArrivals
                       << " consumer arrivals (an mbarrier's count), got "
                       << consumers;
  if (producers < 1 || producers > kMaxArrivals)
    return emitError() << "expected 1 to " << kMaxArrivals
                       << " producer arrivals (an mbarrier's count), got "
                       << producers;
  return success();
}

LogicalResult SchedulerType::verify(
    function_ref<InFlightDiagnostic()> emitError, nvfp4::Grouping mode,
    int64_t groups, int64_t rows, int64_t weightTiles, int64_t weightRows,
    int64_t tokenTile, int64_t granule, ArrayRef<int64_t> groupRows,
    int64_t kBlocks, bool streamK, int64_t cluster) {
  if (kBlocks < 0)
    return emitError() << "expected non-negative k_blocks, got " << kBlocks;
  if (cluster < 1 || cluster > 8)
    return emitError() << "expected a cluster of 1 to 8 CTAs (the portable "
                          "cluster sizes), got "
                       << cluster;
  if (cluster > 1 && (streamK || kBlocks < cluster))
    return emitError() << "expected a cluster split on data-parallel units "
                          "of at least one K block per CTA (k_blocks >= "
                       << cluster << ", no stream_k)";
  if (streamK && kBlocks == 0)
    return emitError() << "expected k_blocks with stream_k (its shares are "
                          "counted in K blocks)";
  if (groups < 1)
    return emitError() << "expected at least one group, got " << groups;
  if (rows < 0 || weightTiles < 0)
    return emitError() << "expected non-negative rows and weight tiles, got "
                       << rows << " and " << weightTiles;
  if (weightRows < 1 || tokenTile < 1)
    return emitError() << "expected positive weight rows and token tile, got "
                       << weightRows << " and " << tokenTile;
  if (granule < 0 || (granule && tokenTile % granule))
    return emitError() << "expected the granule to be 0 or a divisor of the "
                          "token tile ("
                       << tokenTile << "), got " << granule;
  if (mode == nvfp4::Grouping::independent) {
    if (static_cast<int64_t>(groupRows.size()) != groups)
      return emitError() << "expected group_rows for each of the " << groups
                         << " independent groups, got " << groupRows.size();
    int64_t sum = 0;
    for (int64_t r : groupRows) {
      if (r < 0)
        return emitError() << "expected non-negative group rows, got " << r;
      sum += r;
    }
    if (sum != rows)
      return emitError() << "expected rows (" << rows
                         << ") to be the sum of group_rows (" << sum << ")";
  } else if (!groupRows.empty()) {
    return emitError() << "group_rows are for independent groups only; "
                       << nvfp4::stringifyGrouping(mode)
                       << " groups read a table";
  }
  // Tile numbers are i32 in the lowering's group walk: the most tiles the
  // space can have (each group at most ceil(rows_g / token_tile) token
  // tiles) must stay below 2^31.
  auto ceilDiv = [](uint64_t a, uint64_t b) { return a / b + (a % b != 0); };
  uint64_t tokenTiles = 0;
  bool overflow = false;
  if (mode == nvfp4::Grouping::independent) {
    for (int64_t r : groupRows)
      tokenTiles = llvm::SaturatingAdd(tokenTiles, ceilDiv(r, tokenTile));
  } else if (mode == nvfp4::Grouping::contiguous) {
    tokenTiles = llvm::SaturatingAdd(ceilDiv(rows, tokenTile),
                                     static_cast<uint64_t>(groups));
  } else {
    tokenTiles = llvm::SaturatingMultiply(ceilDiv(rows, tokenTile),
                                          static_cast<uint64_t>(groups));
  }
  uint64_t maxTiles = llvm::SaturatingMultiply(
      tokenTiles, static_cast<uint64_t>(weightTiles), &overflow);
  if (overflow || maxTiles >= (uint64_t(1) << 31))
    return emitError() << "expected fewer than 2^31 tiles, got up to "
                       << (overflow ? std::string("2^64")
                                    : std::to_string(maxTiles));
  return success();
}
