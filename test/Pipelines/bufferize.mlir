// RUN: nvfp4-opt %s --nvfp4-bufferize --split-input-file | FileCheck %s

// Results become out-params written in place; nothing is copied.
// CHECK-LABEL: func @quantize
// CHECK-SAME: (%[[X:.*]]: memref<200x64xbf16>, %[[Q:.*]]: memref<200x64xf4E2M1FN>, %[[S:.*]]: memref<2x1x32x4x4xf8E4M3FN>, %[[D:.*]]: memref<f32>)
// CHECK-NEXT: nvfp4.quantize nvfp4 %[[X]] outs(%[[Q]], %[[S]], %[[D]] : memref<200x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<200x64xbf16>
// CHECK-NEXT: return
func.func @quantize(%x: tensor<200x64xbf16>) -> (tensor<200x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<200x64xbf16> -> tensor<200x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return %q, %s, %d : tensor<200x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
}

// -----

// A given scale (either kind) is an operand like any other: it keeps its
// keyword and becomes the memref argument; the seed stays a scalar.
// CHECK-LABEL: func @quantize_given_scales
// CHECK-SAME: (%[[X:[^:]*]]: memref<2x16x32xbf16>, %[[E:[^:]*]]: memref<2xf32>, %[[SD:[^:]*]]: memref<2xf32>, %[[SEED:[^:]*]]: i64,
// CHECK: nvfp4.quantize nvfp4 %[[X]] encode_scale %[[E]] : memref<2xf32> outs(
// CHECK: nvfp4.quantize nvfp4 %[[X]] decode_scale %[[SD]] : memref<2xf32> seed %[[SEED]] outs(
func.func @quantize_given_scales(%x: tensor<2x16x32xbf16>, %e: tensor<2xf32>, %d: tensor<2xf32>, %seed: i64) -> (tensor<2xf32>, tensor<2xf32>) {
  %q, %s, %sd = nvfp4.quantize nvfp4 %x encode_scale %e : tensor<2xf32> : tensor<2x16x32xbf16> -> tensor<2x16x32xf4E2M1FN>, tensor<2x16x2xf8E4M3FN>, tensor<2xf32>
  %q2, %s2, %sd2 = nvfp4.quantize nvfp4 %x decode_scale %d : tensor<2xf32> seed %seed {rounding = #nvfp4.rounding<stochastic>} : tensor<2x16x32xbf16> -> tensor<2x16x32xf4E2M1FN>, tensor<2x16x2xf8E4M3FN>, tensor<2xf32>
  return %sd, %sd2 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Intermediates are allocated and freed; the result is the out-param.
// CHECK-LABEL: func @quantize_then_matmul
// CHECK-SAME: %[[C:[^:]*]]: memref<128x64xbf16>)
// CHECK-DAG: %[[QA:.*]] = memref.alloc() {{.*}} : memref<128x64xf4E2M1FN>
// CHECK-DAG: %[[SA:.*]] = memref.alloc() {{.*}} : memref<1x1x32x4x4xf8E4M3FN>
// CHECK: nvfp4.quantize nvfp4 %{{.*}} outs(%[[QA]], %[[SA]], %{{.*}} :
// CHECK: nvfp4.matmul %[[QA]], %[[SA]], %{{.*}} outs(%[[C]] : memref<128x64xbf16>)
// CHECK-DAG: memref.dealloc %[[QA]]
// CHECK-DAG: memref.dealloc %[[SA]]
func.func @quantize_then_matmul(%a: tensor<128x64xbf16>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16> {
  %q, %s, %d = nvfp4.quantize nvfp4 %a : tensor<128x64xbf16> -> tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %c = nvfp4.matmul %q, %s, %b, %sb a_decode_scale(%d : tensor<f32>) : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return %c : tensor<128x64xbf16>
}
