// RUN: nvfp4-opt %s --convert-nvfp4-to-scf --canonicalize | FileCheck %s

// The CPU matmul: both operands dequantized exactly to fp32 buffers, 16-wide
// fma dot products, alpha = (dA * dB) applied before the cast to bf16.
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<128x32xi8>, %[[SA:.*]]: memref<1x1x32x4x4xi8>, %[[B:.*]]: memref<64x32xi8>, %[[SB:.*]]: memref<1x1x32x4x4xi8>, %[[DA:.*]]: memref<f32>, %[[DB:.*]]: memref<f32>, %[[C:.*]]: memref<128x64xbf16>)
// CHECK-DAG: %[[AH:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128x64xf32>
// CHECK-DAG: %[[BH:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK: %[[VA:.*]] = memref.load %[[DA]][] : memref<f32>
// CHECK: %[[VB:.*]] = memref.load %[[DB]][] : memref<f32>
// CHECK: %[[ALPHA:.*]] = arith.mulf %[[VA]], %[[VB]] : f32
// CHECK: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: %[[SUM:.*]] = vector.reduction <add>, %{{.*}} : vector<16xf32> into f32
// CHECK: %[[V:.*]] = arith.mulf %[[ALPHA]], %[[SUM]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK: memref.store %[[T]], %[[C]]
// CHECK-DAG: memref.dealloc %[[AH]]
// CHECK-DAG: memref.dealloc %[[BH]]
func.func @matmul(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E4M3FN>, %da: memref<f32>, %db: memref<f32>, %c: memref<128x64xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<f32>) b_decode_scale(%db : memref<f32>) outs(%c : memref<128x64xbf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  return
}
