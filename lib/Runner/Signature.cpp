//===- Signature.cpp - storage of an entry function's arguments ------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runner/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::nvfp4;

int64_t ValueSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : storageShape)
    n *= d;
  return n;
}

bool ValueSpec::accepts(llvm::StringRef npyDescr) const {
  return npyDescr == descr || llvm::is_contained(alsoAccepted, npyDescr);
}

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// dtype, size and description of a scalar element type.
static bool elementStorage(Type element, ValueSpec &spec) {
  auto set = [&](const char *descr, unsigned bytes, const char *what,
                 std::vector<std::string> also = {}) {
    spec.descr = descr;
    spec.elementBytes = bytes;
    spec.what = what;
    spec.alsoAccepted = std::move(also);
    return true;
  };
  if (element.isF32())
    return set("<f4", 4, "float32");
  if (element.isF16())
    return set("<f2", 2, "float16");
  if (element.isF64())
    return set("<f8", 8, "float64");
  if (element.isBF16())
    return set("<u2", 2, "bf16 bit patterns as uint16", {"<V2"});
  if (isa<Float8E4M3FNType>(element))
    return set("|u1", 1, "f8E4M3FN bit patterns as uint8", {"|V1", "<V1"});
  if (isa<Float8E8M0FNUType>(element))
    return set("|u1", 1, "UE8M0 exponents as uint8", {"|V1", "<V1"});
  if (isa<Float4E2M1FNType>(element))
    return set("|u1", 1,
               "packed FP4 as uint8, two values per byte (even element in "
               "the low nibble), last dimension halved");
  if (element.isInteger(64) || element.isIndex())
    return set("<i8", 8, "int64");
  if (element.isInteger(32))
    return set("<i4", 4, "int32");
  if (element.isInteger(8))
    return set("|i1", 1, "int8", {"|u1"});
  return false;
}

llvm::Expected<ValueSpec> mlir::nvfp4::getValueSpec(Type type) {
  ValueSpec spec;
  spec.type = type;
  auto unsupported = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unsupported type " + typeString(type) +
                                       ": " + why);
  };
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    if (!tensor.hasStaticShape())
      return unsupported("shapes must be static");
    if (!elementStorage(tensor.getElementType(), spec))
      return unsupported("no .npy storage for this element type");
    spec.storageShape.assign(tensor.getShape().begin(),
                             tensor.getShape().end());
    if (isa<Float4E2M1FNType>(tensor.getElementType())) {
      if (spec.storageShape.empty() || spec.storageShape.back() % 2)
        return unsupported("FP4 tensors need an even last dimension");
      spec.storageShape.back() /= 2;
    }
    // Every size the runner computes from the type (elements, bytes, the
    // buffers it allocates) must fit: a type such as tensor<2^32 x 2^31 x
    // bf16> would otherwise wrap around to a small or zero byte count.
    int64_t bytes = spec.elementBytes;
    for (int64_t d : spec.storageShape)
      if (llvm::MulOverflow<int64_t>(bytes, d, bytes))
        return unsupported("its byte count overflows 64 bits");
    return spec;
  }
  if (isa<TensorType, MemRefType>(type))
    return unsupported("only ranked tensors are supported");
  if (!type.isIntOrIndexOrFloat() || !elementStorage(type, spec) ||
      isa<Float4E2M1FNType, Float8E4M3FNType, Float8E8M0FNUType,
          BFloat16Type, Float16Type>(type))
    return unsupported("scalar arguments must be i32, i64, index, f32 or f64");
  spec.isScalar = true;
  return spec;
}

llvm::Expected<EntrySignature>
mlir::nvfp4::getEntrySignature(func::FuncOp func) {
  EntrySignature sig;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    llvm::Expected<ValueSpec> spec = getValueSpec(type);
    if (!spec)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "argument #" + llvm::Twine(i) + ": " + toString(spec.takeError()));
    sig.inputs.push_back(std::move(*spec));
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    llvm::Expected<ValueSpec> spec = getValueSpec(type);
    if (!spec)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "result #" + llvm::Twine(i) + ": " + toString(spec.takeError()));
    if (spec->isScalar)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "result #" + llvm::Twine(i) +
              ": scalar results are not supported; return a tensor");
    sig.outputs.push_back(std::move(*spec));
  }
  return sig;
}
