// RUN: nvfp4-opt %s -split-input-file -verify-diagnostics

// One case per constraint of docs/spec.md; each function is named after the
// constraint id it breaks.

#sw = #nvfp4.swizzled_128x4

func.func @c1_dynamic_shape(%x: tensor<?x32xbf16>) {
  // expected-error @+1 {{expected static shapes, got 'tensor<?x32xbf16>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<?x32xbf16> -> tensor<?x32xf4E2M1FN>, tensor<?x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @c2_mixed_tensor_memref(%x: memref<16x32xbf16>) {
  // expected-error @+1 {{expected tensor operands on an op with results, got 'memref<16x32xbf16>'}}
  %q, %s, %d = "nvfp4.quantize"(%x) <{format = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0>}> : (memref<16x32xbf16>) -> (tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>)
  return
}

// -----

func.func @c2_missing_outs(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>) {
  // expected-error @+1 {{expected 3 outs on the bufferized form, got 1}}
  nvfp4.quantize nvfp4 %x outs(%q : memref<16x32xf4E2M1FN>) : memref<16x32xbf16>
  return
}

// -----

func.func @c2_strided_memref(%x: memref<16x32xbf16, strided<[64, 1]>>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{expected memrefs with the identity layout, got 'memref<16x32xbf16, strided<[64, 1]>>'}}
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16, strided<[64, 1]>>
  return
}

// -----

func.func @q1_rank(%x: tensor<4x2x16x32xbf16>) {
  // expected-error @+1 {{expected input of rank 2 ([R, K]) or 3 ([B, R, K]), got rank 4}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<4x2x16x32xbf16> -> tensor<4x2x16x32xf4E2M1FN>, tensor<4x2x16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q2_block_nvfp4(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected block [1, 16] or [16, 16] for nvfp4, got [1, 32]}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x {block = array<i64: 1, 32>} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x1xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q2_block_mxfp4(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected block [1, 32] for mxfp4, got [16, 16]}}
  %q, %s = nvfp4.quantize mxfp4 %x {block = array<i64: 16, 16>} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E8M0FNU>
  return
}

// -----

func.func @q3_k_not_multiple_of_block(%x: tensor<16x40xbf16>) {
  // expected-error @+1 {{expected the last dimension (40) to be a multiple of the block width 16}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<16x40xbf16> -> tensor<16x40xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q3_mxfp4_k(%x: tensor<16x48xbf16>) {
  // expected-error @+1 {{expected the last dimension (48) to be a multiple of the block width 32}}
  %q, %s = nvfp4.quantize mxfp4 %x : tensor<16x48xbf16> -> tensor<16x48xf4E2M1FN>, tensor<16x1xf8E8M0FNU>
  return
}

// -----

func.func @q4_scale_rule_nvfp4(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected scale_rule max6 or four_over_six for nvfp4, got rceil}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x {scale_rule = #nvfp4.scale_rule<rceil>} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q4_scale_rule_mxfp4(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected scale_rule rceil or floor for mxfp4, got four_over_six}}
  %q, %s = nvfp4.quantize mxfp4 %x {scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x1xf8E8M0FNU>
  return
}

// -----

func.func @q5_error_metric_without_four_over_six(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected error_metric only with scale_rule four_over_six}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x {error_metric = #nvfp4.error_metric<mae>} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q6_stochastic_without_seed(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected a seed operand with stochastic rounding}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x {rounding = #nvfp4.rounding<stochastic>} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q6_seed_without_stochastic(%x: tensor<16x32xbf16>, %seed: i64) {
  // expected-error @+1 {{expected no seed operand with nearest_even rounding}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x seed %seed : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q7_amax_mxfp4(%x: tensor<16x32xbf16>, %amax: tensor<f32>) {
  // expected-error @+1 {{expected no amax operand for mxfp4 (it has no per-tensor scale)}}
  %q, %s = nvfp4.quantize mxfp4 %x amax %amax : tensor<f32> : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x1xf8E8M0FNU>
  return
}

// -----

func.func @q7_amax_shape(%x: tensor<2x16x32xbf16>, %amax: tensor<f32>) {
  // expected-error @+1 {{expected amax of type 'tensor<2xf32>', got 'tensor<f32>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x amax %amax : tensor<f32> : tensor<2x16x32xbf16> -> tensor<2x16x32xf4E2M1FN>, tensor<2x16x2xf8E4M3FN>, tensor<2xf32>
  return
}

// -----

func.func @q8_mxfp4_with_decode_scale(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected 2 results for mxfp4 (values, scales), got 3}}
  %q, %s, %d = nvfp4.quantize mxfp4 %x : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x1xf8E8M0FNU>, tensor<f32>
  return
}

// -----

func.func @q8_nvfp4_without_decode_scale(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected 3 results for nvfp4 (values, scales, decode_scale), got 2}}
  %q, %s = nvfp4.quantize nvfp4 %x : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>
  return
}

// -----

func.func @q9_values_type(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected values of type 'tensor<16x32xf4E2M1FN>', got 'tensor<16x32xf8E4M3FN>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<16x32xbf16> -> tensor<16x32xf8E4M3FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q10_scale_element_type(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected scales of type 'tensor<16x2xf8E4M3FN>', got 'tensor<16x2xf8E8M0FNU>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E8M0FNU>, tensor<f32>
  return
}

// -----

func.func @q10_swizzled_shape(%x: tensor<200x448xbf16>) {
  // expected-error @+1 {{expected scales of type 'tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>', got 'tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>, tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return
}

// -----

