//===- NVFP4Ops.td - nvfp4 operations ----------------------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Each op verifies the numbered constraints of docs/spec.md; the ids appear
// in the verifier and name the negative tests in test/Dialect/NVFP4.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD

include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.td"
include "nvfp4/Dialect/NVFP4/IR/NVFP4Attrs.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def NVFP4_HighPrecision : AnyTypeOf<[BF16, F16, F32]>;
def NVFP4_ScaleElement : AnyTypeOf<[F8E4M3FN, F8E8M0FNU]>;

def NVFP4_HighPrecisionShaped : TensorOrMemRef<[BF16, F16, F32]>;
def NVFP4_FP4Shaped : TensorOrMemRef<[F4E2M1FN]>;
// A matmul's activations: FP4 codes (with scales), or bf16/f16 values taken
// as they are (weight-only quantization, W4A16).
def NVFP4_ActivationShaped : TensorOrMemRef<[F4E2M1FN, BF16, F16]>;
def NVFP4_ScaleShaped : TensorOrMemRef<[F8E4M3FN, F8E8M0FNU]>;
def NVFP4_F32Shaped : TensorOrMemRef<[F32]>;
def NVFP4_I32Shaped : TensorOrMemRef<[I32]>;

// Ops are "hybrid" like linalg: on tensors they have results; once
// bufferized they take memref destinations (`outs`) and have no results.
class NVFP4_HybridOp<string mnemonic, list<Trait> traits = []>
    : NVFP4_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  code hybridDecls = [{
    /// True once bufferized: operands are memrefs and results are `outs`.
    bool hasBufferSemantics() { return getNumResults() == 0; }
  }];
  let extraClassDeclaration = hybridDecls;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// nvfp4.quantize
//===----------------------------------------------------------------------===//

