//===- Codegen.h - loop bodies of the nvfp4 ops -------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The per-element and per-tile work of the nvfp4 ops over byte-storage
// memrefs (see Storage.h), independent of how the iteration space is walked:
// the CPU lowering wraps it in scf.for loops, the GPU lowerings map it to
// threads. Both therefore execute the same ops and produce the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_UTILS_CODEGEN_H
#define NVFP4_DIALECT_NVFP4_UTILS_CODEGEN_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"
#include "nvfp4/Dialect/NVFP4/Utils/Numerics.h"

#include <functional>

namespace mlir {
namespace nvfp4 {

/// Elements per Hadamard chunk, per NVFP4 block, and per random draw.
constexpr int64_t kChunk = 16;

/// Index constant.
Value indexConst(OpBuilder &b, Location loc, int64_t v);

/// The memref indices of scale S[batch, r, c] (`batch` may be null) in the
/// row-major or swizzled layout.
SmallVector<Value> scaleIndices(OpBuilder &b, Location loc, bool swizzled,
                                Value batch, Value r, Value c);

/// The rows of group `g` of a contiguous or masked grouped matmul, as every
/// lowering (CPU loops, portable GPU kernel, the chip kernels' tile walk)
/// reads them from the run-time table; `entry(i)` loads its element i as
/// an index. Contiguous: [clamp(offsets[g], 0, rows), clamp(offsets[g + 1],
/// begin, rows)) of the token matrix's `rows`; masked: [0, clamp(masked_m[g],
/// 0, rows)) of the group's slot of `rows` rows. A table outside the
/// contract (negative, decreasing, past `rows`) gives empty or clipped
/// ranges, never a row outside [0, rows).
struct GroupRowRange {
  Value begin, end;
};
GroupRowRange groupRowRange(OpBuilder &b, Location loc, Grouping grouping,
                            Value g, int64_t rows,
                            function_ref<Value(Value)> entry);

/// nvfp4.moe_route's sort key of router index `id` (i32): the expert, or
/// E - 1 for an index outside [0, E) (a dropped pair); and whether the pair
/// is kept (i1). Both i32/i1 scalars.
struct MoERouteKey {
  Value expert, kept;
};
MoERouteKey moeRouteKey(OpBuilder &b, Location loc, Value id,
                        int64_t numExperts);

/// nvfp4.moe_dispatch's source of a row holding pair index `pair` (i32) of
/// `pairs` = T * K: whether the index lies in [0, pairs) (else the row is
/// zero) and the token row to read, an index (token 0 when it does not:
/// every load stays in bounds).
struct MoEDispatchSource {
  Value inside, token;
};
MoEDispatchSource moeDispatchSource(OpBuilder &b, Location loc, Value pair,
                                    int64_t pairs, int64_t topK);

/// nvfp4.moe_combine's pair (t, s) of row `row` (i32) of the `rows`-row
/// input and weight `weight` (f32): whether it contributes (0 <= row <
/// rows, weight != 0) and the row to load, an index (0 when it does not:
/// every load stays in bounds).
struct MoECombinePair {
  Value include, row;
};
MoECombinePair moeCombinePair(OpBuilder &b, Location loc, Value row,
                              Value weight, int64_t rows);

/// One step of nvfp4.moe_combine's sum: fl(acc + fl(weight * y)) where
/// `include`, else acc (f32, or vectors of f32 with a scalar weight); the
/// product rounded to `productType` first when it is given.
Value moeCombineStep(NumericsBuilder &nb, Value acc, Value weight, Value y,
                     Value include, Type productType);

/// Loads a scale byte as i32.
Value loadScaleByte(OpBuilder &b, Location loc, Value scales, bool swizzled,
                    Value batch, Value r, Value c);

/// Loads the E2M1 code (i32) of element [batch, r, k] of a packed memref.
Value loadCode(OpBuilder &b, Location loc, Value values, Value batch, Value r,
               Value k);

/// The indices `batch?, rest...`.
SmallVector<Value> withBatch(Value batch, ArrayRef<Value> rest);

/// Group g's A scales of a (grouped) matmul's a_scales list; null when the
/// list is empty (bf16/f16 activations: weight-only).
inline Value groupAScales(ValueRange aScales, int64_t g = 0) {
  return aScales.empty() ? Value() : aScales[g];
}

/// Stores zero to every element of a static memref of rank >= 1 (loops over
/// all but the last dimension, one vector store per innermost row).
void fillZeros(OpBuilder &b, Location loc, Value memref);

/// Whether a decode scale (or amax) memref of [batch?, R, K] data holds one
/// per row (row-scaled NVFP4, `[batch?, R]`) rather than one per tensor.
bool isPerRowDecodeScale(Value memref, bool batched);

/// The indices of the decode scale (or amax) of row `row` of batch entry
/// `batch` (may be null) in `memref`: `[batch?]` when it holds one per
/// tensor, `[batch?, row]` when one per row.
SmallVector<Value> decodeScaleIndices(Value memref, Value batch, Value row);

/// The fp32 alpha of a matmul group (docs/spec.md 2.7):
/// fl(fl(a_decode * b_decode) * alpha) over the factors given (null ones
/// absent, i.e. 1), 1 without any. Every lowering forms it here.
Value combineAlpha(OpBuilder &b, Location loc, Value aDecode, Value bDecode,
                   Value alpha);

/// The alpha_eff operands of a matmul as memrefs (each may be null): rank 0
/// for the whole matmul; rank 1 per group of a grouped matmul, per row of
/// the operand (row-scaled A: per output row, B: per output column) of a
/// dense one.
struct AlphaOperands {
  Value aDecode, bDecode, alpha;
  bool grouped = false;