func.func @q10_tiled_shape_without_encoding(%x: tensor<200x448xbf16>) {
  // expected-error @+1 {{expected scales of type 'tensor<200x28xf8E4M3FN>', got 'tensor<2x7x32x4x4xf8E4M3FN>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q11_decode_scale_shape(%x: tensor<2x16x32xbf16>) {
  // expected-error @+1 {{expected decode_scale of shape [2] (per tensor) or [2, 16] (per row) in f32, got 'tensor<f32>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<2x16x32xbf16> -> tensor<2x16x32xf4E2M1FN>, tensor<2x16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q11_decode_scale_rows(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected decode_scale of shape [] (per tensor) or [16] (per row) in f32, got 'tensor<8xf32>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<8xf32>
  return
}

// -----

func.func @q7_amax_row_scaled(%x: tensor<16x32xbf16>, %amax: tensor<f32>) {
  // expected-error @+1 {{expected amax of type 'tensor<16xf32>', got 'tensor<f32>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x amax %amax : tensor<f32> : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<16xf32>
  return
}

// -----

func.func @q14_row_scaled_block(%x: tensor<2x16x32xbf16>) {
  // expected-error @+1 {{expected block [1, 16] with per-row decode scales, got [16, 16]}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x {block = array<i64: 16, 16>} : tensor<2x16x32xbf16> -> tensor<2x16x32xf4E2M1FN>, tensor<2x16x2xf8E4M3FN>, tensor<2x16xf32>
  return
}

// -----

func.func @q15_amax_and_encode_scale(%x: tensor<16x32xbf16>, %amax: tensor<f32>, %e: tensor<f32>) {
  // expected-error @+1 {{expected at most one of the amax, encode_scale and decode_scale operands}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x amax %amax : tensor<f32> encode_scale %e : tensor<f32> : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q15_encode_and_decode_scale(%x: tensor<16x32xbf16>, %e: tensor<f32>, %sd: tensor<f32>) {
  // expected-error @+1 {{expected at most one of the amax, encode_scale and decode_scale operands}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x encode_scale %e : tensor<f32> decode_scale %sd : tensor<f32> : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q15_given_scale_mxfp4(%x: tensor<16x32xbf16>, %sd: tensor<f32>) {
  // expected-error @+1 {{expected no decode_scale operand for mxfp4 (it has no per-tensor scale)}}
  %q, %s = nvfp4.quantize mxfp4 %x decode_scale %sd : tensor<f32> : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x1xf8E8M0FNU>
  return
}

// -----

func.func @q15_given_scale_shape(%x: tensor<2x16x32xbf16>, %e: tensor<f32>) {
  // expected-error @+1 {{expected encode_scale operand of type 'tensor<2xf32>', got 'tensor<f32>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x encode_scale %e : tensor<f32> : tensor<2x16x32xbf16> -> tensor<2x16x32xf4E2M1FN>, tensor<2x16x2xf8E4M3FN>, tensor<2xf32>
  return
}

// -----

func.func @q15_given_scale_row_scaled(%x: tensor<16x32xbf16>, %e: tensor<16xf32>) {
  // expected-error @+1 {{expected a per-tensor decode_scale result with a given encode_scale operand, got 'tensor<16xf32>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x encode_scale %e : tensor<16xf32> : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<16xf32>
  return
}

// -----

func.func @q15_given_scale_four_over_six(%x: tensor<16x32xbf16>, %sd: tensor<f32>) {
  // expected-error @+1 {{expected scale_rule max6 with a given decode_scale operand, got four_over_six}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x decode_scale %sd : tensor<f32> {scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q12_e4m3_max_value(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected e4m3_max 448 or 256, got 240}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x {scale_rule = #nvfp4.scale_rule<four_over_six>, e4m3_max = 240} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q13_e4m3_max_without_four_over_six(%x: tensor<16x32xbf16>) {
  // expected-error @+1 {{expected e4m3_max only with scale_rule four_over_six}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x {e4m3_max = 448} : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @q_input_element_type(%x: tensor<16x32xi8>) {
  // expected-error @+1 {{operand #0 must be Tensor or MemRef of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<16x32xi8>'}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<16x32xi8> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @d1_rank(%q: tensor<32xf4E2M1FN>, %s: tensor<2xf8E4M3FN>) {
  // expected-error @+1 {{expected values of rank 2 or 3, got rank 1}}
  %x = nvfp4.dequantize %q, %s : tensor<32xf4E2M1FN>, tensor<2xf8E4M3FN> -> tensor<32xf32>
  return
}

// -----

func.func @d2_k_for_mxfp4(%q: tensor<8x48xf4E2M1FN>, %s: tensor<8x1xf8E8M0FNU>) {
  // expected-error @+1 {{expected the last dimension (48) to be a multiple of the block width 32 of 'f8E8M0FNU' scales}}
  %x = nvfp4.dequantize %q, %s : tensor<8x48xf4E2M1FN>, tensor<8x1xf8E8M0FNU> -> tensor<8x48xf32>
  return
}

// -----

func.func @d3_scales_shape(%q: tensor<8x64xf4E2M1FN>, %s: tensor<8x2xf8E4M3FN>) {
  // expected-error @+1 {{expected scales of type 'tensor<8x4xf8E4M3FN>', got 'tensor<8x2xf8E4M3FN>'}}
  %x = nvfp4.dequantize %q, %s : tensor<8x64xf4E2M1FN>, tensor<8x2xf8E4M3FN> -> tensor<8x64xf32>
  return
}

// -----

func.func @d4_decode_scale_mxfp4(%q: tensor<8x64xf4E2M1FN>, %s: tensor<8x2xf8E8M0FNU>, %d: tensor<f32>) {
  // expected-error @+1 {{expected no decode_scale with 'f8E8M0FNU' (mxfp4) scales}}
  %x = nvfp4.dequantize %q, %s decode_scale %d : tensor<f32> : tensor<8x64xf4E2M1FN>, tensor<8x2xf8E8M0FNU> -> tensor<8x64xf32>
  return
}

