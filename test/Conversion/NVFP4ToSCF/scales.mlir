// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf --canonicalize | FileCheck %s

// convert-nvfp4-to-scf on dequantize and the scale swizzles (docs/spec.md
// 2.2 and the scale layout of section 1).
// NVFP4 dequantize: per element, the code's nibble (odd k: high), the E4M3
// scale of [r, k/16] decoded, fl(fl(e2m1 * sf) * S_dec), rounded to bf16.
// CHECK-LABEL: func @dequantize_nvfp4
// CHECK-SAME: (%[[Q:[^:]*]]: memref<16x16xi8>, %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>, %[[X:[^:]*]]: memref<16x32xbf16>)
// CHECK: %[[SDEC:.*]] = memref.load %[[D]][] : memref<f32>
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c32 step %c1 {
// CHECK-NEXT: %[[BYTE:.*]] = arith.shrui %[[K]], %c1 : index
// CHECK-NEXT: memref.load %[[Q]][%[[R]], %[[BYTE]]] : memref<16x16xi8>
// CHECK: %[[ODD:.*]] = arith.andi %[[K]], %c1 : index
// CHECK: %[[BLK:.*]] = arith.divui %[[K]], %c16 : index
// CHECK-NEXT: memref.load %[[S]][%[[R]], %[[BLK]]] : memref<16x2xi8>
// CHECK: %[[VS:.*]] = arith.mulf %{{.*}}, %[[SDEC]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[VS]] : f32 to bf16
// CHECK-NEXT: memref.store %[[T]], %[[X]][%[[R]], %[[K]]] : memref<16x32xbf16>
func.func @dequantize_nvfp4(%q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>, %x: memref<16x32xbf16>) {
  nvfp4.dequantize %q, %s decode_scale %d : memref<f32> outs(%x : memref<16x32xbf16>) : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>
  return
}

// -----

// Row-scaled NVFP4 dequantize: each row's decode scale, loaded in its row.
// CHECK-LABEL: func @dequantize_row_scaled
// CHECK-SAME: (%[[Q:[^:]*]]: memref<2x16x16xi8>, %[[S:[^:]*]]: memref<2x16x2xi8>, %[[D:[^:]*]]: memref<2x16xf32>, %[[X:[^:]*]]: memref<2x16x32xf32>)
// CHECK: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: %[[SDEC:.*]] = memref.load %[[D]][%[[B]], %[[R]]] : memref<2x16xf32>
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c32 step %c1 {
// CHECK: %[[V:.*]] = arith.mulf %{{.*}}, %[[SDEC]] : f32
// CHECK-NEXT: memref.store %[[V]], %[[X]][%[[B]], %[[R]], %[[K]]] : memref<2x16x32xf32>
func.func @dequantize_row_scaled(%q: memref<2x16x32xf4E2M1FN>, %s: memref<2x16x2xf8E4M3FN>, %d: memref<2x16xf32>, %x: memref<2x16x32xf32>) {
  nvfp4.dequantize %q, %s decode_scale %d : memref<2x16xf32> outs(%x : memref<2x16x32xf32>) : memref<2x16x32xf4E2M1FN>, memref<2x16x2xf8E4M3FN>
  return
}

// -----

// MXFP4 with swizzled scales, batched: the UE8M0 scale of block k/32 read
// at the swizzled index (2^(e-127) as bits e << 23; 0 and 0xFF special),
// no decode scale, f32 result.
// CHECK-LABEL: func @dequantize_mxfp4_swizzled
// CHECK-SAME: (%[[Q:[^:]*]]: memref<2x16x32xi8>, %[[S:[^:]*]]: memref<2x1x1x32x4x4xi8>, %[[X:[^:]*]]: memref<2x16x64xf32>)
// CHECK-NOT: memref<f32>
// CHECK: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c64 step %c1 {
// CHECK: %[[C:.*]] = arith.divui %[[K]], %c32 : index
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[R]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[C]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[R]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[R]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[C]], %c4 : index
// CHECK-NEXT: %[[SB:.*]] = memref.load %[[S]][%[[B]], %[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<2x1x1x32x4x4xi8>
// CHECK-NEXT: %[[E:.*]] = arith.extui %[[SB]] : i8 to i32
// CHECK-NEXT: arith.shli %[[E]], %c23_i32 : i32
// CHECK: %[[V:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: memref.store %[[V]], %[[X]][%[[B]], %[[R]], %[[K]]] : memref<2x16x64xf32>
// CHECK-NOT: arith.mulf
func.func @dequantize_mxfp4_swizzled(%q: memref<2x16x64xf4E2M1FN>, %s: memref<2x1x1x32x4x4xf8E8M0FNU>, %x: memref<2x16x64xf32>) {
  nvfp4.dequantize %q, %s outs(%x : memref<2x16x64xf32>) : memref<2x16x64xf4E2M1FN>, memref<2x1x1x32x4x4xf8E8M0FNU>
  return
}

// -----

// swizzle_scales: zero the padded tiles, then each S[r, c] to
// [r/128, c/4, r%32, (r%128)/32, c%4].
// CHECK-LABEL: func @swizzle
// CHECK-SAME: (%[[IN:[^:]*]]: memref<200x6xi8>, %[[OUT:[^:]*]]: memref<2x2x32x4x4xi8>)
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0> : vector<4xi8>
// CHECK: vector.store %[[Z]], %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0] : memref<2x2x32x4x4xi8>, vector<4xi8>
// CHECK: scf.for %[[R:.*]] = %c0 to %c200 step %c1 {
// CHECK-NEXT: scf.for %[[C:.*]] = %c0 to %c6 step %c1 {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[IN]][%[[R]], %[[C]]] : memref<200x6xi8>
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[R]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[C]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[R]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[R]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[C]], %c4 : index
// CHECK-NEXT: memref.store %[[V]], %[[OUT]][%[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<2x2x32x4x4xi8>
func.func @swizzle(%s: memref<200x6xf8E4M3FN>, %sw: memref<2x2x32x4x4xf8E4M3FN>) {
  nvfp4.swizzle_scales %s outs(%sw : memref<2x2x32x4x4xf8E4M3FN>) : memref<200x6xf8E4M3FN>
  return
}

// -----

// unswizzle_scales, batched: the inverse gather; padding is not read and
// nothing is zeroed.
// CHECK-LABEL: func @unswizzle
// CHECK-SAME: (%[[IN:[^:]*]]: memref<3x2x2x32x4x4xi8>, %[[OUT:[^:]*]]: memref<3x200x6xi8>)
// CHECK-NOT: vector.store
// CHECK: scf.for %[[B:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %c200 step %c1 {
// CHECK-NEXT: scf.for %[[C:.*]] = %c0 to %c6 step %c1 {
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[R]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[C]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[R]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[R]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[C]], %c4 : index
// CHECK-NEXT: %[[V:.*]] = memref.load %[[IN]][%[[B]], %[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<3x2x2x32x4x4xi8>
// CHECK-NEXT: memref.store %[[V]], %[[OUT]][%[[B]], %[[R]], %[[C]]] : memref<3x200x6xi8>
func.func @unswizzle(%sw: memref<3x2x2x32x4x4xf8E8M0FNU>, %s: memref<3x200x6xf8E8M0FNU>) {
  nvfp4.unswizzle_scales %sw outs(%s : memref<3x200x6xf8E8M0FNU>) : memref<3x2x2x32x4x4xf8E8M0FNU>
  return
}
