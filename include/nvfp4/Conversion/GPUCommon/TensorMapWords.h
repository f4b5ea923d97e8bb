//===- TensorMapWords.h - Where a CUtensorMap keeps its fields --*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// The fields of words 0-7 (64-bit) of a tiled CUtensorMap: where
// cuTensorMapEncodeTiled puts them on Hopper and where NVIDIA's CuTe DSL puts
// them in the sm_100 maps it encodes itself. The map is opaque in the CUDA
// API; these positions were found by encoding maps with an H200's driver one
// parameter at a time, and every use checks them: the runtime re-encodes
// each map it decodes and compares the words (nvfp4TensorMapFromSM100), the
// tcgen05 emulation traps on a field it does not expect. One owner for both:
// the runtime decodes the DSL's maps on the host, the emulation reads a map's
// box on the device (the byte count of a forwarded cta_group::2 TMA load).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUCOMMON_TENSORMAPWORDS_H
#define NVFP4_CONVERSION_GPUCOMMON_TENSORMAPWORDS_H

namespace mlir::nvfp4::tensormap {

// Word 0: the global address.
// Word 1: rank - 1, the element code, swizzle, out-of-bounds fill, L2
// promotion, the TF32 bit; the first global stride / 16 in bits 32-63.
constexpr unsigned kRankShift = 4, kRankBits = 3;
constexpr unsigned kCodeShift = 7, kCodeBits = 4;
constexpr unsigned kSwizzleShift = 13, kSwizzleBits = 2;
constexpr unsigned kOobFillShift = 15;
constexpr unsigned kTf32Shift = 16;
constexpr unsigned kL2Shift = 17, kL2Bits = 2;
// Words 2-3: the other global strides / 16, 32 bits each. Words 4-6 (low
// half of 6): global dimensions - 1, 32 bits each.
// Word 6: element stride - 1 of dimension i in bits 32 + 3i (3 bits each);
// box dimension 0 - 1 in bits 56-63. Word 7: box dimension i - 1 (i >= 1) in
// bits 8 (i - 1) to 8 (i - 1) + 7.
constexpr unsigned kElementStrideWord = 6, kElementStrideShift = 32,
                   kElementStrideBits = 3;
constexpr unsigned kBox0Word = 6, kBox0Shift = 56;
constexpr unsigned kBoxWord = 7, kBoxBits = 8;

/// Word 1's element codes: the CUtensorMapDataType value each is written
/// for and its size in bits. The codes are not the enum's values (there is
/// no 8, FLOAT64 is 9). 11 is what the CuTe DSL writes for its dense 4-bit
/// type (CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B), which Hopper's TMA lacks.
struct ElementCode {
  unsigned code;
  unsigned cuDataType;
  unsigned bits;
};
inline constexpr ElementCode kElementCodes[] = {
    {0, 0, 8},   // UINT8
    {1, 1, 16},  // UINT16
    {2, 2, 32},  // UINT32
    {3, 3, 32},  // INT32
    {4, 4, 64},  // UINT64
    {5, 5, 64},  // INT64
    {6, 6, 16},  // FLOAT16
    {7, 7, 32},  // FLOAT32
    {9, 8, 64},  // FLOAT64
    {10, 9, 16}, // BFLOAT16
    {11, 13, 4}, // 16U4_ALIGN8B (sm_100)
};
constexpr unsigned kFourBitCode = 11;

} // namespace mlir::nvfp4::tensormap

#endif // NVFP4_CONVERSION_GPUCOMMON_TENSORMAPWORDS_H
