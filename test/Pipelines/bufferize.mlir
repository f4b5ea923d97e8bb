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