// -----

func.func @d4_decode_scale_shape(%q: tensor<3x8x64xf4E2M1FN>, %s: tensor<3x8x4xf8E4M3FN>, %d: tensor<f32>) {
  // expected-error @+1 {{expected decode_scale of shape [3] (per tensor) or [3, 8] (per row) in f32, got 'tensor<f32>'}}
  %x = nvfp4.dequantize %q, %s decode_scale %d : tensor<f32> : tensor<3x8x64xf4E2M1FN>, tensor<3x8x4xf8E4M3FN> -> tensor<3x8x64xf32>
  return
}

// -----

func.func @d5_result_shape(%q: tensor<8x64xf4E2M1FN>, %s: tensor<8x4xf8E4M3FN>) {
  // expected-error @+1 {{expected result of type 'tensor<8x64xbf16>', got 'tensor<8x32xbf16>'}}
  %x = nvfp4.dequantize %q, %s : tensor<8x64xf4E2M1FN>, tensor<8x4xf8E4M3FN> -> tensor<8x32xbf16>
  return
}

// -----

func.func @s1_rank(%s: tensor<28xf8E4M3FN>) {
  // expected-error @+1 {{expected row-major scales of rank 2 or 3, got rank 1}}
  %sw = nvfp4.swizzle_scales %s : tensor<28xf8E4M3FN> -> tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return
}

// -----

func.func @s1_already_swizzled(%s: tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected row-major scales of rank 2 or 3, got rank 5}}
  %sw = nvfp4.swizzle_scales %s : tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return
}

// -----

func.func @s2_result_shape(%s: tensor<200x28xf8E4M3FN>) {
  // expected-error @+1 {{expected result of type 'tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>', got 'tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>'}}
  %sw = nvfp4.swizzle_scales %s : tensor<200x28xf8E4M3FN> -> tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return
}

// -----

func.func @s2_result_encoding(%s: tensor<200x28xf8E4M3FN>) {
  // expected-error @+1 {{expected result in the swizzled 128x4 layout (#nvfp4.swizzled_128x4): row-major scales go through nvfp4.swizzle_scales, got 'tensor<2x7x32x4x4xf8E4M3FN>'}}
  %sw = nvfp4.swizzle_scales %s : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN>
  return
}

// -----

func.func @u1_input_tiles(%sw: tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected input of type 'tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>', got 'tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>'}}
  %s = nvfp4.unswizzle_scales %sw : tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  return
}

// -----

func.func @u2_result_encoding(%sw: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected a row-major result (no encoding), got 'tensor<100x4xf8E4M3FN, #nvfp4.swizzled_128x4>'}}
  %s = nvfp4.unswizzle_scales %sw : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<100x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return
}

// -----

func.func @m1_rank(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected A and B of rank 2 ([M, K] and [N, K]), got 'tensor<2x128x64xf4E2M1FN>' and 'tensor<64x64xf4E2M1FN>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<2x128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m2_k_mismatch(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x128xf4E2M1FN>, %sb: tensor<1x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected A and B to share K, got 64 and 128}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x128xf4E2M1FN>, tensor<1x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m3_mixed_formats(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected A and B scales of one format, got 'f8E4M3FN' and 'f8E8M0FNU'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m3_k_not_multiple_of_block(%a: tensor<128x48xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, %b: tensor<64x48xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected K (48) to be a multiple of the block width 32}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x48xf4E2M1FN>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, tensor<64x48xf4E2M1FN>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m4_row_major_scales(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<128x4xf8E4M3FN>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected a_scales in the swizzled 128x4 layout (#nvfp4.swizzled_128x4): row-major scales go through nvfp4.swizzle_scales, got 'tensor<128x4xf8E4M3FN>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m4_scale_tiles(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<200x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected b_scales of type 'tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>', got 'tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<200x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x200xbf16>
  return
}

// -----

func.func @m5_decode_scale_mxfp4(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, %d: tensor<f32>) {
  // expected-error @+1 {{expected no decode scales with 'f8E8M0FNU' (mxfp4) scales}}
  %c = nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%d : tensor<f32>) : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m6_decode_scale_rows(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %d: tensor<128xf32>) {
  // expected-error @+1 {{expected b_decode_scale of shape [] or [64], got 'tensor<128xf32>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%d : tensor<128xf32>) b_decode_scale(%d : tensor<128xf32>) : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m6_alpha_shape(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %alpha: tensor<2xf32>) {
  // expected-error @+1 {{expected alpha of shape [], got 'tensor<2xf32>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb alpha(%alpha : tensor<2xf32>) : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m7_result_shape(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected result of type 'tensor<128x64xbf16>', got 'tensor<64x128xbf16>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<64x128xbf16>
  return
}

// -----

func.func @m7_result_element_type(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{result #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<128x64xf8E4M3FN>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xf8E4M3FN>
  return
}

// -----

func.func @m8_acc_type(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %acc: tensor<128x64xf32>) {
  // expected-error @+1 {{expected acc of type 'tensor<128x64xbf16>', got 'tensor<128x64xf32>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb acc(%acc : tensor<128x64xf32>) : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m10_bias_shape(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %bias: tensor<128xbf16>) {
  // expected-error @+1 {{expected bias of shape [64], got 'tensor<128xbf16>'}}
  %c = nvfp4.matmul %a, %sa, %b, %sb bias(%bias : tensor<128xbf16>) : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @g10_bias_independent(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %bias: tensor<1x64xf32>) {
  // expected-error @+1 {{expected bias only in contiguous or masked mode (one [G, N] tensor)}}
  %c = nvfp4.grouped_matmul independent a(%a : tensor<128x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<64x64xf4E2M1FN>) b_scales(%sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) bias(%bias : tensor<1x64xf32>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g10_bias_shape(%a: tensor<40x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<3xi32>, %bias: tensor<64xf32>) {
  // expected-error @+1 {{expected bias of shape [2, 64], got 'tensor<64xf32>'}}
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<40x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) bias(%bias : tensor<64xf32>) -> tensor<40x64xbf16>
  return
}

// -----

func.func @m8_beta_without_acc(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected an acc operand when beta is set}}
  %c = nvfp4.matmul %a, %sa, %b, %sb {beta = 0.5 : f32} : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @g1_list_lengths(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected as many a_scales (none for bf16/f16 activations), b and b_scales as a (2), got 1, 1 and 1}}
  %c:2 = nvfp4.grouped_matmul independent a(%a, %a : tensor<128x64xf4E2M1FN>, tensor<128x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<64x64xf4E2M1FN>) b_scales(%sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16>, tensor<128x64xbf16>
  return
}

// -----

func.func @g1_contiguous_without_offsets(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected group_offsets exactly in contiguous mode}}
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<128x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g1_masked_without_masked_m(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<3xi32>) {
  // expected-error @+1 {{expected group_offsets exactly in contiguous mode}}
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x128x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) -> tensor<2x128x64xbf16>
  return
}