  bool aPerGroup() const;
  bool bPerGroup() const;
  bool aPerRow() const;
  bool bPerRow() const;
  /// Whether alpha_eff differs between the outputs of one group.
  bool perElement() const { return aPerRow() || bPerRow(); }
  /// alpha_eff of output [m, n] of group `group` (null for a dense matmul);
  /// `m` and `n` are read only by per-row factors.
  Value load(OpBuilder &b, Location loc, Value group, Value m, Value n) const;
};

/// Encodes values already multiplied by S_enc into E2M1 codes (i32, 0..15;
/// a multiple of 4 values, in order), given their random bytes (i32, one per
/// value; empty unless rounding is stochastic).
using E2M1Encoder = std::function<SmallVector<Value>(OpBuilder &b, Location loc,
                                                     ArrayRef<Value> scaled,
                                                     ArrayRef<Value> random)>;

/// Where an NVFP4 quantize's S_enc comes from: the amax (computed or the
/// caller's), or a calibrated scale used as given (spec 2.2, Q15).
enum class GivenScale { none, encode, decode };

/// Static description of an nvfp4.quantize.
struct QuantizeSpec {
  Format format;
  bool batched;
  int64_t batch, rows, k;
  int64_t tileRows, blockWidth; // 1x16, 16x16 or 1x32
  bool swizzled, hadamard, stochastic;
  /// E2M1 codes from a hardware conversion instead of the fp32 emulation:
  /// set by the GPU lowerings that have one (NVFP4ToGPU's sm_100a cvt
  /// instructions), so that this file builds no target op.
  E2M1Encoder hardwareEncoder;
  ScaleRule rule;
  ErrorMetric metric;
  /// E4M3 maximum of the global scale (448; four_over_six may ask for 256).
  int64_t e4m3Max = 448;
  /// Row-scaled NVFP4: amax, S_enc and the decode scale per row.
  bool rowScaled = false;
  /// A calibrated encode or decode scale operand: no amax is computed.
  GivenScale givenScale = GivenScale::none;

  static QuantizeSpec get(QuantizeOp op);
  bool isNVFP4() const { return format == Format::nvfp4; }
  bool isFourOverSix() const { return rule == ScaleRule::four_over_six; }
  /// Whether S_enc comes from a calibrated scale rather than an amax.
  bool hasGivenScale() const { return givenScale != GivenScale::none; }
  /// C = 6 * e4m3Max: 2688 or 1536.
  double globalMax() const { return 6.0 * static_cast<double>(e4m3Max); }
  int64_t scaleCols() const { return k / blockWidth; }
  int64_t numTileRows() const { return ceilDiv(rows, tileRows); }
};

/// The per-tensor (per batch entry) values of an NVFP4 quantize.
struct TensorScales {
  /// The tensor amax (or the caller's); null with a given scale (givenScales),
  /// which has none: only four_over_six reads it, and Q15 excludes that.
  Value amax;
  /// S_enc and S_dec = fl(1/S_enc) (spec 2.2 step 2): what blocks encode with.
  Value sEnc, sDec;
  /// The decode_scale result: S_dec, or fl(amax / C) for four_over_six
  /// (spec 2.5).
  Value decodeScale;
};

/// Emits the work of an nvfp4.quantize over byte-storage memrefs: `input`
/// (bf16/f16/f32), `values` (packed i8), `scales` (i8, row-major or
/// swizzled). `seed` is the i64 seed for stochastic rounding (else null).
class QuantizeCodegen {
public:
  QuantizeCodegen(OpBuilder &b, Location loc, const QuantizeSpec &spec,
                  Value input, Value values, Value scales, Value seed);

