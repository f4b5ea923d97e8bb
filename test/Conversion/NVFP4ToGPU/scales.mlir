// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu --canonicalize | FileCheck %s

// convert-nvfp4-to-gpu on dequantize and the scale swizzles: the thread
// each launch has per unit of work, its index arithmetic (the swizzled
// index of the scale layout) and the padding it writes.
// Dequantize: one thread per 16 values (16 rows x 2 chunks = 32): one
// 8-byte load of packed codes, the chunk's E4M3 scale, S_dec; per value the
// nibble (odd: >> 4), fl(fl(e2m1 * sf) * S_dec) rounded to bf16; one
// 16-value store.
// CHECK-LABEL: func @dequantize_nvfp4
// CHECK-SAME: (%[[Q:[^:]*]]: memref<16x16xi8>, %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>, %[[X:[^:]*]]: memref<16x32xbf16>)
// CHECK: gpu.launch blocks
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[CH:.*]] = arith.remui %{{.*}}, %c2 : index
// CHECK-NEXT: %[[RR:.*]] = arith.divui %{{.*}}, %c2 : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[RR]], %c16 : index
// CHECK-NEXT: %[[K0:.*]] = arith.muli %[[CH]], %c16 : index
// CHECK-NEXT: %[[BYTE:.*]] = arith.divui %[[K0]], %c2 : index
// CHECK-NEXT: %[[PACKED:.*]] = vector.load %[[Q]][%[[R]], %[[BYTE]]] {alignment = 8 : i64} : memref<16x16xi8>, vector<8xi8>
// CHECK-NEXT: %[[BLK:.*]] = arith.divui %[[K0]], %c16 : index
// CHECK-NEXT: memref.load %[[S]][%[[R]], %[[BLK]]] : memref<16x2xi8>
// CHECK: %[[SDEC:.*]] = memref.load %[[D]][] : memref<f32>
// CHECK-NEXT: vector.extract %[[PACKED]][0] : i8 from vector<8xi8>
// CHECK: %[[V0:.*]] = arith.mulf %{{.*}}, %[[SDEC]] : f32
// CHECK-NEXT: arith.truncf %[[V0]] : f32 to bf16
// CHECK-NEXT: %[[P1:.*]] = vector.extract %[[PACKED]][0] : i8 from vector<8xi8>
// CHECK-NEXT: %[[W1:.*]] = arith.extui %[[P1]] : i8 to i32
// CHECK-NEXT: arith.shrui %[[W1]], %c4_i32 : i32
// CHECK-COUNT-15: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: %[[VEC:.*]] = vector.from_elements %{{.*}} : vector<16xbf16>
// CHECK-NEXT: vector.store %[[VEC]], %[[X]][%[[R]], %[[K0]]] {alignment = 16 : i64} : memref<16x32xbf16>, vector<16xbf16>
func.func @dequantize_nvfp4(%q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>, %x: memref<16x32xbf16>) {
  nvfp4.dequantize %q, %s decode_scale %d : memref<f32> outs(%x : memref<16x32xbf16>) : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>
  return
}

// -----