// -----

func.func @g1_masked_m_missing(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected masked_m exactly in masked mode}}
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x128x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<2x128x64xbf16>
  return
}

// -----

func.func @g1_one_operand_per_list(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<3xi32>) {
  // expected-error @+1 {{expected one a, a_scales, b and b_scales operand in contiguous mode, got 2}}
  %c = nvfp4.grouped_matmul contiguous a(%a, %a : tensor<128x64xf4E2M1FN>, tensor<128x64xf4E2M1FN>) a_scales(%sa, %sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b, %b : tensor<2x64x64xf4E2M1FN>, tensor<2x64x64xf4E2M1FN>) b_scales(%sb, %sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g2_independent_k(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x128xf4E2M1FN>, %sb: tensor<1x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected A and B of group 0 to share K, got 64 and 128}}
  %c = nvfp4.grouped_matmul independent a(%a : tensor<128x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<64x128xf4E2M1FN>) b_scales(%sb : tensor<1x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g2_contiguous_b_rank(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<2xi32>) {
  // expected-error @+1 {{expected A of rank 2 and B of rank 3 ([G, N, K]) in contiguous mode, got 'tensor<128x64xf4E2M1FN>' and 'tensor<64x64xf4E2M1FN>'}}
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<128x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<64x64xf4E2M1FN>) b_scales(%sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<2xi32>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g2_offsets_length(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<2xi32>) {
  // expected-error @+1 {{expected group_offsets of type 'tensor<3xi32>', got 'tensor<2xi32>'}}
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<128x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<2xi32>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g2_masked_groups(%a: tensor<3x128x64xf4E2M1FN>, %sa: tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %m: tensor<2xi32>) {
  // expected-error @+1 {{expected A and B to have the same number of groups, got 3 and 2}}
  %c = nvfp4.grouped_matmul masked a(%a : tensor<3x128x64xf4E2M1FN>) a_scales(%sa : tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%m : tensor<2xi32>) -> tensor<3x128x64xbf16>
  return
}

// -----

func.func @g2_masked_result(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %m: tensor<2xi32>) {
  // expected-error @+1 {{expected result of type 'tensor<2x128x64xbf16>', got 'tensor<256x64xbf16>'}}
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x128x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%m : tensor<2xi32>) -> tensor<256x64xbf16>
  return
}

// -----

func.func @g2_contiguous_a_scales(%a: tensor<200x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<3xi32>) {
  // expected-error @+1 {{expected a_scales of type 'tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>', got 'tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>'}}
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<200x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) -> tensor<200x64xbf16>
  return
}

// -----

func.func @g3_one_format(%a0: tensor<128x64xf4E2M1FN>, %sa0: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %sa1: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected one scale format for all groups, got 'f8E4M3FN' and 'f8E8M0FNU'}}
  %c:2 = nvfp4.grouped_matmul independent a(%a0, %a0 : tensor<128x64xf4E2M1FN>, tensor<128x64xf4E2M1FN>) a_scales(%sa0, %sa1 : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) b(%b, %b : tensor<64x64xf4E2M1FN>, tensor<64x64xf4E2M1FN>) b_scales(%sb, %sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16>, tensor<128x64xbf16>
  return
}

// -----

func.func @g3_k_block(%a: tensor<128x48xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, %b: tensor<64x48xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected K (48) to be a multiple of the block width 32}}
  %c = nvfp4.grouped_matmul independent a(%a : tensor<128x48xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) b(%b : tensor<64x48xf4E2M1FN>) b_scales(%sb : tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g4_one_output_type(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected one result element type for all groups, got 'bf16' and 'f16'}}
  %c:2 = nvfp4.grouped_matmul independent a(%a, %a : tensor<128x64xf4E2M1FN>, tensor<128x64xf4E2M1FN>) a_scales(%sa, %sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b, %b : tensor<64x64xf4E2M1FN>, tensor<64x64xf4E2M1FN>) b_scales(%sb, %sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16>, tensor<128x64xf16>
  return
}

// -----

func.func @g5_alpha_per_group(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %m: tensor<2xi32>, %alpha: tensor<f32>) {
  // expected-error @+1 {{expected alpha of shape [2], got 'tensor<f32>'}}
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x128x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%m : tensor<2xi32>) alpha(%alpha : tensor<f32>) -> tensor<2x128x64xbf16>
  return
}

// -----