def NVFP4_QuantizeOp : NVFP4_HybridOp<"quantize", [AttrSizedOperandSegments]> {
  let summary = "quantize a tensor to NVFP4 or MXFP4";
  let description = [{
    Quantizes `input` (`[R, K]` or `[B, R, K]`, bf16/f16/f32) to E2M1 values
    with one block scale per block of the last dimension, exactly as
    specified in docs/spec.md ("Quantize"). Results, in order:

    1. `values`: `f4E2M1FN`, the shape of `input`;
    2. `scales`: `f8E4M3FN` (nvfp4) or `f8E8M0FNU` (mxfp4), either row-major
       `[B?, R, K/bs]` or swizzled `[B?, ceil(R/128), ceil(K/bs/4), 32, 4, 4]`
       with the `#nvfp4.swizzled_128x4` encoding (bs = 16 for nvfp4, 32 for
       mxfp4); the result type chooses the layout;
    3. `decode_scale` (nvfp4 only): the fp32 per-tensor decode scale `S_dec`,
       `tensor<f32>`, or `tensor<Bxf32>` (one per batch entry) for 3-D input;
       or one per row, `tensor<Rxf32>` / `tensor<BxRxf32>`: row-scaled NVFP4
       (TransformerEngine's `row_scaled_nvfp4`), where each row is quantized
       with its own amax and `S_enc` (1x16 blocks only).

    Attributes:
    * `format` (required, first keyword): `nvfp4` or `mxfp4`.
    * `block`: `[1, 16]` (default) or `[16, 16]` (2-D weight blocks: one
      scale per 16x16 tile, stored repeated in the 1x16 layout) for nvfp4;
      `[1, 32]` for mxfp4.
    * `rounding`: `#nvfp4.rounding<nearest_even>` (default) or
      `#nvfp4.rounding<stochastic>`; stochastic rounding takes an i64 `seed`
      operand and is deterministic for a given seed.
    * `hadamard`: apply the 16-point random Hadamard transform to the last
      dimension before computing amax and quantizing; the transformed values
      are rounded to the input's element type (bf16, f16), as
      TransformerEngine does, and stay fp32 for f32 input.
    * `scale_rule`: nvfp4: `max6` (default) or `four_over_six`
      (TransformerEngine's 4over6: each block scaled to 6 and to 4, the one
      with the smaller error kept); mxfp4: `rceil` (default) or `floor`.
    * `error_metric` (four_over_six only): `mae` (default) or `mse`, TE's
      two modes, or `abs_max` (an extension TE does not offer).
    * `e4m3_max` (four_over_six only): 448 (default) or 256, TE's
      `nvfp4_e4m3_max`; the global constant is `6 * e4m3_max`.
    * an optional `amax` operand (nvfp4 only) replaces the computed
      absolute maximum; it has the decode scale's shape (one per tensor,
      batch entry or row).
    * an optional `encode_scale` or `decode_scale` operand (nvfp4, max6,
      per-tensor decode scale only; at most one of it and `amax`): a
      calibrated global scale, `tensor<f32>` or `tensor<Bxf32>`, used
      exactly as given: `encode_scale` e (compressed-tensors'
      `input_global_scale`) gives `S_enc = e`, `S_dec = fl(1/e)`;
      `decode_scale` d (ModelOpt's `input_scale`) gives `S_dec = d`,
      `S_enc = fl(1/d)`. No amax is computed and no guard applies (a zero,
      infinite, NaN or negative scale goes through the block formulas as it
      is); the `decode_scale` result is that `S_dec`.

    Example:

    ```mlir
    %q, %s, %d = nvfp4.quantize nvfp4 %x
        : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>,
          tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
    %rq, %rs, %rd = nvfp4.quantize nvfp4 %x
        : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>,
          tensor<200x28xf8E4M3FN>, tensor<200xf32>
    %mq, %ms = nvfp4.quantize mxfp4 %y seed %seed
        {rounding = #nvfp4.rounding<stochastic>, hadamard}
        : tensor<128x256xf32> -> tensor<128x256xf4E2M1FN>,
          tensor<128x8xf8E8M0FNU>
    // A calibrated activation scale (ModelOpt's input_scale): %sd is %d.
    %sq, %ss, %sd = nvfp4.quantize nvfp4 %a decode_scale %d : tensor<f32>
        : tensor<16x4096xbf16> -> tensor<16x4096xf4E2M1FN>,
          tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
    ```
  }];
  let arguments = (ins
    NVFP4_FormatAttr:$format,
    NVFP4_HighPrecisionShaped:$input,
    Optional<NVFP4_F32Shaped>:$amax,
    Optional<NVFP4_F32Shaped>:$encode_scale,
    Optional<NVFP4_F32Shaped>:$decode_scale,
    Optional<I64>:$seed,
    Variadic<AnyMemRef>:$outs,
    OptionalAttr<DenseI64ArrayAttr>:$block,
    DefaultValuedAttr<NVFP4_RoundingAttr, "Rounding::nearest_even">:$rounding,
    UnitAttr:$hadamard,
    OptionalAttr<NVFP4_ScaleRuleAttr>:$scale_rule,
    OptionalAttr<NVFP4_ErrorMetricAttr>:$error_metric,
    OptionalAttr<I64Attr>:$e4m3_max);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $format $input (`amax` $amax^ `:` type($amax))?
    (`encode_scale` $encode_scale^ `:` type($encode_scale))?
    (`decode_scale` $decode_scale^ `:` type($decode_scale))? (`seed` $seed^)?
    (`outs` `(` $outs^ `:` type($outs) `)`)?
    attr-dict `:` type($input) (`->` type($results)^)?
  }];
  let extraClassDeclaration = hybridDecls # [{
    /// The values, scales and (nvfp4) decode scale, as results on tensors or
    /// as `outs` once bufferized.
    ::mlir::ValueRange getTargets() {
      return hasBufferSemantics() ? ::mlir::ValueRange(getOuts())
                                  : ::mlir::ValueRange(getResults());
    }
    ::mlir::Value getValuesTarget() { return getTargets()[0]; }
    ::mlir::Value getScalesTarget() { return getTargets()[1]; }
    ::mlir::Value getDecodeScaleTarget() {
      return getTargets().size() > 2 ? getTargets()[2] : ::mlir::Value();
    }
    /// Block shape, scale rule and error metric with defaults applied.
    ::llvm::SmallVector<int64_t, 2> getEffectiveBlock();
    ScaleRule getEffectiveScaleRule();
    ErrorMetric getEffectiveErrorMetric();
    /// The E4M3 maximum of the global scale (448 unless four_over_six
    /// asks for 256).
    int64_t getEffectiveE4M3Max();
    /// Elements of the last dimension sharing one scale (16 or 32).
    int64_t getBlockWidth() { return getEffectiveBlock()[1]; }
    bool hasSwizzledScales();
    /// Row-scaled NVFP4: one decode scale (and amax) per row.
    bool isRowScaled();
    /// The calibrated global scale (`encode_scale` or `decode_scale`
    /// operand), or null when S_enc comes from the amax.
    ::mlir::Value getGivenScale() {
      return getEncodeScale() ? getEncodeScale() : getDecodeScale();
    }
    /// Whether the given scale is S_enc (else S_dec, or none).
    bool hasGivenEncodeScale() { return static_cast<bool>(getEncodeScale()); }
  }];
}