  /// The 16 elements [batch, row, k0 .. k0+15] as f32, after the Hadamard
  /// transform when enabled (rounded to the input's element type).
  SmallVector<Value> loadChunk(Value batch, Value row, Value k0);
  /// The Hadamard transform of 16 loaded values (f32; `element`, the
  /// input's element type, is what the sums round to), or the values as
  /// they are without it: what loadChunk applies after loading.
  SmallVector<Value> transformChunk(ArrayRef<Value> x, Type element);
  /// Random bytes (i32) of the chunk at [batch, row, k0] (spec 2.4).
  SmallVector<Value> randomBytes(Value batch, Value row, Value k0);

  /// max(acc, |x_i|) over a chunk, NaN ignored.
  Value chunkAbsMax(ArrayRef<Value> chunk, Value acc);

  /// The tensor amax of one batch entry, as an scf.for loop nest.
  Value emitTensorAmax(Value batch);
  /// max(acc, amax of row `row`), as an scf.for loop.
  Value emitRowAmax(Value batch, Value row, Value acc);

  /// The NVFP4 per-tensor (per-row when row-scaled) scales from the amax.
  TensorScales tensorScales(Value amax);
  /// The NVFP4 per-tensor scales from the calibrated scale `scale` (f32, the
  /// spec's givenScale kind says whether it is S_enc or S_dec): S_enc and
  /// S_dec as given or reciprocated, decodeScale = S_dec, amax null.
  TensorScales givenScales(Value scale);

  /// Quantizes one tile (tileRows x blockWidth elements at tile row
  /// `tileRow`, block column `blockCol`): writes its codes and its scale(s).
  /// `scales` are the NVFP4 per-tensor values (empty for MXFP4).
  void emitTile(Value batch, Value tileRow, Value blockCol,
                const TensorScales &scales);
  /// Quantizes one NVFP4 1x16 block held in registers (transformChunk's
  /// values): its E4M3 scale byte and its 16 codes (i32), exactly as
  /// emitTile would write them; `random` as randomBytes gives them (empty
  /// unless stochastic). For kernels that quantize where they consume.
  std::pair<Value, SmallVector<Value>> quantizeBlock(ArrayRef<Value> chunk,
                                                     const TensorScales &scales,
                                                     ArrayRef<Value> random);

private:
  /// A block's scale byte and the multiplier its values are encoded with,
  /// from its amax: max6, MXFP4, or 4/6 with `errors(enc6, enc4, sf6, sf4)`
  /// giving the block's error for each candidate (spec 2.5).
  std::pair<Value, Value> chooseBlockScale(
      Value amax, const TensorScales &scales,
      function_ref<std::pair<Value, Value>(Value, Value, Value, Value)> errors);
  /// Codes of a chunk scaled by `enc`.
  SmallVector<Value> encodeChunk(ArrayRef<Value> chunk, Value enc,
                                 ArrayRef<Value> random);
  /// Packs and stores 16 codes at [batch, row, k0/2].
  void storeCodes(Value batch, Value row, Value k0, ArrayRef<Value> codes);
  void storeScale(Value batch, Value row, Value blockCol, Value byte);
  /// Adds the 4/6 error terms of a chunk for one candidate to `acc`, one
  /// after the other (spec 2.5).
  Value accumulateError(ArrayRef<Value> chunk, ArrayRef<Value> codes,
                        Value sfValue, Value amax, Value acc);
  /// fp32 addition, or fmaxf for abs_max: how 4/6 errors combine.
  Value combineErrors(Value a, Value c);
  /// Row `r` of tile row `tileRow`.
  Value rowIndex(Value tileRow, int64_t r);

  OpBuilder &b;
  Location loc;
  QuantizeSpec spec;
  Value input, values, scales, seed;
  NumericsBuilder nb;
};

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_UTILS_CODEGEN_H
