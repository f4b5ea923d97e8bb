// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | nvfp4-opt | FileCheck %s

// Round-trip of every op, in the tensor form and the bufferized form.

// CHECK-LABEL: func @quantize_nvfp4_swizzled
// CHECK: %{{.*}}:3 = nvfp4.quantize nvfp4 %{{.*}} : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
func.func @quantize_nvfp4_swizzled(%x: tensor<200x448xbf16>) -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return %s : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
}

// CHECK-LABEL: func @quantize_nvfp4_variants
// CHECK: nvfp4.quantize nvfp4 %{{.*}} amax %{{.*}} : tensor<f32> {block = array<i64: 16, 16>, scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<64x48xf32>
// CHECK: nvfp4.quantize nvfp4 %{{.*}} seed %{{.*}} {error_metric = #nvfp4.error_metric<abs_max>, hadamard, rounding = #nvfp4.rounding<stochastic>, scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<4x16x32xf16> -> tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN>, tensor<4xf32>
// CHECK: nvfp4.quantize nvfp4 %{{.*}} {e4m3_max = 256 : i64, error_metric = #nvfp4.error_metric<mse>, scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<4x16x32xf16>
func.func @quantize_nvfp4_variants(%x: tensor<64x48xf32>, %amax: tensor<f32>, %y: tensor<4x16x32xf16>, %seed: i64) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x amax %amax : tensor<f32> {block = array<i64: 16, 16>, scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<64x48xf32> -> tensor<64x48xf4E2M1FN>, tensor<64x3xf8E4M3FN>, tensor<f32>
  %q2, %s2, %d2 = nvfp4.quantize nvfp4 %y seed %seed {rounding = #nvfp4.rounding<stochastic>, hadamard, scale_rule = #nvfp4.scale_rule<four_over_six>, error_metric = #nvfp4.error_metric<abs_max>} : tensor<4x16x32xf16> -> tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN>, tensor<4xf32>
  %q3, %s3, %d3 = nvfp4.quantize nvfp4 %y {scale_rule = #nvfp4.scale_rule<four_over_six>, error_metric = #nvfp4.error_metric<mse>, e4m3_max = 256} : tensor<4x16x32xf16> -> tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN>, tensor<4xf32>
  return
}

// Calibrated global scales (spec 2.2, Q15): encode_scale (S_enc) or
// decode_scale (S_dec), one per tensor or batch entry, with the variants
// that need no amax; and the bufferized form.
// CHECK-LABEL: func @quantize_given_scales
// CHECK: nvfp4.quantize nvfp4 %{{.*}} encode_scale %{{.*}} : tensor<f32> : tensor<16x4096xbf16> -> tensor<16x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
// CHECK: nvfp4.quantize nvfp4 %{{.*}} decode_scale %{{.*}} : tensor<f32> : tensor<16x4096xbf16> -> tensor<16x4096xf4E2M1FN>, tensor<16x256xf8E4M3FN>, tensor<f32>
// CHECK: nvfp4.quantize nvfp4 %{{.*}} decode_scale %{{.*}} : tensor<4xf32> seed %{{.*}} {block = array<i64: 16, 16>, hadamard, rounding = #nvfp4.rounding<stochastic>} : tensor<4x16x32xf16> -> tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN>, tensor<4xf32>
// CHECK: nvfp4.quantize nvfp4 %{{.*}} encode_scale %{{.*}} : memref<f32> outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>{{$}}
func.func @quantize_given_scales(%x: tensor<16x4096xbf16>, %e: tensor<f32>, %d: tensor<f32>, %y: tensor<4x16x32xf16>, %db: tensor<4xf32>, %seed: i64,
                                 %bx: memref<16x32xbf16>, %be: memref<f32>, %bq: memref<16x32xf4E2M1FN>, %bs: memref<16x2xf8E4M3FN>, %bd: memref<f32>) {
  %q, %s, %sd = nvfp4.quantize nvfp4 %x encode_scale %e : tensor<f32> : tensor<16x4096xbf16> -> tensor<16x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %q2, %s2, %sd2 = nvfp4.quantize nvfp4 %x decode_scale %d : tensor<f32> : tensor<16x4096xbf16> -> tensor<16x4096xf4E2M1FN>, tensor<16x256xf8E4M3FN>, tensor<f32>
  %q3, %s3, %sd3 = nvfp4.quantize nvfp4 %y decode_scale %db : tensor<4xf32> seed %seed {block = array<i64: 16, 16>, rounding = #nvfp4.rounding<stochastic>, hadamard} : tensor<4x16x32xf16> -> tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN>, tensor<4xf32>
  nvfp4.quantize nvfp4 %bx encode_scale %be : memref<f32> outs(%bq, %bs, %bd : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// Row-scaled NVFP4: the decode scale (and amax) per row, [R] or [B, R];
// dequantize and matmul take per-row decode scales.
// CHECK-LABEL: func @row_scaled
// CHECK: nvfp4.quantize nvfp4 %{{.*}} : tensor<4x16x32xf16> -> tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN>, tensor<4x16xf32>
// CHECK: nvfp4.quantize nvfp4 %{{.*}} amax %{{.*}} : tensor<128xf32> {scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<128x64xbf16> -> tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<128xf32>
// CHECK: nvfp4.dequantize %{{.*}}, %{{.*}} decode_scale %{{.*}} : tensor<4x16xf32> : tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN> -> tensor<4x16x32xbf16>
// CHECK: nvfp4.matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} a_decode_scale(%{{.*}} : tensor<128xf32>) b_decode_scale(%{{.*}} : tensor<f32>)
func.func @row_scaled(%x: tensor<4x16x32xf16>, %y: tensor<128x64xbf16>, %amax: tensor<128xf32>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %db: tensor<f32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<4x16x32xf16> -> tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN>, tensor<4x16xf32>
  %q2, %s2, %d2 = nvfp4.quantize nvfp4 %y amax %amax : tensor<128xf32> {scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<128x64xbf16> -> tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<128xf32>
  %x2 = nvfp4.dequantize %q, %s decode_scale %d : tensor<4x16xf32> : tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN> -> tensor<4x16x32xbf16>
  %c = nvfp4.matmul %q2, %s2, %b, %sb a_decode_scale(%d2 : tensor<128xf32>) b_decode_scale(%db : tensor<f32>) : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return
}

// CHECK-LABEL: func @quantize_mxfp4
// CHECK: %{{.*}}:2 = nvfp4.quantize mxfp4 %{{.*}} {scale_rule = #nvfp4.scale_rule<floor>} : tensor<2x100x64xbf16> -> tensor<2x100x64xf4E2M1FN>, tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
func.func @quantize_mxfp4(%x: tensor<2x100x64xbf16>) -> tensor<2x100x64xf4E2M1FN> {
  %q, %s = nvfp4.quantize mxfp4 %x {scale_rule = #nvfp4.scale_rule<floor>} : tensor<2x100x64xbf16> -> tensor<2x100x64xf4E2M1FN>, tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
  return %q : tensor<2x100x64xf4E2M1FN>
}

// CHECK-LABEL: func @quantize_buffers
// CHECK: nvfp4.quantize nvfp4 %{{.*}} outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<16x32xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>{{$}}
func.func @quantize_buffers(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<1x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// CHECK-LABEL: func @dequantize
// CHECK: nvfp4.dequantize %{{.*}}, %{{.*}} decode_scale %{{.*}} : tensor<f32> : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x448xbf16>
// CHECK: nvfp4.dequantize %{{.*}}, %{{.*}} : tensor<3x8x64xf4E2M1FN>, tensor<3x8x2xf8E8M0FNU> -> tensor<3x8x64xf32>
// CHECK: nvfp4.dequantize %{{.*}}, %{{.*}} outs(%{{.*}} : memref<8x32xf16>) : memref<8x32xf4E2M1FN>, memref<8x2xf8E4M3FN>{{$}}
func.func @dequantize(%q: tensor<200x448xf4E2M1FN>, %s: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %d: tensor<f32>,
                      %mq: tensor<3x8x64xf4E2M1FN>, %ms: tensor<3x8x2xf8E8M0FNU>,
                      %bq: memref<8x32xf4E2M1FN>, %bs: memref<8x2xf8E4M3FN>, %bo: memref<8x32xf16>) {
  %x = nvfp4.dequantize %q, %s decode_scale %d : tensor<f32> : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x448xbf16>
  %y = nvfp4.dequantize %mq, %ms : tensor<3x8x64xf4E2M1FN>, tensor<3x8x2xf8E8M0FNU> -> tensor<3x8x64xf32>
  nvfp4.dequantize %bq, %bs outs(%bo : memref<8x32xf16>) : memref<8x32xf4E2M1FN>, memref<8x2xf8E4M3FN>
  return
}

// CHECK-LABEL: func @swizzle
// CHECK: nvfp4.swizzle_scales %{{.*}} : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
// CHECK: nvfp4.unswizzle_scales %{{.*}} : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
// CHECK: nvfp4.swizzle_scales %{{.*}} outs(%{{.*}} : memref<4x1x1x32x4x4xf8E8M0FNU>) : memref<4x3x2xf8E8M0FNU>{{$}}
func.func @swizzle(%s: tensor<200x28xf8E4M3FN>, %m: memref<4x3x2xf8E8M0FNU>, %o: memref<4x1x1x32x4x4xf8E8M0FNU>) -> tensor<200x28xf8E4M3FN> {
  %sw = nvfp4.swizzle_scales %s : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %un = nvfp4.unswizzle_scales %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  nvfp4.swizzle_scales %m outs(%o : memref<4x1x1x32x4x4xf8E8M0FNU>) : memref<4x3x2xf8E8M0FNU>
  return %un : tensor<200x28xf8E4M3FN>
}

// CHECK-LABEL: func @matmul
// CHECK: nvfp4.matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} a_decode_scale(%{{.*}} : tensor<f32>) b_decode_scale(%{{.*}} : tensor<f32>) : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<96x448xf4E2M1FN>, tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x96xbf16>
// CHECK: nvfp4.matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} alpha(%{{.*}} : tensor<f32>) acc(%{{.*}} : tensor<200x96xf32>) {beta = 5.000000e-01 : f32} : {{.*}} -> tensor<200x96xf32>
func.func @matmul(%a: tensor<200x448xf4E2M1FN>, %sa: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %b: tensor<96x448xf4E2M1FN>, %sb: tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %da: tensor<f32>, %db: tensor<f32>, %c: tensor<200x96xf32>) -> (tensor<200x96xbf16>, tensor<200x96xf32>) {
  %0 = nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : tensor<f32>) b_decode_scale(%db : tensor<f32>)
      : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<96x448xf4E2M1FN>, tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x96xbf16>
  %1 = nvfp4.matmul %a, %sa, %b, %sb alpha(%da : tensor<f32>) acc(%c : tensor<200x96xf32>) {beta = 0.5 : f32}
      : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<96x448xf4E2M1FN>, tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x96xf32>
  return %0, %1 : tensor<200x96xbf16>, tensor<200x96xf32>
}

// CHECK-LABEL: func @matmul_mxfp4_buffers
// CHECK: nvfp4.matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} outs(%{{.*}} : memref<128x64xf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>{{$}}
func.func @matmul_mxfp4_buffers(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E8M0FNU>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E8M0FNU>, %c: memref<128x64xf16>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<128x64xf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>
  return
}

// CHECK-LABEL: func @grouped_independent
// CHECK: %{{.*}}:2 = nvfp4.grouped_matmul independent a(%{{.*}}, %{{.*}} : tensor<80x256xf4E2M1FN>, tensor<176x128xf4E2M1FN>) a_scales({{.*}}) b({{.*}}) b_scales({{.*}}) a_decode_scale(%{{.*}} : tensor<2xf32>) b_decode_scale(%{{.*}} : tensor<f32>) alpha(%{{.*}} : tensor<2xf32>) -> tensor<80x64xbf16>, tensor<176x32xbf16>
func.func @grouped_independent(%a0: tensor<80x256xf4E2M1FN>, %sa0: tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                               %b0: tensor<64x256xf4E2M1FN>, %sb0: tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                               %a1: tensor<176x128xf4E2M1FN>, %sa1: tensor<2x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                               %b1: tensor<32x128xf4E2M1FN>, %sb1: tensor<1x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                               %da: tensor<2xf32>, %db: tensor<f32>, %alpha: tensor<2xf32>) {
  %c:2 = nvfp4.grouped_matmul independent
      a(%a0, %a1 : tensor<80x256xf4E2M1FN>, tensor<176x128xf4E2M1FN>)
      a_scales(%sa0, %sa1 : tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%b0, %b1 : tensor<64x256xf4E2M1FN>, tensor<32x128xf4E2M1FN>)
      b_scales(%sb0, %sb1 : tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      a_decode_scale(%da : tensor<2xf32>) b_decode_scale(%db : tensor<f32>) alpha(%alpha : tensor<2xf32>)
      -> tensor<80x64xbf16>, tensor<176x32xbf16>
  return
}

// CHECK-LABEL: func @grouped_contiguous
// CHECK: nvfp4.grouped_matmul contiguous a(%{{.*}} : tensor<256x64xf4E2M1FN>) a_scales({{.*}}) b(%{{.*}} : tensor<3x96x64xf4E2M1FN>) b_scales({{.*}}) group_offsets(%{{.*}} : tensor<4xi32>) acc(%{{.*}} : tensor<256x96xf32>) {beta = 2.000000e+00 : f32} -> tensor<256x96xf32>
func.func @grouped_contiguous(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                              %b: tensor<3x96x64xf4E2M1FN>, %sb: tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                              %off: tensor<4xi32>, %c: tensor<256x96xf32>) -> tensor<256x96xf32> {
  %r = nvfp4.grouped_matmul contiguous a(%a : tensor<256x64xf4E2M1FN>)
      a_scales(%sa : tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%b : tensor<3x96x64xf4E2M1FN>) b_scales(%sb : tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%off : tensor<4xi32>) acc(%c : tensor<256x96xf32>) {beta = 2.0 : f32} -> tensor<256x96xf32>
  return %r : tensor<256x96xf32>
}

// CHECK-LABEL: func @grouped_masked_buffers
// CHECK: nvfp4.grouped_matmul masked a(%{{.*}} : memref<2x64x32xf4E2M1FN>) a_scales(%{{.*}} : memref<2x1x1x32x4x4xf8E4M3FN>) b(%{{.*}} : memref<2x16x32xf4E2M1FN>) b_scales(%{{.*}} : memref<2x1x1x32x4x4xf8E4M3FN>) masked_m(%{{.*}} : memref<2xi32>) outs(%{{.*}} : memref<2x64x16xf16>){{$}}
func.func @grouped_masked_buffers(%a: memref<2x64x32xf4E2M1FN>, %sa: memref<2x1x1x32x4x4xf8E4M3FN>,
                                  %b: memref<2x16x32xf4E2M1FN>, %sb: memref<2x1x1x32x4x4xf8E4M3FN>,
                                  %m: memref<2xi32>, %c: memref<2x64x16xf16>) {
  nvfp4.grouped_matmul masked a(%a : memref<2x64x32xf4E2M1FN>) a_scales(%sa : memref<2x1x1x32x4x4xf8E4M3FN>)
      b(%b : memref<2x16x32xf4E2M1FN>) b_scales(%sb : memref<2x1x1x32x4x4xf8E4M3FN>)
      masked_m(%m : memref<2xi32>) outs(%c : memref<2x64x16xf16>)
  return
}

// Zero-size dimensions are valid (docs/spec.md 2.6), contiguous without
// groups too when it has no rows (G8).
// CHECK-LABEL: func @zero_sizes
// CHECK: nvfp4.quantize nvfp4 %{{.*}} : tensor<0x64xbf16> -> tensor<0x64xf4E2M1FN>, tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
// CHECK: nvfp4.matmul %{{.*}} : tensor<16x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<8x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<16x8xf32>
// CHECK: nvfp4.grouped_matmul contiguous a(%{{.*}} : tensor<0x64xf4E2M1FN>) {{.*}} b(%{{.*}} : tensor<0x16x64xf4E2M1FN>) {{.*}} group_offsets(%{{.*}} : tensor<1xi32>) -> tensor<0x16xf32>
func.func @zero_sizes(%x: tensor<0x64xbf16>, %a: tensor<16x0xf4E2M1FN>, %sa: tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %b: tensor<8x0xf4E2M1FN>, %sb: tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %ga: tensor<0x64xf4E2M1FN>, %gsa: tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %gb: tensor<0x16x64xf4E2M1FN>, %gsb: tensor<0x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<1xi32>)
    -> (tensor<f32>, tensor<16x8xf32>, tensor<0x16xf32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<0x64xbf16> -> tensor<0x64xf4E2M1FN>, tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<16x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<8x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<16x8xf32>
  %g = nvfp4.grouped_matmul contiguous a(%ga : tensor<0x64xf4E2M1FN>) a_scales(%gsa : tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%gb : tensor<0x16x64xf4E2M1FN>) b_scales(%gsb : tensor<0x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<1xi32>) -> tensor<0x16xf32>
  return %d, %c, %g : tensor<f32>, tensor<16x8xf32>, tensor<0x16xf32>
}

// Weight-only quantization (W4A16): bf16/f16 activations, no A scales.
// CHECK-LABEL: func @matmul_weight_only
// CHECK: nvfp4.matmul %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} b_decode_scale(%{{.*}} : tensor<f32>) : tensor<8x64xbf16>, tensor<32x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<8x32xbf16>
func.func @matmul_weight_only(%x: tensor<8x64xbf16>, %w: tensor<32x64xf4E2M1FN>, %sw: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %dw: tensor<f32>) -> tensor<8x32xbf16> {
  %y = nvfp4.matmul %x, %w, %sw b_decode_scale(%dw : tensor<f32>) : tensor<8x64xbf16>, tensor<32x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}

// CHECK-LABEL: func @matmul_weight_only_mxfp4_buffers
// CHECK: nvfp4.matmul %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} outs(%{{.*}} : memref<8x32xf32>) : memref<8x64xf16>, memref<32x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>{{$}}
func.func @matmul_weight_only_mxfp4_buffers(%x: memref<8x64xf16>, %w: memref<32x64xf4E2M1FN>, %sw: memref<1x1x32x4x4xf8E8M0FNU>, %y: memref<8x32xf32>) {
  nvfp4.matmul %x, %w, %sw outs(%y : memref<8x32xf32>) : memref<8x64xf16>, memref<32x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>
  return
}

// CHECK-LABEL: func @grouped_weight_only
// CHECK: nvfp4.grouped_matmul contiguous a(%{{.*}} : tensor<40x64xbf16>) b(%{{.*}} : tensor<3x32x64xf4E2M1FN>) b_scales(%{{.*}} : tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%{{.*}} : tensor<4xi32>) b_decode_scale(%{{.*}} : tensor<3xf32>) -> tensor<40x32xbf16>
func.func @grouped_weight_only(%x: tensor<40x64xbf16>, %w: tensor<3x32x64xf4E2M1FN>, %sw: tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<4xi32>, %dw: tensor<3xf32>) -> tensor<40x32xbf16> {
  %y = nvfp4.grouped_matmul contiguous a(%x : tensor<40x64xbf16>) b(%w : tensor<3x32x64xf4E2M1FN>) b_scales(%sw : tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<4xi32>) b_decode_scale(%dw : tensor<3xf32>) -> tensor<40x32xbf16>
  return %y : tensor<40x32xbf16>
}

// CHECK-LABEL: func @swiglu
// CHECK: nvfp4.swiglu %{{.*}} : tensor<16x5760xbf16> -> tensor<16x2880xbf16>
// CHECK: nvfp4.swiglu %{{.*}} {limit = 7.000000e+00 : f32, sigmoid_scale = 1.702000e+00 : f32, up_offset = 1.000000e+00 : f32} : tensor<4x3x8xf32> -> tensor<4x3x4xf16>
// CHECK: nvfp4.swiglu %{{.*}} outs(%{{.*}} : memref<2xf32>) : memref<4xf16>{{$}}
func.func @swiglu(%x: tensor<16x5760xbf16>, %y: tensor<4x3x8xf32>,
                  %z: memref<4xf16>, %o: memref<2xf32>)
    -> (tensor<16x2880xbf16>, tensor<4x3x4xf16>) {
  %a = nvfp4.swiglu %x : tensor<16x5760xbf16> -> tensor<16x2880xbf16>
  %b = nvfp4.swiglu %y {sigmoid_scale = 1.702 : f32, limit = 7.0 : f32, up_offset = 1.0 : f32}
      : tensor<4x3x8xf32> -> tensor<4x3x4xf16>
  nvfp4.swiglu %z outs(%o : memref<2xf32>) : memref<4xf16>
  return %a, %b : tensor<16x2880xbf16>, tensor<4x3x4xf16>
}

// CHECK-LABEL: func @moe_routing
// CHECK: nvfp4.moe_route %{{.*}} : tensor<16x2xi32> -> tensor<32xi32>, tensor<16x2xi32>, tensor<9xi32>
// CHECK: nvfp4.moe_dispatch %{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<32xi32> -> tensor<32x64xbf16>
// CHECK: nvfp4.moe_combine %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x64xf32>
// CHECK: nvfp4.moe_route %{{.*}} outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<32xi32>, memref<16x2xi32>, memref<9xi32>) : memref<16x2xi32>{{$}}
// CHECK: nvfp4.moe_dispatch %{{.*}}, %{{.*}} outs(%{{.*}} : memref<32x64xbf16>) : memref<16x64xbf16>, memref<32xi32>{{$}}
// CHECK: nvfp4.moe_combine %{{.*}}, %{{.*}}, %{{.*}} outs(%{{.*}} : memref<16x64xbf16>) {product_type = bf16} : memref<32x64xbf16>, memref<16x2xi32>, memref<16x2xbf16>{{$}}
func.func @moe_routing(%ids: tensor<16x2xi32>, %x: tensor<16x64xbf16>, %w: tensor<16x2xf32>,
                       %mids: memref<16x2xi32>, %mp: memref<32xi32>, %mr: memref<16x2xi32>,
                       %mo: memref<9xi32>, %mx: memref<16x64xbf16>, %my: memref<32x64xbf16>,
                       %mw: memref<16x2xbf16>, %mout: memref<16x64xbf16>) -> tensor<16x64xf32> {
  %p, %r, %o = nvfp4.moe_route %ids : tensor<16x2xi32> -> tensor<32xi32>, tensor<16x2xi32>, tensor<9xi32>
  %y = nvfp4.moe_dispatch %x, %p : tensor<16x64xbf16>, tensor<32xi32> -> tensor<32x64xbf16>
  %out = nvfp4.moe_combine %y, %r, %w : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x64xf32>
  nvfp4.moe_route %mids outs(%mp, %mr, %mo : memref<32xi32>, memref<16x2xi32>, memref<9xi32>) : memref<16x2xi32>
  nvfp4.moe_dispatch %mx, %mp outs(%my : memref<32x64xbf16>) : memref<16x64xbf16>, memref<32xi32>
  nvfp4.moe_combine %my, %mr, %mw outs(%mout : memref<16x64xbf16>) {product_type = bf16} : memref<32x64xbf16>, memref<16x2xi32>, memref<16x2xbf16>
  return %out : tensor<16x64xf32>
}

// A bias per output column (dense) or per group row (grouped).
// CHECK-LABEL: func.func @bias
// CHECK: nvfp4.matmul {{.*}} bias(%{{.*}} : tensor<64xbf16>) acc(%{{.*}} : tensor<128x64xf32>) {beta = 5.000000e-01 : f32}
// CHECK: nvfp4.grouped_matmul contiguous {{.*}} bias(%{{.*}} : tensor<2x64xf32>) -> tensor<40x64xbf16>
func.func @bias(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %bias: tensor<64xbf16>, %acc: tensor<128x64xf32>,
                %ga: tensor<40x64xf4E2M1FN>, %gb: tensor<2x64x64xf4E2M1FN>, %gsb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<3xi32>, %gbias: tensor<2x64xf32>) -> (tensor<128x64xf32>, tensor<40x64xbf16>) {
  %c = nvfp4.matmul %a, %sa, %b, %sb bias(%bias : tensor<64xbf16>) acc(%acc : tensor<128x64xf32>) {beta = 0.5 : f32} : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xf32>
  %g = nvfp4.grouped_matmul contiguous a(%ga : tensor<40x64xf4E2M1FN>) a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%gb : tensor<2x64x64xf4E2M1FN>) b_scales(%gsb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) bias(%gbias : tensor<2x64xf32>) -> tensor<40x64xbf16>
  return %c, %g : tensor<128x64xf32>, tensor<40x64xbf16>
}