//===----------------------------------------------------------------------===//
// nvfp4.dequantize
//===----------------------------------------------------------------------===//

def NVFP4_DequantizeOp : NVFP4_HybridOp<"dequantize", [AttrSizedOperandSegments]> {
  let summary = "expand E2M1 values and block scales to a float tensor";
  let description = [{
    Computes `e2m1(values) * scale * decode_scale` in fp32 and rounds to the
    result element type (round to nearest even). The scale element type
    selects the format: `f8E4M3FN` is NVFP4 (one scale per 16 values, an
    optional fp32 `decode_scale`, 1.0 when absent), `f8E8M0FNU` is MXFP4 (one
    scale per 32 values, no decode scale). Scales may be row-major or
    swizzled (`#nvfp4.swizzled_128x4`). The decode scale is one per tensor
    (`tensor<f32>`, `tensor<Bxf32>`) or one per row (`tensor<Rxf32>`,
    `tensor<BxRxf32>`: row-scaled NVFP4).

    Example:

    ```mlir
    %x = nvfp4.dequantize %q, %s decode_scale %d : tensor<f32>
        : tensor<200x448xf4E2M1FN>,
          tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
        -> tensor<200x448xf32>
    ```
  }];
  let arguments = (ins
    NVFP4_FP4Shaped:$values,
    NVFP4_ScaleShaped:$scales,
    Optional<NVFP4_F32Shaped>:$decode_scale,
    Optional<AnyMemRef>:$out);
  let results = (outs Optional<RankedTensorOf<[BF16, F16, F32]>>:$result);
  let assemblyFormat = [{
    $values `,` $scales
    (`decode_scale` $decode_scale^ `:` type($decode_scale))?
    (`outs` `(` $out^ `:` type($out) `)`)?
    attr-dict `:` type($values) `,` type($scales) (`->` type($result)^)?
  }];
  let extraClassDeclaration = hybridDecls # [{
    ::mlir::Value getTarget() {
      return hasBufferSemantics() ? ::mlir::Value(getOut())
                                  : ::mlir::Value(getResult());
    }
  }];
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// nvfp4.swizzle_scales / nvfp4.unswizzle_scales
//===----------------------------------------------------------------------===//

def NVFP4_SwizzleScalesOp : NVFP4_HybridOp<"swizzle_scales"> {
  let summary = "row-major block scales to the 128x4 tiled layout";
  let description = [{
    Rearranges a row-major scale matrix `[B?, R, C]` into the tiled layout
    `[B?, ceil(R/128), ceil(C/4), 32, 4, 4]` (`#nvfp4.swizzled_128x4`),
    writing zeros to every padding element (rows >= R, columns >= C).

    Example:

    ```mlir
    %sw = nvfp4.swizzle_scales %s : tensor<200x28xf8E4M3FN>
        -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
    ```
  }];
  let arguments = (ins NVFP4_ScaleShaped:$input, Optional<AnyMemRef>:$out);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $input (`outs` `(` $out^ `:` type($out) `)`)?
    attr-dict `:` type($input) (`->` type($result)^)?
  }];
  let extraClassDeclaration = hybridDecls # [{
    ::mlir::Value getTarget() {
      return hasBufferSemantics() ? ::mlir::Value(getOut())
                                  : ::mlir::Value(getResult());
    }
  }];
  let hasCanonicalizer = 1;
  let hasFolder = 1;
}

def NVFP4_UnswizzleScalesOp : NVFP4_HybridOp<"unswizzle_scales"> {
  let summary = "block scales from the 128x4 tiled layout to row-major";
  let description = [{
    The inverse of `nvfp4.swizzle_scales`: reads the `[R, C]` scale matrix
    (the result type gives R and C) out of its tiled layout, dropping the
    padding. `unswizzle_scales(swizzle_scales(x))` folds to `x`; the reverse
    composition does not fold, because swizzling rewrites the padding with
    zeros whatever it held before.

    Example:

    ```mlir
    %s = nvfp4.unswizzle_scales %sw
        : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
        -> tensor<200x28xf8E4M3FN>
    ```
  }];
  let arguments = (ins NVFP4_ScaleShaped:$input, Optional<AnyMemRef>:$out);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $input (`outs` `(` $out^ `:` type($out) `)`)?
    attr-dict `:` type($input) (`->` type($result)^)?
  }];
  let extraClassDeclaration = hybridDecls # [{
    ::mlir::Value getTarget() {
      return hasBufferSemantics() ? ::mlir::Value(getOut())
                                  : ::mlir::Value(getResult());
    }
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// nvfp4.swiglu
//===----------------------------------------------------------------------===//

