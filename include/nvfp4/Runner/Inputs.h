//===- Inputs.h - check a program's inputs before running it ---*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What every caller of a compiled program (nvfp4-runner, an in-process
// runtime) checks on its inputs before anything runs: the dtype and shape of
// each .npy array against the entry's signature (docs/spec.md section 1) and
// the run-time preconditions of docs/spec.md section 3 on the group tables
// of `nvfp4.grouped_matmul`:
//
//   group_offsets (contiguous): starts at 0, is non-decreasing, ends at S
//                               (the rows of A);
//   masked_m (masked):          0 <= masked_m[g] <= maxM.
//
// A table that is an argument of the entry function is checked on the input
// given for it; one that is a constant of the program is checked as well.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNNER_INPUTS_H
#define NVFP4_RUNNER_INPUTS_H

#include "nvfp4/Runner/Npy.h"
#include "nvfp4/Runner/Signature.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
namespace nvfp4 {

/// A group table (`group_offsets` or `masked_m`) of a grouped matmul in the
/// entry function.
struct GroupTable {
  enum Kind { Offsets, MaskedM } kind;
  /// The table's value in the entry function.
  Value value;
  /// The entry argument it is, or -1 (a constant, or computed in the
  /// program).
  int64_t argument = -1;
  /// S (the rows of A) for Offsets, maxM for MaskedM.
  int64_t rows = 0;
  /// The grouped matmul, for messages.
  Location loc;
};

/// The group tables of the grouped matmuls in `entry` (nested regions
/// included).
std::vector<GroupTable> getGroupTables(func::FuncOp entry);

/// Checks the values of one table against its contract; `what` starts the
/// message ("input #4 (off.npy)").
llvm::Error checkGroupTable(const GroupTable &table,
                            llvm::ArrayRef<int32_t> values,
                            const llvm::Twine &what);

/// Checks `inputs` (one per entry argument; `names[i]` names input i in
/// messages, e.g. its file) against `entry` and its signature: dtype and
/// shape of each, then the group tables (unless `checkTables` is false:
/// only for testing the kernels' own bounds on out-of-contract tables).
/// Fails with a message naming the input and the violated rule; nothing
/// should run then.
llvm::Error checkInputs(func::FuncOp entry, const EntrySignature &signature,
                        llvm::ArrayRef<NpyArray> inputs,
                        llvm::ArrayRef<std::string> names,
                        bool checkTables = true);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_RUNNER_INPUTS_H
