//===- Signature.h - storage of an entry function's arguments -----*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// How each argument and result of a tensor-level entry function is passed to
// the lowered program and stored in .npy files (docs/spec.md, section 1):
// packed FP4 as uint8 [..., K/2], f8 scales as uint8, bf16 as uint16 bits.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNNER_SIGNATURE_H
#define NVFP4_RUNNER_SIGNATURE_H

#include "mlir/IR/Types.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
namespace nvfp4 {

struct ValueSpec {
  Type type;                        // as declared in the program
  bool isScalar = false;            // passed by value (i64 seed, f32, ...)
  std::vector<int64_t> storageShape; // the .npy shape
  unsigned elementBytes = 0;
  std::string descr;                // canonical .npy dtype
  std::vector<std::string> alsoAccepted; // e.g. ml_dtypes' "<V2" for bf16
  std::string what;                 // human description of the storage

  int64_t numElements() const;
  int64_t numBytes() const { return numElements() * elementBytes; }
  bool accepts(llvm::StringRef npyDescr) const;
};

struct EntrySignature {
  std::vector<ValueSpec> inputs, outputs;
};

/// The storage of one type; fails (with a message) on unsupported types.
llvm::Expected<ValueSpec> getValueSpec(Type type);

/// The storage of an entry function's arguments and results.
llvm::Expected<EntrySignature> getEntrySignature(func::FuncOp func);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_RUNNER_SIGNATURE_H
