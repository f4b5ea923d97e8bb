// Every op through the portable GPU pipeline down to a cubin (ptxas runs):
// compile-only, so it runs in CI.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --split-input-file --nvfp4-lower-to-gpu="chip=sm_90a" | FileCheck %s

// Each NVFP4 quantize here reduces its own amax over a small input: one
// kernel each (test/Conversion/NVFP4ToGPU/quantize-fused.mlir).
// CHECK-LABEL: llvm.func @quantize_variants
// CHECK-COUNT-5: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}bin = "\7FELF
func.func @quantize_variants(%x: tensor<200x64xbf16>, %y: tensor<2x48x96xf32>, %seed: i64) -> (tensor<200x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x48x96xf4E2M1FN>, tensor<2x48x6xf8E4M3FN>, tensor<2x48x96xf4E2M1FN>, tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) {
  %q0, %s0, %d0 = nvfp4.quantize nvfp4 %x {block = array<i64: 16, 16>, scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<200x64xbf16> -> tensor<200x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %q1, %s1, %d1 = nvfp4.quantize nvfp4 %y seed %seed {rounding = #nvfp4.rounding<stochastic>, hadamard} : tensor<2x48x96xf32> -> tensor<2x48x96xf4E2M1FN>, tensor<2x48x6xf8E4M3FN>, tensor<2xf32>
  %q2, %s2 = nvfp4.quantize mxfp4 %y {scale_rule = #nvfp4.scale_rule<floor>} : tensor<2x48x96xf32> -> tensor<2x48x96xf4E2M1FN>, tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
  %u = nvfp4.unswizzle_scales %s0 : tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x4xf8E4M3FN>
  %x2 = nvfp4.dequantize %q0, %u decode_scale %d0 : tensor<f32> : tensor<200x64xf4E2M1FN>, tensor<200x4xf8E4M3FN> -> tensor<200x64xbf16>
  %q3, %s3, %d3 = nvfp4.quantize nvfp4 %x2 : tensor<200x64xbf16> -> tensor<200x64xf4E2M1FN>, tensor<200x4xf8E4M3FN>, tensor<f32>
  %sw = nvfp4.swizzle_scales %s3 : tensor<200x4xf8E4M3FN> -> tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return %q0, %sw, %q1, %s1, %q2, %s2 : tensor<200x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x48x96xf4E2M1FN>, tensor<2x48x6xf8E4M3FN>, tensor<2x48x96xf4E2M1FN>, tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
}

// -----

// The Hadamard transform rounded to the input type (bf16, f16) before amax;
// TransformerEngine's 4over6 (row errors, the 16-row tree, e4m3_max 256).
// CHECK-LABEL: llvm.func @quantize_hadamard_four_over_six
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary
func.func @quantize_hadamard_four_over_six(%x: tensor<64x64xbf16>, %h: tensor<64x64xf16>) -> (tensor<64x64xf4E2M1FN>, tensor<64x4xf8E4M3FN>, tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf4E2M1FN>, tensor<64x4xf8E4M3FN>, tensor<f32>) {
  %q0, %s0, %d0 = nvfp4.quantize nvfp4 %x {hadamard} : tensor<64x64xbf16> -> tensor<64x64xf4E2M1FN>, tensor<64x4xf8E4M3FN>, tensor<f32>
  %q1, %s1 = nvfp4.quantize mxfp4 %h {hadamard} : tensor<64x64xf16> -> tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU>
  %q2, %s2, %d2 = nvfp4.quantize nvfp4 %h {hadamard, block = array<i64: 16, 16>, scale_rule = #nvfp4.scale_rule<four_over_six>, error_metric = #nvfp4.error_metric<mse>, e4m3_max = 256} : tensor<64x64xf16> -> tensor<64x64xf4E2M1FN>, tensor<64x4xf8E4M3FN>, tensor<f32>
  return %q0, %s0, %q1, %s1, %q2, %s2, %d2 : tensor<64x64xf4E2M1FN>, tensor<64x4xf8E4M3FN>, tensor<64x64xf4E2M1FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf4E2M1FN>, tensor<64x4xf8E4M3FN>, tensor<f32>
}

// -----

// CHECK-LABEL: llvm.func @matmuls
// CHECK-COUNT-4: gpu.launch_func
// CHECK: gpu.binary
func.func @matmuls(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                   %b: tensor<3x96x64xf4E2M1FN>, %sb: tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                   %off: tensor<4xi32>, %am: tensor<3x128x64xf4E2M1FN>, %sam: tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                   %mm: tensor<3xi32>, %b0: tensor<96x64xf4E2M1FN>, %sb0: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                   %d: tensor<3xf32>) -> (tensor<256x96xbf16>, tensor<3x128x96xf32>, tensor<256x96xf16>) {
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<256x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<3x96x64xf4E2M1FN>) b_scales(%sb : tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<4xi32>) b_decode_scale(%d : tensor<3xf32>) -> tensor<256x96xbf16>
  %m = nvfp4.grouped_matmul masked a(%am : tensor<3x128x64xf4E2M1FN>) a_scales(%sam : tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<3x96x64xf4E2M1FN>) b_scales(%sb : tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%mm : tensor<3xi32>) alpha(%d : tensor<3xf32>) -> tensor<3x128x96xf32>
  %i:2 = nvfp4.grouped_matmul independent a(%a, %a : tensor<256x64xf4E2M1FN>, tensor<256x64xf4E2M1FN>) a_scales(%sa, %sa : tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b0, %b0 : tensor<96x64xf4E2M1FN>, tensor<96x64xf4E2M1FN>) b_scales(%sb0, %sb0 : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<256x96xf16>, tensor<256x96xf16>
  %x = nvfp4.matmul %a, %sa, %b0, %sb0 acc(%i#0 : tensor<256x96xf16>) {beta = 0.5 : f32} : tensor<256x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<96x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<256x96xf16>
  return %c, %m, %x : tensor<256x96xbf16>, tensor<3x128x96xf32>, tensor<256x96xf16>
}

// -----

// A gated MLP's activation between its GEMMs (unfused): one launch for the
// matmul, one for nvfp4.swiglu.
// CHECK-LABEL: llvm.func @gate_up_swiglu
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary
func.func @gate_up_swiglu(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                          %b: tensor<192x64xf4E2M1FN>, %sb: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<256x96xbf16> {
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<256x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<192x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<256x192xbf16>
  %h = nvfp4.swiglu %c {sigmoid_scale = 1.702 : f32, limit = 7.0 : f32, up_offset = 1.0 : f32} : tensor<256x192xbf16> -> tensor<256x96xbf16>
  return %h : tensor<256x96xbf16>
}
