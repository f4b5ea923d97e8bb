// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf --canonicalize | FileCheck %s

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

// -----

// A row-scaled A: alpha_eff = fl(fl(dA[m] * dB) * alpha) per output, formed
// at [m, n] after the dot product.
// CHECK-LABEL: func @matmul_row_scaled
// CHECK-SAME: (%{{[^:]*}}: memref<128x32xi8>, %{{[^:]*}}: memref<1x1x32x4x4xi8>, %{{[^:]*}}: memref<64x32xi8>, %{{[^:]*}}: memref<1x1x32x4x4xi8>, %[[DA:[^:]*]]: memref<128xf32>, %[[DB:[^:]*]]: memref<f32>, %[[AL:[^:]*]]: memref<f32>, %[[C:[^:]*]]: memref<128x64xbf16>)
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c32 {
// CHECK: scf.for %[[M:.*]] = %c0 to %c128 step %c1 {
// CHECK-NEXT: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK: %[[SUM:.*]] = vector.reduction <add>
// CHECK-NEXT: %[[VA:.*]] = memref.load %[[DA]][%[[M]]] : memref<128xf32>
// CHECK-NEXT: %[[VB:.*]] = memref.load %[[DB]][] : memref<f32>
// CHECK-NEXT: %[[VL:.*]] = memref.load %[[AL]][] : memref<f32>
// CHECK-NEXT: %[[AB:.*]] = arith.mulf %[[VA]], %[[VB]] : f32
// CHECK-NEXT: %[[ALPHA:.*]] = arith.mulf %[[AB]], %[[VL]] : f32
// CHECK-NEXT: arith.mulf %[[ALPHA]], %[[SUM]] : f32
// CHECK: memref.store %{{.*}}, %[[C]][%[[M]], %[[N]]]
func.func @matmul_row_scaled(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E4M3FN>, %da: memref<128xf32>, %db: memref<f32>, %al: memref<f32>, %c: memref<128x64xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<128xf32>) b_decode_scale(%db : memref<f32>) alpha(%al : memref<f32>) outs(%c : memref<128x64xbf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  return
}