func.func @g5_decode_scale_shape(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %m: tensor<2xi32>, %d: tensor<3xf32>) {
  // expected-error @+1 {{expected b_decode_scale of shape [] or [2], got 'tensor<3xf32>'}}
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x128x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%m : tensor<2xi32>) b_decode_scale(%d : tensor<3xf32>) -> tensor<2x128x64xbf16>
  return
}

// -----

func.func @g5_decode_scale_mxfp4(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, %m: tensor<2xi32>, %d: tensor<2xf32>) {
  // expected-error @+1 {{expected no decode scales with 'f8E8M0FNU' (mxfp4) scales}}
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x128x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) masked_m(%m : tensor<2xi32>) a_decode_scale(%d : tensor<2xf32>) -> tensor<2x128x64xbf16>
  return
}

// -----

func.func @g6_acc_count(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %c0: tensor<128x64xbf16>) {
  // expected-error @+1 {{expected 2 acc operands (one per result), got 1}}
  %c:2 = nvfp4.grouped_matmul independent a(%a, %a : tensor<128x64xf4E2M1FN>, tensor<128x64xf4E2M1FN>) a_scales(%sa, %sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b, %b : tensor<64x64xf4E2M1FN>, tensor<64x64xf4E2M1FN>) b_scales(%sb, %sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) acc(%c0 : tensor<128x64xbf16>) -> tensor<128x64xbf16>, tensor<128x64xbf16>
  return
}

// -----

func.func @g6_acc_type(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %c0: tensor<128x64xf32>) {
  // expected-error @+1 {{expected acc #0 of type 'tensor<128x64xbf16>', got 'tensor<128x64xf32>'}}
  %c = nvfp4.grouped_matmul independent a(%a : tensor<128x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<64x64xf4E2M1FN>) b_scales(%sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) acc(%c0 : tensor<128x64xf32>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g7_beta_without_acc(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected an acc operand when beta is set}}
  %c = nvfp4.grouped_matmul independent a(%a : tensor<128x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<64x64xf4E2M1FN>) b_scales(%sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {beta = 0.0 : f32} -> tensor<128x64xbf16>
  return
}

// -----

func.func @g8_contiguous_rows_without_groups(%a: tensor<8x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<0x16x64xf4E2M1FN>, %sb: tensor<0x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<1xi32>) {
  // expected-error @+1 {{expected no rows in contiguous mode without groups (group_offsets ends at S), got S = 8}}
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<8x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<0x16x64xf4E2M1FN>) b_scales(%sb : tensor<0x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<1xi32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @g_no_groups() {
  // expected-error @+1 {{expected at least one group}}
  "nvfp4.grouped_matmul"() <{grouping = 0 : i32, beta = 1.0 : f32, operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}> : () -> ()
  return
}

// -----

func.func @f1_other_op(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>, %z: memref<16x64xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F1] expected only an nvfp4.quantize, the matmul, an nvfp4.swiglu and the allocations and deallocations of their intermediates, got memref.copy}}
  nvfp4.fused {
    %q = memref.alloc() : memref<16x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    memref.copy %y, %z : memref<16x64xbf16> to memref<16x64xbf16>
  }
  return
}

// -----

func.func @f1_no_matmul(%x: memref<16x256xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F1] expected a matmul with an nvfp4.quantize before it, an nvfp4.swiglu or an nvfp4.quantize after it}}
  nvfp4.fused {
    %q = memref.alloc() : memref<16x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
  }
  return
}

// -----

func.func @f2_other_a(%x: memref<16x256xbf16>, %a: memref<16x256xf4E2M1FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F2] expected the matmul's a, a_scales and a_decode_scale to be the quantize's values, scales and decode scale}}
  nvfp4.fused {
    %q = memref.alloc() : memref<16x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
    nvfp4.matmul %a, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  }
  return
}

// -----

func.func @f2_weight_only_grouped(%x: memref<16x256xbf16>, %xb: memref<16x256xbf16>, %w: memref<2x64x256xf4E2M1FN>, %ws: memref<2x1x4x32x4x4xf8E4M3FN>, %off: memref<3xi32>, %y: memref<16x64xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F2] expected the matmul's a, a_scales and a_decode_scale to be the quantize's values, scales and decode scale}}
  nvfp4.fused {
    %q = memref.alloc() : memref<16x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
    nvfp4.grouped_matmul contiguous a(%xb : memref<16x256xbf16>) b(%w : memref<2x64x256xf4E2M1FN>) b_scales(%ws : memref<2x1x4x32x4x4xf8E4M3FN>) group_offsets(%off : memref<3xi32>) outs(%y : memref<16x64xbf16>)
  }
  return
}

// -----

func.func @f3_outside_buffer(%x: memref<16x256xbf16>, %q: memref<16x256xf4E2M1FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F3] expected the quantize's outputs to be allocated inside the region and used only by the matmul (and deallocated)}}
  nvfp4.fused {
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  }
  return
}

// -----

func.func @f4_tile_blocks(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F4] expected an nvfp4 quantize with 1x16 blocks and one decode scale per tensor (batch entry)}}
  nvfp4.fused {
    %q = memref.alloc() : memref<16x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) {block = array<i64: 16, 16>} : memref<16x256xbf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  }
  return
}

// -----

func.func @f1_matmul_alone(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F1] expected a matmul with an nvfp4.quantize before it, an nvfp4.swiglu or an nvfp4.quantize after it}}
  nvfp4.fused {
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  }
  return
}

// -----

func.func @f1_swiglu_first(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %h: memref<16x32xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F1] expected at most one nvfp4.swiglu, after the matmul it reads}}
  nvfp4.fused {
    %y = memref.alloc() : memref<16x64xf32>
    nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %y : memref<16x64xf32>
  }
  return
}

// -----

