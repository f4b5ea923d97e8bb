//===- Npy.h - NumPy .npy files -----------------------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Reading and writing NumPy's .npy format (versions 1-3, C order): the
// runner's input/output format. There is no C++ .npy library among the
// project's dependencies, and the format is a short text header plus raw
// bytes.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNNER_NPY_H
#define NVFP4_RUNNER_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
namespace nvfp4 {

struct NpyArray {
  /// NumPy dtype string, e.g. "<f4", "|u1", "<u2".
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// Reads a C-order .npy file; fails with a message naming the file.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);

/// Parses the bytes of a C-order .npy file; `path` names it in messages.
/// Every size is checked (with overflow in mind) against the bytes present.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef bytes, llvm::StringRef path);

/// Writes a C-order .npy file.
llvm::Error writeNpy(llvm::StringRef path, llvm::StringRef descr,
                     llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<uint8_t> data);

/// "[2, 3]" for messages.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_RUNNER_NPY_H
