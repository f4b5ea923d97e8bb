//===- Npy.cpp - NumPy .npy files ------------------------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runner/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlir::nvfp4;

std::string mlir::nvfp4::formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  raw_string_ostream os(s);
  interleaveComma(shape, os);
  os << "]";
  return s;
}

static Error npyError(StringRef path, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           path + ": " + message);
}

/// The value of `'key': value` in a .npy header dictionary.
static std::optional<StringRef> headerField(StringRef header, StringRef key) {
  std::string quoted = ("'" + key + "'").str();
  size_t pos = header.find(quoted);
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(pos + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  return rest.ltrim();
}

Expected<NpyArray> mlir::nvfp4::readNpy(StringRef path) {
  auto file = MemoryBuffer::getFile(path, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
  if (!file)
    return npyError(path, "cannot read: " + file.getError().message());
  return parseNpy((*file)->getBuffer(), path);
}

Expected<NpyArray> mlir::nvfp4::parseNpy(StringRef bytes, StringRef path) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return npyError(path, "not a .npy file (no \\x93NUMPY magic)");
  uint8_t major = bytes[6];
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError(path, "truncated header");
    headerLen = uint32_t(uint8_t(bytes[8])) | (uint32_t(uint8_t(bytes[9])) << 8) |
                (uint32_t(uint8_t(bytes[10])) << 16) |
                (uint32_t(uint8_t(bytes[11])) << 24);
    offset = 12;
  } else {
    return npyError(path, "unsupported .npy version " + Twine(int(major)));
  }
  if (bytes.size() < offset + headerLen)
    return npyError(path, "truncated header");
  StringRef header = bytes.substr(offset, headerLen);

  NpyArray array;
  std::optional<StringRef> descr = headerField(header, "descr");
  if (!descr || !descr->consume_front("'"))
    return npyError(path, "header has no 'descr'");
  size_t descrEnd = descr->find('\'');
  if (descrEnd == StringRef::npos)
    return npyError(path, "unterminated 'descr' in the header");
  array.descr = descr->take_front(descrEnd).str();
  std::optional<StringRef> fortran = headerField(header, "fortran_order");
  if (!fortran)
    return npyError(path, "header has no 'fortran_order'");
  if (fortran->starts_with("True"))
    return npyError(path, "Fortran-order arrays are not supported (save with "
                          "np.ascontiguousarray)");
  std::optional<StringRef> shape = headerField(header, "shape");
  if (!shape || !shape->consume_front("("))
    return npyError(path, "header has no 'shape'");
  size_t shapeEnd = shape->find(')');
  if (shapeEnd == StringRef::npos)
    return npyError(path, "unterminated 'shape' in the header");
  StringRef dims = shape->take_front(shapeEnd);
  SmallVector<StringRef> parts;
  dims.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim < 0)
      return npyError(path, "bad shape entry '" + part + "'");
    array.shape.push_back(dim);
  }

  // Item size from the dtype string (e.g. "<f4" -> 4, "<V2" -> 2).
  unsigned itemSize;
  if (array.descr.size() < 3 ||
      StringRef(array.descr).drop_front(2).getAsInteger(10, itemSize))
    return npyError(path, "unsupported dtype '" + array.descr + "'");
  // The byte count of the shape, checked for overflow: a header such as
  // (2**32, 2**31) of bf16 must not wrap around to a small size.
  int64_t expected = itemSize;
  for (int64_t d : array.shape)
    if (MulOverflow<int64_t>(expected, d, expected))
      return npyError(path, "shape " + formatShape(array.shape) + " of " +
                                array.descr +
                                " is too large (its byte count overflows)");
  StringRef payload = bytes.drop_front(offset + headerLen);
  if (uint64_t(payload.size()) != uint64_t(expected))
    return npyError(path, "holds " + Twine(payload.size()) +
                              " bytes of data, expected " + Twine(expected) +
                              " for " + array.descr + " " +
                              formatShape(array.shape));
  array.data.assign(payload.begin(), payload.end());
  return array;
}

Error mlir::nvfp4::writeNpy(StringRef path, StringRef descr,
                            ArrayRef<int64_t> shape, ArrayRef<uint8_t> data) {
  std::string dict;
  raw_string_ostream os(dict);
  os << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (int64_t d : shape)
    os << d << ", ";
  os << "), }";
  // Pad so that the data starts on a 64-byte boundary, header ends in '\n'.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::error_code ec;
  raw_fd_ostream out(path, ec, sys::fs::OF_None);
  if (ec)
    return npyError(path, "cannot write: " + ec.message());
  out << "\x93NUMPY" << char(1) << char(0) << char(dict.size() & 0xFF)
      << char(dict.size() >> 8) << dict;
  out.write(reinterpret_cast<const char *>(data.data()), data.size());
  out.close();
  if (out.has_error())
    return npyError(path, "write failed");
  return Error::success();
}
