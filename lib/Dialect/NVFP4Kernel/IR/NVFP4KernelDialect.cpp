//===- NVFP4KernelDialect.cpp - the nvfp4k dialect and its types ----------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4Kernel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

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
// Types
//===----------------------------------------------------------------------===//

LogicalResult RingType::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t stages, int64_t consumers) {
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
  return success();
}

LogicalResult SchedulerType::verify(
    function_ref<InFlightDiagnostic()> emitError, nvfp4::Grouping mode,
    int64_t groups, int64_t rows, int64_t weightTiles, int64_t weightRows,
    int64_t tokenTile, int64_t granule, ArrayRef<int64_t> groupRows) {
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
  return success();
}
