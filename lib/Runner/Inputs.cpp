//===- Inputs.cpp - check a program's inputs before running it
//-------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runner/Inputs.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::nvfp4;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string str(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// "file:line:col" of a location when it has one, else MLIR's form.
static std::string where(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) +
            ":" + llvm::Twine(file.getColumn()))
        .str();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << loc;
  return s;
}

std::vector<GroupTable> mlir::nvfp4::getGroupTables(func::FuncOp entry) {
  std::vector<GroupTable> tables;
  if (entry.isExternal())
    return tables;
  Block &body = entry.getBody().front();
  entry.walk([&](GroupedMatmulOp op) {
    auto add = [&](Value table, GroupTable::Kind kind) {
      if (!table || op.getA().empty())
        return;
      auto aType = dyn_cast<ShapedType>(op.getA().front().getType());
      if (!aType || !aType.hasRank() || aType.getRank() < 2)
        return;
      // S (the rows of A [S, K]) or maxM (A [G, maxM, K]).
      int64_t rows = aType.getDimSize(aType.getRank() - 2);
      int64_t argument = -1;
      if (auto arg = dyn_cast<BlockArgument>(table))
        if (arg.getOwner() == &body)
          argument = arg.getArgNumber();
      tables.push_back(GroupTable{kind, table, argument, rows, op.getLoc()});
    };
    add(op.getGroupOffsets(), GroupTable::Offsets);
    add(op.getMaskedM(), GroupTable::MaskedM);
  });
  return tables;
}

llvm::Error mlir::nvfp4::checkGroupTable(const GroupTable &table,
                                         llvm::ArrayRef<int32_t> values,
                                         const llvm::Twine &what) {
  bool offsets = table.kind == GroupTable::Offsets;
  std::string prefix =
      (what + ": " + (offsets ? "group_offsets" : "masked_m") +
       " of the nvfp4.grouped_matmul at " + where(table.loc) + ": ")
          .str();
  auto fail = [&](const llvm::Twine &message) {
    return makeError(prefix + message + " (docs/spec.md section 3)");
  };
  auto at = [](size_t i, int32_t v) {
    return ("[" + llvm::Twine(i) + "] = " + llvm::Twine(v)).str();
  };
  if (!offsets) {
    // 0 <= masked_m[g] <= maxM.
    for (auto [g, m] : llvm::enumerate(values))
      if (m < 0 || m > table.rows)
        return fail("masked_m" + at(g, m) + " is outside [0, " +
                    llvm::Twine(table.rows) + "] (0 <= masked_m[g] <= maxM)");
    return llvm::Error::success();
  }
  // Starts at 0, non-decreasing, ends at S.
  std::string contract = ("(the group_offsets must start at 0, never "
                          "decrease and end at the " +
                          llvm::Twine(table.rows) + " rows of A)")
                             .str();
  if (values.empty())
    return fail("the table is empty " + contract);
  if (values.front() != 0)
    return fail("group_offsets" + at(0, values.front()) + ", expected 0 " +
                contract);
  for (size_t g = 1; g < values.size(); ++g)
    if (values[g] < values[g - 1])
      return fail("group_offsets" + at(g, values[g]) +
                  " is below group_offsets" + at(g - 1, values[g - 1]) + " " +
                  contract);
  if (values.back() != table.rows)
    return fail("group_offsets" + at(values.size() - 1, values.back()) +
                ", expected " + llvm::Twine(table.rows) + " " + contract);
  return llvm::Error::success();
}

llvm::Error mlir::nvfp4::checkInputs(func::FuncOp entry,
                                     const EntrySignature &signature,
                                     llvm::ArrayRef<NpyArray> inputs,
                                     llvm::ArrayRef<std::string> names,
                                     bool checkTables) {
  std::string entryName = ("@" + entry.getSymName()).str();
  if (inputs.size() != signature.inputs.size() || names.size() != inputs.size())
    return makeError(
        entryName + " takes " + llvm::Twine(signature.inputs.size()) +
        " argument(s), got " + llvm::Twine(inputs.size()) + " input(s)");
  auto describe = [&](size_t i) {
    return ("input #" + llvm::Twine(i) + " (" + names[i] + ")").str();
  };

  // dtype and shape of each input (docs/spec.md section 1).
  for (auto [i, spec] : llvm::enumerate(signature.inputs)) {
    const NpyArray &array = inputs[i];
    std::vector<int64_t> shape =
        spec.isScalar ? std::vector<int64_t>{} : spec.storageShape;
    if (!spec.accepts(array.descr) || array.shape != shape)
      return makeError(describe(i) + ": argument type " + str(spec.type) +
                       " expects " + spec.what + " '" + spec.descr + "' " +
                       formatShape(shape) + ", got '" + array.descr + "' " +
                       formatShape(array.shape));
    // An array parsed by parseNpy holds exactly its shape's bytes; one
    // built by other means must too before anything reads it.
    int64_t bytes = spec.isScalar ? spec.elementBytes : spec.numBytes();
    if (array.data.size() != uint64_t(bytes))
      return makeError(describe(i) + ": holds " +
                       llvm::Twine(array.data.size()) + " bytes, expected " +
                       llvm::Twine(bytes));
  }

  // The group tables (docs/spec.md section 3, run-time preconditions).
  if (!checkTables)
    return llvm::Error::success();
  for (const GroupTable &table : getGroupTables(entry)) {
    std::vector<int32_t> values;
    std::string what;
    if (table.argument >= 0) {
      const NpyArray &array = inputs[table.argument];
      const ValueSpec &spec = signature.inputs[table.argument];
      if (spec.elementBytes != sizeof(int32_t))
        continue; // not an i32 table: the verifier rejects such programs
      values.resize(array.data.size() / sizeof(int32_t));
      std::memcpy(values.data(), array.data.data(),
                  values.size() * sizeof(int32_t));
      what = describe(table.argument);
    } else {
      DenseIntElementsAttr constant;
      if (!matchPattern(table.value, m_Constant(&constant)))
        continue; // computed in the program: the kernels clamp it
      for (const APInt &v : constant.getValues<APInt>())
        values.push_back(int32_t(v.getSExtValue()));
      what = "a constant table";
    }
    if (llvm::Error err = checkGroupTable(table, values, what))
      return err;
  }
  return llvm::Error::success();
}
