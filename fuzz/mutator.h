//===- mutator.h - a mutator that knows nvfp4 programs -------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Byte mutations rarely keep an MLIR program parseable. Half of the time
// this mutator instead rewrites one token of the text into another of the
// same kind: an element type into another element type, an enum keyword
// into another of the dialect's, a dimension or integer into an interesting
// size (0, 1, block widths, tile edges, 2^31 ...), an op name into another
// nvfp4 op. Programs stay well-formed text and reach the verifier and the
// pipelines; libFuzzer's own mutations do the rest.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_FUZZ_MUTATOR_H
#define NVFP4_FUZZ_MUTATOR_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace nvfp4_fuzz {

inline const std::vector<std::vector<const char *>> &tokenClasses() {
  static const std::vector<std::vector<const char *>> classes = {
      // element types
      {"bf16", "f16", "f32", "f64", "f4E2M1FN", "f8E4M3FN", "f8E8M0FNU", "i32",
       "i64", "i8", "index"},
      // formats and grouping
      {"nvfp4", "mxfp4"},
      {"independent", "contiguous", "masked"},
      // rounding, scale rules, error metrics
      {"nearest_even", "stochastic"},
      {"max6", "four_over_six", "rceil", "floor"},
      {"mse", "mae", "abs_max"},
      // ops
      {"nvfp4.quantize", "nvfp4.dequantize", "nvfp4.swizzle_scales",
       "nvfp4.unswizzle_scales", "nvfp4.matmul", "nvfp4.grouped_matmul",
       "nvfp4.swiglu", "nvfp4.moe_route", "nvfp4.moe_dispatch",
       "nvfp4.moe_combine"},
      // quantize's global-scale operands (at most one: Q15)
      {"amax", "encode_scale", "decode_scale"},
      // clauses of grouped_matmul / matmul
      {"a_decode_scale", "b_decode_scale", "alpha", "acc", "group_offsets",
       "masked_m"},
      // the swizzled encoding
      {", #nvfp4.swizzled_128x4>", ">"},
  };
  return classes;
}

inline const std::vector<const char *> &interestingNumbers() {
  static const std::vector<const char *> numbers = {
      "0",     "1",          "2",          "3",          "4",   "8",    "15",
      "16",    "17",         "31",         "32",         "33",  "64",   "127",
      "128",   "129",        "255",        "256",        "512", "1024", "4096",
      "65536", "2147483647", "2147483648", "4294967296", "-1"};
  return numbers;
}

/// Replaces the occurrence of `from` at `pos` in `text` by `to`.
inline void replaceAt(std::string &text, size_t pos, size_t len,
                      const std::string &to) {
  text.replace(pos, len, to);
}

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isIdent(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c == '_' || c == '.';
}

/// One token-level mutation of MLIR text; false if none applied.
inline bool mutateToken(std::string &text, std::mt19937 &rng) {
  if (text.empty())
    return false;
  switch (rng() % 3) {
  case 0: {
    // A token of a class into another of its class.
    const auto &classes = tokenClasses();
    const auto &cls = classes[rng() % classes.size()];
    std::vector<std::pair<size_t, size_t>> hits;
    for (const char *tok : cls) {
      size_t len = std::strlen(tok);
      for (size_t pos = text.find(tok); pos != std::string::npos;
           pos = text.find(tok, pos + 1)) {
        bool alnumTok = isIdent(tok[0]);
        if (alnumTok && ((pos > 0 && isIdent(text[pos - 1]) &&
                          text[pos - 1] != '.' && text[pos - 1] != 'x') ||
                         (pos + len < text.size() && isIdent(text[pos + len]) &&
                          text[pos + len] != '.')))
          continue;
        hits.push_back({pos, len});
      }
    }
    if (hits.empty())
      return false;
    auto [pos, len] = hits[rng() % hits.size()];
    replaceAt(text, pos, len, cls[rng() % cls.size()]);
    return true;
  }
  case 1: {
    // A number (a dimension of a shape, an attribute value) into an
    // interesting one.
    std::vector<std::pair<size_t, size_t>> numbers;
    for (size_t i = 0; i < text.size();) {
      if (isDigit(text[i]) && (i == 0 || !isIdent(text[i - 1]) ||
                               text[i - 1] == 'x' || text[i - 1] == '<')) {
        size_t j = i;
        while (j < text.size() && isDigit(text[j]))
          ++j;
        numbers.push_back({i, j - i});
        i = j;
      } else {
        ++i;
      }
    }
    if (numbers.empty())
      return false;
    auto [pos, len] = numbers[rng() % numbers.size()];
    const auto &interesting = interestingNumbers();
    replaceAt(text, pos, len, interesting[rng() % interesting.size()]);
    return true;
  }
  default: {
    // Duplicate or drop one line (an op, an argument).
    std::vector<size_t> starts = {0};
    for (size_t i = 0; i + 1 < text.size(); ++i)
      if (text[i] == '\n')
        starts.push_back(i + 1);
    size_t line = rng() % starts.size();
    size_t begin = starts[line];
    size_t end = line + 1 < starts.size() ? starts[line + 1] : text.size();
    std::string copy = text.substr(begin, end - begin);
    if (rng() % 2) {
      text.erase(begin, end - begin);
    } else {
      size_t at = starts[rng() % starts.size()];
      text.insert(at, copy);
    }
    return true;
  }
  }
}

inline size_t mutateMLIR(uint8_t *data, size_t size, size_t maxSize,
                         unsigned int seed) {
  std::mt19937 rng(seed);
  if (rng() % 2 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string text(reinterpret_cast<const char *>(data), size);
  unsigned rounds = 1 + rng() % 3;
  bool changed = false;
  for (unsigned i = 0; i < rounds; ++i)
    changed |= mutateToken(text, rng);
  if (!changed || text.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

} // namespace nvfp4_fuzz

#endif // NVFP4_FUZZ_MUTATOR_H