def NVFP4_SwigluOp : NVFP4_HybridOp<"swiglu"> {
  let summary = "gated SiLU of interleaved gate/up columns";
  let description = [{
    The activation between a mixture-of-experts block's two GEMMs (and a
    gated MLP's): `input` is `[..., 2N]` with the gate in the even columns
    and the up projection in the odd ones (the layout of gpt-oss's fused
    `gate_up_proj`; a GEMM whose weight rows interleave gate and up rows
    produces it), the result `[..., N]`:

    ```
    g = input[..., 2n], u = input[..., 2n + 1]          (exact in fp32)
    with limit: g = min(g, limit), u = clamp(u, -limit, limit)
    result[..., n] = round_out(fl(fl(g * sigmoid(fl(sigmoid_scale * g)))
                                  * fl(u + up_offset)))
    ```

    `sigmoid` is computed in fp32 by the algorithm of docs/spec.md 2.10, the
    same on every target; the multiplication by `sigmoid_scale` is omitted
    when it is 1 and the addition of `up_offset` when it is 0. SwiGLU is
    the default; gpt-oss's activation is
    `{sigmoid_scale = 1.702, limit = 7.0, up_offset = 1.0}`.

    Example:

    ```mlir
    %h = nvfp4.swiglu %gate_up {limit = 7.0 : f32}
        : tensor<16x5760xbf16> -> tensor<16x2880xbf16>
    ```
  }];
  let arguments = (ins NVFP4_HighPrecisionShaped:$input,
      Optional<AnyMemRef>:$out,
      DefaultValuedAttr<F32Attr, "1.0f">:$sigmoid_scale,
      OptionalAttr<F32Attr>:$limit,
      DefaultValuedAttr<F32Attr, "0.0f">:$up_offset);
  let results = (outs Optional<RankedTensorOf<[BF16, F16, F32]>>:$result);
  let assemblyFormat = [{
    $input (`outs` `(` $out^ `:` type($out) `)`)?
    attr-dict `:` type($input) (`->` type($result)^)?
  }];
  let extraClassDeclaration = hybridDecls#[{
    ::mlir::Value getTarget() {
      return hasBufferSemantics() ? ::mlir::Value(getOut())
                                  : ::mlir::Value(getResult());
    }
    /// The activation's parameters, as the numerics builders take them.
    SwigluParams getParams() {
      SwigluParams params;
      params.sigmoidScale = getSigmoidScale().convertToFloat();
      if (auto limit = getLimit())
        params.limit = limit->convertToFloat();
      params.upOffset = getUpOffset().convertToFloat();
      return params;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Mixture-of-experts routing: nvfp4.moe_route, moe_dispatch, moe_combine
//===----------------------------------------------------------------------===//

def NVFP4_MoERouteOp : NVFP4_HybridOp<"moe_route"> {
  let summary = "sort a router's (token, slot) pairs by expert";
  let description = [{
    `ids` is a router's top-k choice, `[T, K]` expert indices (i32). The
    `T * K` pairs `p = t * K + s` are sorted by expert, stably (in `p`
    order within an expert), so that expert `e`'s rows of a `contiguous`
    grouped matmul are `[group_offsets[e], group_offsets[e + 1])`. An index
    outside `[0, E)` (transformers' masked slot) is a dropped pair: it is
    sorted with expert `E - 1`, its row is computed and never read.
    Results (E from `group_offsets`' shape, `[E + 1]`):

    1. `sorted_pairs` `[T * K]`: the pair `p` in row `r`;
    2. `pair_rows` `[T, K]`: the row of pair `(t, s)`, or -1 when dropped;
    3. `group_offsets` `[E + 1]`: `group_offsets[e]` is the number of pairs
       sorted before expert `e` (0 first, `T * K` last).

    Example:

    ```mlir
    %pairs, %rows, %offsets = nvfp4.moe_route %ids
        : tensor<2048x8xi32> -> tensor<16384xi32>, tensor<2048x8xi32>,
          tensor<129xi32>
    ```
  }];
  let arguments = (ins NVFP4_I32Shaped:$ids, Variadic<AnyMemRef>:$outs);
  let results = (outs Variadic<RankedTensorOf<[I32]>>:$results);
  let assemblyFormat = [{
    $ids (`outs` `(` $outs^ `:` type($outs) `)`)?
    attr-dict `:` type($ids) (`->` type($results)^)?
  }];
  let extraClassDeclaration = hybridDecls#[{
    ::mlir::ValueRange getTargets() {
      return hasBufferSemantics() ? ::mlir::ValueRange(getOuts())
                                  : ::mlir::ValueRange(getResults());
    }
    ::mlir::Value getSortedPairsTarget() { return getTargets()[0]; }
    ::mlir::Value getPairRowsTarget() { return getTargets()[1]; }
    ::mlir::Value getGroupOffsetsTarget() { return getTargets()[2]; }
    /// E, the number of experts.
    int64_t getNumExperts() {
      return ::llvm::cast<::mlir::ShapedType>(
                 getGroupOffsetsTarget().getType()).getDimSize(0) - 1;
    }
  }];
}

def NVFP4_MoEDispatchOp : NVFP4_HybridOp<"moe_dispatch"> {
  let summary = "gather each sorted pair's token row";
  let description = [{
    `input` is `[T, H]`, `sorted_pairs` a `moe_route`'s first result
    `[T * K]`; the result `[T * K, H]` has in row `r` the row
    `input[sorted_pairs[r] / K]` (the token of the pair sorted there): the
    activations of the experts' `contiguous` grouped matmul. A pair index
    outside `[0, T * K)` gives a row of zeros. The values are copied as
    they are (the result has the input's element type).

    Example:

    ```mlir
    %x = nvfp4.moe_dispatch %hidden, %pairs
        : tensor<2048x2048xbf16>, tensor<16384xi32> -> tensor<16384x2048xbf16>
    ```
  }];
  let arguments = (ins NVFP4_HighPrecisionShaped:$input,
      NVFP4_I32Shaped:$sorted_pairs, Optional<AnyMemRef>:$out);
  let results = (outs Optional<RankedTensorOf<[BF16, F16, F32]>>:$result);
  let assemblyFormat = [{
    $input `,` $sorted_pairs (`outs` `(` $out^ `:` type($out) `)`)?
    attr-dict `:` type($input) `,` type($sorted_pairs)
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = hybridDecls#[{
    ::mlir::Value getTarget() {
      return hasBufferSemantics() ? ::mlir::Value(getOut())
                                  : ::mlir::Value(getResult());
    }
    /// K, the pairs per token.
    int64_t getTopK();
  }];
}

def NVFP4_MoECombineOp : NVFP4_HybridOp<"moe_combine"> {
  let summary = "weighted sum of each token's expert rows";
  let description = [{
    `input` is the experts' output `[S, H]` in sorted order (S = T * K),
    `pair_rows` and `weights` are `[T, K]` (a `moe_route`'s second result
    and the router's weights, bf16/f16/f32); the result `[T, H]`:

    ```
    acc = +0 (fp32)
    for s = 0 .. K-1:                      (in this order)
      r = pair_rows[t, s], w = f32(weights[t, s])
      if 0 <= r < S and w != 0:
        acc = fl(acc + fl(w * f32(input[r, h])))
    result[t, h] = round_out(acc)
    ```

    Each product and sum is one fp32 operation (no fused multiply-add), so
    every target gives the same bits; a dropped pair (-1) or a zero weight
    adds nothing, not even the NaN or infinity its row may hold. With
    `product_type` (bf16, f16 or f32) each product is rounded to that type
    before it is added: `fl(w * input)` as torch computes `y * w` in the
    promoted type of bf16 rows and bf16 weights (transformers' experts).

    Example:

    ```mlir
    %out = nvfp4.moe_combine %y, %rows, %weights
        : tensor<16384x2048xbf16>, tensor<2048x8xi32>, tensor<2048x8xf32>
        -> tensor<2048x2048xbf16>
    ```
  }];
  let arguments = (ins NVFP4_HighPrecisionShaped:$input,
      NVFP4_I32Shaped:$pair_rows, NVFP4_HighPrecisionShaped:$weights,
      Optional<AnyMemRef>:$out,
      OptionalAttr<TypeAttrOf<NVFP4_HighPrecision>>:$product_type);
  let results = (outs Optional<RankedTensorOf<[BF16, F16, F32]>>:$result);
  let assemblyFormat = [{
    $input `,` $pair_rows `,` $weights (`outs` `(` $out^ `:` type($out) `)`)?
    attr-dict `:` type($input) `,` type($pair_rows) `,` type($weights)
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = hybridDecls#[{
    ::mlir::Value getTarget() {
      return hasBufferSemantics() ? ::mlir::Value(getOut())
                                  : ::mlir::Value(getResult());
    }
  }];
}

//===----------------------------------------------------------------------===//
// nvfp4.matmul
//===----------------------------------------------------------------------===//

def NVFP4_MatmulOp : NVFP4_HybridOp<"matmul", [AttrSizedOperandSegments]> {
  let summary = "dense block-scaled matmul C = alpha * A * B^T (+ beta * C)";
  let description = [{
    `A` is `[M, K]`, `B` is `[N, K]` (both K-major, "NT"), the result is
    `[M, N]` in bf16, f16 or f32. M and N are arbitrary; K is a multiple of
    the block width (16 for NVFP4 = `f8E4M3FN` scales, 32 for MXFP4 =
    `f8E8M0FNU` scales). Scales must be in the swizzled 128x4 layout, the one
    the tensor cores read.

    ```
    C[m, n] = round_out(alpha_eff * sum_k (e2m1(A[m,k]) * sA[m, k/bs])
                                         * (e2m1(B[n,k]) * sB[n, k/bs])
                        + beta * acc[m, n])
    alpha_eff = (a_decode_scale * b_decode_scale) * alpha     (fp32)
    ```

    Weight-only quantization (W4A16): `A` may instead be bf16 or f16 values,
    taken as they are, with no `a_scales` (the op then has three operands
    before its keywords and three types) and no `a_decode_scale`; the
    product is `A[m,k] * (e2m1(B[n,k]) * sB[n, k/bs])` and `bs` is that of
    B's scales:

    ```mlir
    %c = nvfp4.matmul %x, %w, %sw b_decode_scale(%dw : tensor<f32>)
        : tensor<8x4096xbf16>, tensor<4096x4096xf4E2M1FN>,
          tensor<32x256x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
        -> tensor<8x4096xbf16>
    ```

    Each missing factor of `alpha_eff` is 1. A decode scale is a
    `tensor<f32>`, or one per row of its operand (`tensor<Mxf32>` for A,
    `tensor<Nxf32>` for B: row-scaled NVFP4), and then `alpha_eff` is the
    outer product `(a_decode_scale[m] * b_decode_scale[n]) * alpha`.
    Products and the sum are fp32 or exact; only the order of the fp32
    summation is unspecified. `acc` (the result type) is read only when
    given, scaled by the `beta` attribute (default 1.0). `bias` (`[N]`,
    bf16, f16 or f32) is added to each row before the accumulator:

    ```
    C[m, n] = round_out(fl(fl(alpha_eff * sum) + bias[n]) + fl(beta * acc[m, n]))
    ```

    Example:

    ```mlir
    %c = nvfp4.matmul %a, %sa, %b, %sb
        a_decode_scale(%da : tensor<f32>) b_decode_scale(%db : tensor<f32>)
        : tensor<200x448xf4E2M1FN>,
          tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
          tensor<96x448xf4E2M1FN>,
          tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
        -> tensor<200x96xbf16>
    ```
  }];
  let arguments = (ins NVFP4_ActivationShaped:$a,
      Optional<NVFP4_ScaleShaped>:$a_scales, NVFP4_FP4Shaped:$b,
      NVFP4_ScaleShaped:$b_scales, Optional<NVFP4_F32Shaped>:$a_decode_scale,
      Optional<NVFP4_F32Shaped>:$b_decode_scale,
      Optional<NVFP4_F32Shaped>:$alpha,
      Optional<NVFP4_HighPrecisionShaped>:$bias,
      Optional<NVFP4_HighPrecisionShaped>:$acc, Optional<AnyMemRef>:$out,
      DefaultValuedAttr<F32Attr, "1.0f">:$beta);
  let results = (outs Optional<RankedTensorOf<[BF16, F16, F32]>>:$result);
  let assemblyFormat = [{
    custom<MatmulOperands>($a, $a_scales, $b, $b_scales)
    (`a_decode_scale` `(` $a_decode_scale^ `:` type($a_decode_scale) `)`)?
    (`b_decode_scale` `(` $b_decode_scale^ `:` type($b_decode_scale) `)`)?
    (`alpha` `(` $alpha^ `:` type($alpha) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`acc` `(` $acc^ `:` type($acc) `)`)?
    (`outs` `(` $out^ `:` type($out) `)`)?
    attr-dict `:` custom<MatmulOperandTypes>(type($a), type($a_scales),
                                            type($b), type($b_scales))
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = hybridDecls # [{
    ::mlir::Value getTarget() {
      return hasBufferSemantics() ? ::mlir::Value(getOut())
                                  : ::mlir::Value(getResult());
    }
    /// A is bf16/f16 values (weight-only quantization): no A scales.
    bool isWeightOnly() {
      return !::llvm::isa<::mlir::Float4E2M1FNType>(
          ::llvm::cast<::mlir::ShapedType>(getA().getType()).getElementType());
    }
  }];
}

//===----------------------------------------------------------------------===//
// nvfp4.grouped_matmul
//===----------------------------------------------------------------------===//

def NVFP4_GroupedMatmulOp : NVFP4_HybridOp<"grouped_matmul",
                                           [AttrSizedOperandSegments]> {
  let summary = "G independent block-scaled matmuls in one op";
  let description = [{
    Computes, for each group g, `C_g = alpha_g * A_g * B_g^T (+ beta * acc_g)`
    with the per-element semantics of `nvfp4.matmul`. The first keyword
    chooses how groups are laid out:

    * `independent`: G problems with their own shapes (the GPU-mode list of
      `(a, b, c)`): `a`, `a_scales`, `b`, `b_scales`, `acc` and the results
      are lists of G values each, `A_g [M_g, K_g]`, `B_g [N_g, K_g]`,
      `C_g [M_g, N_g]`.
    * `contiguous` (MoE): one `A [sum M, K]` holding the rows of all groups
      back to back, `B [G, N, K]`, `group_offsets` (`tensor<(G+1)xi32>`, group
      g owns rows `[off[g], off[g+1])`, `off[0] = 0`, `off[G] = sum M`, non
      decreasing), result `[sum M, N]`. A's scales are swizzled over the
      concatenated rows.
    * `masked`: `A [G, maxM, K]`, `B [G, N, K]`, `masked_m` (`tensor<Gxi32>`,
      valid rows per group, `0 <= masked_m[g] <= maxM`), result
      `[G, maxM, N]`. Rows at or past `masked_m[g]` take no product: they
      hold `fl(bias[g, n] + fl(beta * acc))`, each term only when given (0
      with neither).

    With bf16 or f16 activations (W4A16, as in `nvfp4.matmul`) there is no
    `a_scales` clause and no `a_decode_scale`.

    `alpha_g = (a_decode_scale_g * b_decode_scale_g) * alpha[g]` in fp32,
    where each decode scale is a `tensor<f32>` (shared) or `tensor<Gxf32>`,
    `alpha` a `tensor<Gxf32>`, and a missing factor is 1. All groups share
    one output element type and one scale format. `bias` (`contiguous` and
    `masked`: `[G, N]`, bf16, f16 or f32) adds row g to group g's outputs,
    as in `nvfp4.matmul`.

    Example:

    ```mlir
    %c = nvfp4.grouped_matmul contiguous
        a(%a : tensor<1024x7168xf4E2M1FN>)
        a_scales(%sa : tensor<8x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
        b(%b : tensor<8x4096x7168xf4E2M1FN>)
        b_scales(%sb : tensor<8x32x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
        group_offsets(%off : tensor<9xi32>)
        b_decode_scale(%db : tensor<8xf32>)
        -> tensor<1024x4096xbf16>
    ```
  }];
  let arguments = (ins NVFP4_GroupingAttr:$grouping,
      Variadic<NVFP4_ActivationShaped>:$a,
      Variadic<NVFP4_ScaleShaped>:$a_scales, Variadic<NVFP4_FP4Shaped>:$b,
      Variadic<NVFP4_ScaleShaped>:$b_scales,
      Optional<NVFP4_I32Shaped>:$group_offsets,
      Optional<NVFP4_I32Shaped>:$masked_m,
      Optional<NVFP4_F32Shaped>:$a_decode_scale,
      Optional<NVFP4_F32Shaped>:$b_decode_scale,
      Optional<NVFP4_F32Shaped>:$alpha,
      Optional<NVFP4_HighPrecisionShaped>:$bias,
      Variadic<NVFP4_HighPrecisionShaped>:$acc, Variadic<AnyMemRef>:$outs,
      DefaultValuedAttr<F32Attr, "1.0f">:$beta);
  let results = (outs Variadic<RankedTensorOf<[BF16, F16, F32]>>:$results);
  let assemblyFormat = [{
    $grouping
    `a` `(` $a `:` type($a) `)`
    (`a_scales` `(` $a_scales^ `:` type($a_scales) `)`)?
    `b` `(` $b `:` type($b) `)`
    `b_scales` `(` $b_scales `:` type($b_scales) `)`
    (`group_offsets` `(` $group_offsets^ `:` type($group_offsets) `)`)?
    (`masked_m` `(` $masked_m^ `:` type($masked_m) `)`)?
    (`a_decode_scale` `(` $a_decode_scale^ `:` type($a_decode_scale) `)`)?
    (`b_decode_scale` `(` $b_decode_scale^ `:` type($b_decode_scale) `)`)?
    (`alpha` `(` $alpha^ `:` type($alpha) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`acc` `(` $acc^ `:` type($acc) `)`)?
    (`outs` `(` $outs^ `:` type($outs) `)`)?
    attr-dict (`->` type($results)^)?
  }];
  let extraClassDeclaration = hybridDecls # [{
    ::mlir::ValueRange getTargets() {
      return hasBufferSemantics() ? ::mlir::ValueRange(getOuts())
                                  : ::mlir::ValueRange(getResults());
    }
    /// Number of groups.
    int64_t getNumGroups();
    /// A is bf16/f16 values (weight-only quantization): no A scales.
    bool isWeightOnly() {
      return !::llvm::isa<::mlir::Float4E2M1FNType>(
          ::llvm::cast<::mlir::ShapedType>(getA().front().getType())
              .getElementType());
    }
  }];
}

//===----------------------------------------------------------------------===//
// nvfp4.fused
//===----------------------------------------------------------------------===//

def NVFP4_FusedOp : NVFP4_Op<"fused", [NoTerminator, SingleBlock,
                                       RecursiveMemoryEffects]> {
  let summary = "a matmul with its activation quantize and its epilogue";
  let description = [{
    A producer-consumer group (bufferized form) that a lowering may run as
    one kernel sequence: an `nvfp4.matmul` or `nvfp4.grouped_matmul`
    (`contiguous` or `masked`), with the `nvfp4.quantize` whose values,
    scales and decode scale it reads as its A operand, with the
    `nvfp4.swiglu` that reads its output, with the `nvfp4.quantize` (a
    given scale) of its result or of the swiglu's, or with several of
    these (docs/spec.md F1-F6). The intermediate
    buffers are allocated (and freed) inside the region, so no op outside
    sees them; a lowering that fuses never writes them. The semantics are
    those of the ops inside, in order (docs/spec.md 2.2, 2.7, 2.10): a fused
    lowering must produce exactly the quantized activations the quantize
    defines, and round the matmul's outputs to the intermediate's element
    type before the activation, bit for bit as the unfused ops.
    `nvfp4-fuse-quantize-matmul` and `nvfp4-fuse-matmul-epilogue` form it;
    the lowerings that do not fuse inline the body.

    Example:

    ```mlir
    nvfp4.fused {
      %q = memref.alloc() : memref<16x4096xf4E2M1FN>
      %s = memref.alloc() : memref<1x64x32x4x4xf8E4M3FN>
      %d = memref.alloc() : memref<f32>
      %y = memref.alloc() : memref<16x1536xf32>
      nvfp4.quantize nvfp4 %x outs(%q, %s, %d : ...) : memref<16x4096xbf16>
      nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>)
          b_decode_scale(%dw : memref<f32>) outs(%y : memref<16x1536xf32>)
          : ...
      nvfp4.swiglu %y outs(%h : memref<16x768xbf16>) : memref<16x1536xf32>
      memref.dealloc %q : memref<16x4096xf4E2M1FN>
      memref.dealloc %s : memref<1x64x32x4x4xf8E4M3FN>
      memref.dealloc %d : memref<f32>
      memref.dealloc %y : memref<16x1536xf32>
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The producer (null if none), the matmul (an nvfp4.matmul or a
    /// contiguous or masked nvfp4.grouped_matmul), the epilogue (null if
    /// none) and the quantize of the result (null if none) of a verified
    /// op.
    QuantizeOp getQuantize();
    ::mlir::Operation *getMatmul();
    SwigluOp getEpilogue();
    QuantizeOp getOutputQuantize();
    /// Whether `quantize` is of the kind that F6 lets quantize a fused
    /// matmul's result: NVFP4 1x16 blocks of a 2-D tensor, a given scale,
    /// round to nearest even, no Hadamard transform.
    static bool isOutputQuantize(QuantizeOp quantize);
    /// Moves the body's ops before this op and erases it (the unfused
    /// program).
    void inlineBody(::mlir::RewriterBase &rewriter);
    /// Moves the quantize and its outputs' allocations before this op and
    /// their deallocations after it: the matmul then reads buffers of the
    /// enclosing block (for a lowering that fuses the epilogue only).
    void hoistQuantize(::mlir::RewriterBase &rewriter);
    /// Moves the output quantize after this op, the allocation of its
    /// input before it and that input's deallocations after the quantize
    /// (for a lowering that fuses the rest only).
    void hoistOutputQuantize(::mlir::RewriterBase &rewriter);
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4OPS_TD