func.func @f3_swiglu_outside_intermediate(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xf32>, %h: memref<16x32xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F3] expected the matmul's output to be allocated inside the region, written by the matmul (not its acc) and read only by the swiglu (and deallocated)}}
  nvfp4.fused {
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
  }
  return
}

// -----

func.func @f3_swiglu_intermediate_is_acc(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %h: memref<16x32xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F3] expected the matmul's output to be allocated inside the region, written by the matmul (not its acc) and read only by the swiglu (and deallocated)}}
  nvfp4.fused {
    %y = memref.alloc() : memref<16x64xf32>
    nvfp4.matmul %a, %sa, %w, %ws acc(%y : memref<16x64xf32>) outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
    memref.dealloc %y : memref<16x64xf32>
  }
  return
}

// -----

func.func @f5_swiglu_other_input(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %x: memref<16x64xf32>, %h: memref<16x32xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F5] expected the swiglu to read the matmul's output}}
  nvfp4.fused {
    %y = memref.alloc() : memref<16x64xf32>
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    nvfp4.swiglu %x outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
    memref.dealloc %y : memref<16x64xf32>
  }
  return
}

// -----

func.func @f5_independent(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %h: memref<16x32xbf16>) {
  // expected-error @+1 {{'nvfp4.fused' op [F5] expected a dense, contiguous or masked matmul before the swiglu (one output)}}
  nvfp4.fused {
    %y = memref.alloc() : memref<16x64xf32>
    nvfp4.grouped_matmul independent a(%a : memref<16x256xf4E2M1FN>) a_scales(%sa : memref<1x4x32x4x4xf8E4M3FN>) b(%w : memref<64x256xf4E2M1FN>) b_scales(%ws : memref<1x4x32x4x4xf8E4M3FN>) outs(%y : memref<16x64xf32>)
    nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
    memref.dealloc %y : memref<16x64xf32>
  }
  return
}

// -----

func.func @m9_fp4_without_a_scales(%a: tensor<128x64xf4E2M1FN>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected a_scales with FP4 (f4E2M1FN) activations}}
  %c = nvfp4.matmul %a, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m9_bf16_with_a_scales(%a: tensor<128x64xbf16>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected no a_scales with bf16/f16 activations (weight-only quantization)}}
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xbf16>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m9_bf16_with_a_decode(%a: tensor<128x64xbf16>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %d: tensor<f32>) {
  // expected-error @+1 {{expected no a_decode_scale with bf16/f16 activations (weight-only quantization)}}
  %c = nvfp4.matmul %a, %b, %sb a_decode_scale(%d : tensor<f32>) : tensor<128x64xbf16>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m9_f32_activations(%a: tensor<128x64xf32>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{operand #0 must be}}
  %c = nvfp4.matmul %a, %b, %sb : tensor<128x64xf32>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m9_operand_count(%a: tensor<128x64xbf16>, %b: tensor<64x64xf4E2M1FN>) {
  // expected-error @+1 {{expected 4 operands (a, a_scales, b, b_scales) or 3 (a, b, b_scales), got 2}}
  %c = nvfp4.matmul %a, %b : tensor<128x64xbf16>, tensor<64x64xf4E2M1FN> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m9_type_count(%a: tensor<128x64xbf16>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected 4 operand types (a, a_scales, b, b_scales) or 3 (a, b, b_scales), got 2}}
  %c = nvfp4.matmul %a, %b, %sb : tensor<128x64xbf16>, tensor<64x64xf4E2M1FN> -> tensor<128x64xbf16>
  return
}

// -----

func.func @m9_mxfp4_block_from_b(%a: tensor<128x48xbf16>, %b: tensor<64x48xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected K (48) to be a multiple of the block width 32}}
  %c = nvfp4.matmul %a, %b, %sb : tensor<128x48xbf16>, tensor<64x48xf4E2M1FN>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// -----

func.func @g9_mixed_activations(%a: tensor<128x64xbf16>, %a2: tensor<128x64xf16>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  // expected-error @+1 {{expected one activation element type for all groups, got 'bf16' and 'f16'}}
  %c:2 = nvfp4.grouped_matmul independent a(%a, %a2 : tensor<128x64xbf16>, tensor<128x64xf16>) b(%b, %b : tensor<64x64xf4E2M1FN>, tensor<64x64xf4E2M1FN>) b_scales(%sb, %sb : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16>, tensor<128x64xbf16>
  return
}

// -----

func.func @g9_fp4_without_a_scales(%a: tensor<128x64xf4E2M1FN>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<3xi32>) {
  // expected-error @+1 {{expected a_scales with FP4 (f4E2M1FN) activations}}
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<128x64xf4E2M1FN>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g9_bf16_with_a_scales(%a: tensor<128x64xbf16>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<3xi32>) {
  // expected-error @+1 {{expected no a_scales with bf16/f16 activations (weight-only quantization)}}
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<128x64xbf16>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) -> tensor<128x64xbf16>
  return
}

// -----

func.func @g9_bf16_with_a_decode(%a: tensor<2x16x64xbf16>, %b: tensor<2x64x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %m: tensor<2xi32>, %d: tensor<2xf32>) {
  // expected-error @+1 {{expected no a_decode_scale with bf16/f16 activations (weight-only quantization)}}
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x16x64xbf16>) b(%b : tensor<2x64x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%m : tensor<2xi32>) a_decode_scale(%d : tensor<2xf32>) -> tensor<2x16x64xbf16>
  return
}

// -----

// [M7] the bufferized form's outs are held to the result types too.
func.func @matmul_outs_i8(%a: memref<64x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>,
                          %b: memref<96x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E4M3FN>,
                          %c: memref<64x96xi8>) {
  // expected-error @+1 {{expected a bf16, f16 or f32 result, got 'i8'}}
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<64x96xi8>) : memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<96x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  return
}

// -----