// MXFP4, swizzled, batched: 2 x 16 x 4 threads; the UE8M0 scale of block
// k0/32 at the swizzled index of the thread's batch entry; no decode scale.
// CHECK-LABEL: func @dequantize_mxfp4_swizzled
// CHECK-SAME: (%[[Q:[^:]*]]: memref<2x16x32xi8>, %[[S:[^:]*]]: memref<2x1x1x32x4x4xi8>, %[[X:[^:]*]]: memref<2x16x64xf32>)
// CHECK: gpu.launch blocks
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %c128 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[CH:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK-NEXT: %[[RB:.*]] = arith.divui %{{.*}}, %c4 : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[RB]], %c16 : index
// CHECK-NEXT: %[[B:.*]] = arith.divui %[[RB]], %c16 : index
// CHECK-NEXT: %[[K0:.*]] = arith.muli %[[CH]], %c16 : index
// CHECK-NEXT: %[[BYTE:.*]] = arith.divui %[[K0]], %c2 : index
// CHECK-NEXT: vector.load %[[Q]][%[[B]], %[[R]], %[[BYTE]]] {alignment = 8 : i64} : memref<2x16x32xi8>, vector<8xi8>
// CHECK-NEXT: %[[C:.*]] = arith.divui %[[K0]], %c32 : index
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[R]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[C]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[R]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[R]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[C]], %c4 : index
// CHECK-NEXT: %[[SB:.*]] = memref.load %[[S]][%[[B]], %[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<2x1x1x32x4x4xi8>
// CHECK-NEXT: %[[E:.*]] = arith.extui %[[SB]] : i8 to i32
// CHECK-NEXT: arith.shli %[[E]], %c23_i32 : i32
// CHECK-NOT: memref.load
// CHECK: %[[VEC:.*]] = vector.from_elements %{{.*}} : vector<16xf32>
// CHECK-NEXT: vector.store %[[VEC]], %[[X]][%[[B]], %[[R]], %[[K0]]] {alignment = 16 : i64} : memref<2x16x64xf32>, vector<16xf32>
func.func @dequantize_mxfp4_swizzled(%q: memref<2x16x64xf4E2M1FN>, %s: memref<2x1x1x32x4x4xf8E8M0FNU>, %x: memref<2x16x64xf32>) {
  nvfp4.dequantize %q, %s outs(%x : memref<2x16x64xf32>) : memref<2x16x64xf4E2M1FN>, memref<2x1x1x32x4x4xf8E8M0FNU>
  return
}

// -----

// swizzle_scales: one thread per byte of the padded matrix (256 x 8 =
// 2048); inside the 200 x 6 matrix it copies S[r, c], outside it writes a
// zero, both at [r/128, c/4, r%32, (r%128)/32, c%4].
// CHECK-LABEL: func @swizzle
// CHECK-SAME: (%[[IN:[^:]*]]: memref<200x6xi8>, %[[OUT:[^:]*]]: memref<2x2x32x4x4xi8>)
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: %[[LIVE:.*]] = arith.cmpi slt, %{{.*}}, %c2048 : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK-NEXT: %[[C:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK-NEXT: %[[RR:.*]] = arith.divui %{{.*}}, %c8 : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[RR]], %c256 : index
// CHECK-NEXT: %[[CIN:.*]] = arith.cmpi slt, %[[C]], %c6 : index
// CHECK-NEXT: %[[RIN:.*]] = arith.cmpi slt, %[[R]], %c200 : index
// CHECK-NEXT: %[[INSIDE:.*]] = arith.andi %[[RIN]], %[[CIN]] : i1
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[R]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[C]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[R]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[R]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[C]], %c4 : index
// CHECK-NEXT: scf.if %[[INSIDE]] {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[IN]][%[[R]], %[[C]]] : memref<200x6xi8>
// CHECK-NEXT: memref.store %[[V]], %[[OUT]][%[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<2x2x32x4x4xi8>
// CHECK-NEXT: } else {
// CHECK-NEXT: memref.store %c0_i8, %[[OUT]][%[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<2x2x32x4x4xi8>
func.func @swizzle(%s: memref<200x6xf8E4M3FN>, %sw: memref<2x2x32x4x4xf8E4M3FN>) {
  nvfp4.swizzle_scales %s outs(%sw : memref<2x2x32x4x4xf8E4M3FN>) : memref<200x6xf8E4M3FN>
  return
}

// -----

// unswizzle_scales, batched: one thread per element of the 3 x 200 x 6
// result, a gather from the swizzled index; padding is not read.
// CHECK-LABEL: func @unswizzle
// CHECK-SAME: (%[[IN:[^:]*]]: memref<3x2x2x32x4x4xi8>, %[[OUT:[^:]*]]: memref<3x200x6xi8>)
// CHECK: %[[LIVE:.*]] = arith.cmpi slt, %{{.*}}, %c3600 : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK-NEXT: %[[C:.*]] = arith.remui %{{.*}}, %c6 : index
// CHECK-NEXT: %[[RB:.*]] = arith.divui %{{.*}}, %c6 : index
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[RB]], %c200 : index
// CHECK-NEXT: %[[B:.*]] = arith.divui %[[RB]], %c200 : index
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