// [G2] [G4] likewise for grouped outs.
func.func @grouped_outs_f64(%q: memref<40x256xf4E2M1FN>, %s: memref<1x4x32x4x4xf8E4M3FN>,
                            %w: memref<4x64x256xf4E2M1FN>, %ws: memref<4x1x4x32x4x4xf8E4M3FN>,
                            %off: memref<5xi32>, %y: memref<40x64xf64>) {
  // expected-error @+1 {{expected a bf16, f16 or f32 result, got 'f64'}}
  nvfp4.grouped_matmul contiguous a(%q : memref<40x256xf4E2M1FN>) a_scales(%s : memref<1x4x32x4x4xf8E4M3FN>) b(%w : memref<4x64x256xf4E2M1FN>) b_scales(%ws : memref<4x1x4x32x4x4xf8E4M3FN>) group_offsets(%off : memref<5xi32>) outs(%y : memref<40x64xf64>)
  return
}

// -----

func.func @w1_rank0(%x: tensor<bf16>) {
  // expected-error @+1 {{expected an input of rank >= 1}}
  %y = nvfp4.swiglu %x : tensor<bf16> -> tensor<bf16>
  return
}

// -----

func.func @w1_odd_width(%x: tensor<4x7xbf16>) {
  // expected-error @+1 {{expected an even last dimension (interleaved gate and up columns), got 7}}
  %y = nvfp4.swiglu %x : tensor<4x7xbf16> -> tensor<4x3xbf16>
  return
}

// -----

func.func @w2_result_shape(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{expected result of type 'tensor<4x4xbf16>', got 'tensor<4x8xbf16>'}}
  %y = nvfp4.swiglu %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
  return
}

// -----

func.func @w3_limit(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{expected a finite, positive limit}}
  %y = nvfp4.swiglu %x {limit = 0.0 : f32} : tensor<4x8xbf16> -> tensor<4x4xbf16>
  return
}

// -----

func.func @w3_scale(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{expected finite sigmoid_scale and up_offset}}
  %y = nvfp4.swiglu %x {sigmoid_scale = 0x7F800000 : f32} : tensor<4x8xbf16> -> tensor<4x4xbf16>
  return
}

// -----

func.func @f6_computed_amax(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %q: memref<16x64xf4E2M1FN>, %s: memref<1x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{'nvfp4.fused' op [F6] expected an output quantize of a 2-D tensor: nvfp4, 1x16 blocks, one given encode_scale or decode_scale, round to nearest even, no hadamard}}
  nvfp4.fused {
    %y = memref.alloc() : memref<16x64xbf16>
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    nvfp4.quantize nvfp4 %y outs(%q, %s, %d : memref<16x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x64xbf16>
    memref.dealloc %y : memref<16x64xbf16>
  }
  return
}

// -----

func.func @f6_reads_other(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %x: memref<16x64xbf16>, %e: memref<f32>, %q: memref<16x64xf4E2M1FN>, %s: memref<1x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{'nvfp4.fused' op [F6] expected the output quantize to read the result of the matmul}}
  nvfp4.fused {
    %y = memref.alloc() : memref<16x64xbf16>
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    nvfp4.quantize nvfp4 %x encode_scale %e : memref<f32> outs(%q, %s, %d : memref<16x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x64xbf16>
    memref.dealloc %y : memref<16x64xbf16>
  }
  return
}

// -----

func.func @f6_masked(%a: memref<2x16x256xf4E2M1FN>, %sa: memref<2x1x4x32x4x4xf8E4M3FN>, %w: memref<2x64x256xf4E2M1FN>, %ws: memref<2x1x4x32x4x4xf8E4M3FN>, %m: memref<2xi32>, %e: memref<f32>, %q: memref<2x16x64xf4E2M1FN>, %s: memref<2x1x1x32x4x4xf8E4M3FN>, %d: memref<2xf32>) {
  // expected-error @+1 {{'nvfp4.fused' op [F6] expected a dense or contiguous matmul before the output quantize}}
  nvfp4.fused {
    %y = memref.alloc() : memref<2x16x64xbf16>
    nvfp4.grouped_matmul masked a(%a : memref<2x16x256xf4E2M1FN>) a_scales(%sa : memref<2x1x4x32x4x4xf8E4M3FN>) b(%w : memref<2x64x256xf4E2M1FN>) b_scales(%ws : memref<2x1x4x32x4x4xf8E4M3FN>) masked_m(%m : memref<2xi32>) outs(%y : memref<2x16x64xbf16>)
    nvfp4.quantize nvfp4 %y encode_scale %e : memref<f32> outs(%q, %s, %d : memref<2x16x64xf4E2M1FN>, memref<2x1x1x32x4x4xf8E4M3FN>, memref<2xf32>) : memref<2x16x64xbf16>
    memref.dealloc %y : memref<2x16x64xbf16>
  }
  return
}

// -----

func.func @f3_output_quantize_outside(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>, %e: memref<f32>, %q: memref<16x64xf4E2M1FN>, %s: memref<1x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  // expected-error @+1 {{'nvfp4.fused' op [F3] expected the quantize's input to be allocated inside the region, written by its producer (not its acc) and read only by the quantize (and deallocated)}}
  nvfp4.fused {
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    nvfp4.quantize nvfp4 %y encode_scale %e : memref<f32> outs(%q, %s, %d : memref<16x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x64xbf16>
  }
  return
}

// -----

func.func @r1_ids_rank(%ids: tensor<16xi32>) {
  // expected-error @+1 {{'nvfp4.moe_route' op expected ids of rank 2 with no zero dimension, got 'tensor<16xi32>'}}
  %p, %r, %o = nvfp4.moe_route %ids : tensor<16xi32> -> tensor<16xi32>, tensor<16xi32>, tensor<9xi32>
  return
}

// -----

func.func @r2_pair_rows_shape(%ids: tensor<16x2xi32>) {
  // expected-error @+1 {{'nvfp4.moe_route' op expected pair_rows of type 'tensor<16x2xi32>', got 'tensor<32xi32>'}}
  %p, %r, %o = nvfp4.moe_route %ids : tensor<16x2xi32> -> tensor<32xi32>, tensor<32xi32>, tensor<9xi32>
  return
}

// -----

func.func @r2_no_expert(%ids: tensor<16x2xi32>) {
  // expected-error @+1 {{'nvfp4.moe_route' op expected group_offsets of shape [E + 1] with E >= 1 experts, i32, got 'tensor<1xi32>'}}
  %p, %r, %o = nvfp4.moe_route %ids : tensor<16x2xi32> -> tensor<32xi32>, tensor<16x2xi32>, tensor<1xi32>
  return
}

// -----

func.func @r2_three_results(%ids: tensor<16x2xi32>) {
  // expected-error @+1 {{'nvfp4.moe_route' op expected 3 results, got 2}}
  %p, %r = nvfp4.moe_route %ids : tensor<16x2xi32> -> tensor<32xi32>, tensor<16x2xi32>
  return
}

// -----

func.func @r3_pairs_not_multiple(%x: tensor<16x64xbf16>, %p: tensor<40xi32>) {
  // expected-error @+1 {{'nvfp4.moe_dispatch' op expected sorted_pairs of shape [T * K], a positive multiple of the input's 16 rows, got 'tensor<40xi32>'}}
  %y = nvfp4.moe_dispatch %x, %p : tensor<16x64xbf16>, tensor<40xi32> -> tensor<40x64xbf16>
  return
}

// -----

func.func @r4_dispatch_type(%x: tensor<16x64xbf16>, %p: tensor<32xi32>) {
  // expected-error @+1 {{'nvfp4.moe_dispatch' op expected result of type 'tensor<32x64xbf16>', got 'tensor<32x64xf32>'}}
  %y = nvfp4.moe_dispatch %x, %p : tensor<16x64xbf16>, tensor<32xi32> -> tensor<32x64xf32>
  return
}

// -----

func.func @r5_weights_shape(%y: tensor<32x64xbf16>, %r: tensor<16x2xi32>, %w: tensor<16x3xf32>) {
  // expected-error @+1 {{'nvfp4.moe_combine' op expected weights of pair_rows' shape [16, 2], got 'tensor<16x3xf32>'}}
  %o = nvfp4.moe_combine %y, %r, %w : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<16x3xf32> -> tensor<16x64xbf16>
  return
}

// -----

func.func @r5_input_rank(%y: tensor<32xbf16>, %r: tensor<16x2xi32>, %w: tensor<16x2xf32>) {
  // expected-error @+1 {{'nvfp4.moe_combine' op expected input of rank 2 with no zero dimension, got 'tensor<32xbf16>'}}
  %o = nvfp4.moe_combine %y, %r, %w : tensor<32xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x64xbf16>
  return
}

// -----

func.func @r6_combine_shape(%y: tensor<32x64xbf16>, %r: tensor<16x2xi32>, %w: tensor<16x2xf32>) {
  // expected-error @+1 {{'nvfp4.moe_combine' op expected result of type 'tensor<16x64xbf16>', got 'tensor<32x64xbf16>'}}
  %o = nvfp4.moe_combine %y, %r, %w : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<32x64xbf16>
  return
}

// -----

func.func @c2_combine_mixed_forms(%y: memref<32x64xbf16>, %r: memref<16x2xi32>, %w: memref<16x2xf32>) {
  // expected-error @+1 {{'nvfp4.moe_combine' op expected tensor operands on an op with results, got 'memref<32x64xbf16>'}}
  %o = nvfp4.moe_combine %y, %r, %w : memref<32x64xbf16>, memref<16x2xi32>, memref<16x2xf32> -> tensor<16x64xbf16>
  return
}

// -----

func.func @r6_product_type(%y: tensor<32x64xbf16>, %r: tensor<16x2xi32>, %w: tensor<16x2xf32>) {
  // expected-error @+1 {{'nvfp4.moe_combine' op attribute 'product_type' failed to satisfy constraint: type attribute of bfloat16 type or 16-bit float or 32-bit float}}
  %o = nvfp4.moe_combine %y, %r, %w {product_type = i32} : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x64xbf16>
  return
}

// -----

func.func @r1_too_many_pairs(%ids: tensor<65536x32768xi32>) {
  // expected-error @+1 {{'nvfp4.moe_route' op expected at most 2^31 - 1 pairs (their indices are i32), got 2147483648}}
  %p, %r, %o = nvfp4.moe_route %ids : tensor<65536x32768xi32> -> tensor<2147483648xi32>, tensor<65536x32768xi32>, tensor<9xi32>
  return
}

// -----

func.func @r5_too_many_rows(%y: tensor<2147483648x2xbf16>, %r: tensor<16x2xi32>, %w: tensor<16x2xf32>) {
  // expected-error @+1 {{'nvfp4.moe_combine' op expected at most 2^31 - 1 input rows (their indices are i32), got 2147483648}}
  %o = nvfp4.moe_combine %y, %r, %w : tensor<2147483648x2xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x2xbf16>
  return
}

// -----

func.func @r2_too_many_experts(%ids: tensor<16x2xi32>) {
  // expected-error @+1 {{'nvfp4.moe_route' op expected at most 2^31 - 1 group_offsets entries (E + 1) (their indices are i32), got 4294967297}}
  %p, %r, %o = nvfp4.moe_route %ids : tensor<16x2xi32> -> tensor<32xi32>, tensor<16x2xi32>, tensor<4294967297xi32>
  return
}
