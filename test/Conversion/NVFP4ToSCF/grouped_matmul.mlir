// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf --canonicalize | FileCheck %s

// convert-nvfp4-to-scf on the matmul variants (test/Conversion/NVFP4ToSCF/
// matmul.mlir has the plain NVFP4 one) and the three groupings of
// grouped_matmul, with acc/beta and alpha/decode scales (docs/spec.md 2.7).
// MXFP4 with acc and beta, no decode scales or alpha: operands dequantized
// with their UE8M0 scales (2^(e-127): e << 23) read at the swizzled index
// of block k/32; C = dot + fl(0.5 * acc), f32.
// CHECK-LABEL: func @matmul_mxfp4_acc
// CHECK-SAME: (%[[A:[^:]*]]: memref<128x32xi8>, %[[SA:[^:]*]]: memref<1x1x32x4x4xi8>, %[[B:[^:]*]]: memref<64x32xi8>, %[[SB:[^:]*]]: memref<1x1x32x4x4xi8>, %[[ACC:[^:]*]]: memref<128x64xf32>, %[[C:[^:]*]]: memref<128x64xf32>)
// CHECK-DAG: %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[AH:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128x64xf32>
// CHECK-NEXT: %[[BH:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK: scf.for %[[R:.*]] = %c0 to %c128 step %c1 {
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c64 step %c1 {
// CHECK: %[[BLK:.*]] = arith.divui %[[K]], %c32 : index
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[R]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[BLK]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[R]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[R]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[BLK]], %c4 : index
// CHECK-NEXT: %[[SBYTE:.*]] = memref.load %[[SA]][%[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<1x1x32x4x4xi8>
// CHECK-NEXT: %[[E:.*]] = arith.extui %[[SBYTE]] : i8 to i32
// CHECK-NEXT: arith.shli %[[E]], %c23_i32 : i32
// CHECK: memref.store %{{.*}}, %[[AH]][%[[R]], %[[K]]] : memref<128x64xf32>
// CHECK: memref.load %[[SB]]
// CHECK: memref.store %{{.*}}, %[[BH]]
// CHECK: %[[DOT:.*]] = vector.reduction <add>, %{{.*}} : vector<16xf32> into f32
// CHECK-NEXT: %[[CIN:.*]] = memref.load %[[ACC]][%[[M:.*]], %[[N:.*]]] : memref<128x64xf32>
// CHECK-NEXT: %[[BC:.*]] = arith.mulf %[[CIN]], %[[BETA]] : f32
// CHECK-NEXT: %[[V:.*]] = arith.addf %[[DOT]], %[[BC]] : f32
// CHECK-NEXT: memref.store %[[V]], %[[C]][%[[M]], %[[N]]] : memref<128x64xf32>
func.func @matmul_mxfp4_acc(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E8M0FNU>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E8M0FNU>, %acc: memref<128x64xf32>, %c: memref<128x64xf32>) {
  nvfp4.matmul %a, %sa, %b, %sb acc(%acc : memref<128x64xf32>) outs(%c : memref<128x64xf32>) {beta = 5.000000e-01 : f32} : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>
  return
}

// -----

// NVFP4 with both decode scales and alpha: alpha_eff = fl(fl(dA * dB) *
// alpha), applied to the dot product before the cast to f16.
// CHECK-LABEL: func @matmul_nvfp4_alpha
// CHECK-SAME: %[[DA:[^:]*]]: memref<f32>, %[[DB:[^:]*]]: memref<f32>, %[[AL:[^:]*]]: memref<f32>, %[[C:[^:]*]]: memref<128x64xf16>)
// CHECK: %[[VA:.*]] = memref.load %[[DA]][] : memref<f32>
// CHECK-NEXT: %[[VB:.*]] = memref.load %[[DB]][] : memref<f32>
// CHECK-NEXT: %[[VAL:.*]] = memref.load %[[AL]][] : memref<f32>
// CHECK-NEXT: %[[AB:.*]] = arith.mulf %[[VA]], %[[VB]] : f32
// CHECK-NEXT: %[[ALPHA:.*]] = arith.mulf %[[AB]], %[[VAL]] : f32
// CHECK: %[[DOT:.*]] = vector.reduction <add>
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[ALPHA]], %[[DOT]] : f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: memref.store %[[H]], %[[C]]
func.func @matmul_nvfp4_alpha(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E4M3FN>, %da: memref<f32>, %db: memref<f32>, %alpha: memref<f32>, %c: memref<128x64xf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<f32>) b_decode_scale(%db : memref<f32>) alpha(%alpha : memref<f32>) outs(%c : memref<128x64xf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  return
}

// -----

// Independent groups: each group is a matmul of its own (its own f32
// buffers, shapes and alpha[g]), one after the other.
// CHECK-LABEL: func @grouped_independent
// CHECK-SAME: %[[AL:[^:]*]]: memref<2xf32>, %[[C0:[^:]*]]: memref<40x32xbf16>, %[[C1:[^:]*]]: memref<72x48xbf16>)
// CHECK: %[[A0:.*]] = memref.alloc() {alignment = 64 : i64} : memref<40x64xf32>
// CHECK-NEXT: %[[B0:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x64xf32>
// CHECK: %[[G0:.*]] = memref.load %[[AL]][%c0] : memref<2xf32>
// CHECK: arith.mulf %[[G0]], %{{.*}} : f32
// CHECK: memref.store %{{.*}}, %[[C0]]
// CHECK: memref.dealloc %[[A0]] : memref<40x64xf32>
// CHECK-NEXT: memref.dealloc %[[B0]] : memref<32x64xf32>
// CHECK-NEXT: %[[A1:.*]] = memref.alloc() {alignment = 64 : i64} : memref<72x64xf32>
// CHECK-NEXT: %[[B1:.*]] = memref.alloc() {alignment = 64 : i64} : memref<48x64xf32>
// CHECK: %[[G1:.*]] = memref.load %[[AL]][%c1] : memref<2xf32>
// CHECK: arith.mulf %[[G1]], %{{.*}} : f32
// CHECK: memref.store %{{.*}}, %[[C1]]
// CHECK: memref.dealloc %[[A1]] : memref<72x64xf32>
// CHECK-NEXT: memref.dealloc %[[B1]] : memref<48x64xf32>
func.func @grouped_independent(%a0: memref<40x64xf4E2M1FN>, %sa0: memref<1x1x32x4x4xf8E4M3FN>, %a1: memref<72x64xf4E2M1FN>, %sa1: memref<1x1x32x4x4xf8E4M3FN>, %b0: memref<32x64xf4E2M1FN>, %sb0: memref<1x1x32x4x4xf8E4M3FN>, %b1: memref<48x64xf4E2M1FN>, %sb1: memref<1x1x32x4x4xf8E4M3FN>, %alpha: memref<2xf32>, %c0: memref<40x32xbf16>, %c1: memref<72x48xbf16>) {
  nvfp4.grouped_matmul independent a(%a0, %a1 : memref<40x64xf4E2M1FN>, memref<72x64xf4E2M1FN>) a_scales(%sa0, %sa1 : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) b(%b0, %b1 : memref<32x64xf4E2M1FN>, memref<48x64xf4E2M1FN>) b_scales(%sb0, %sb1 : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) alpha(%alpha : memref<2xf32>) outs(%c0, %c1 : memref<40x32xbf16>, memref<72x48xbf16>)
  return
}

// -----

// Contiguous groups: A is dequantized once; per group g, B[g] is, and the
// rows [off[g], off[g+1]) (each clamped to [previous, S]) get
// fl(dB[g] * dot) + fl(2 * acc), bf16.
// CHECK-LABEL: func @grouped_contiguous
// CHECK-SAME: (%[[A:[^:]*]]: memref<256x32xi8>, %{{[^:]*}}: memref<2x1x32x4x4xi8>, %[[B:[^:]*]]: memref<3x96x32xi8>, %{{[^:]*}}: memref<3x1x1x32x4x4xi8>, %[[OFF:[^:]*]]: memref<4xi32>, %[[DB:[^:]*]]: memref<3xf32>, %[[ACC:[^:]*]]: memref<256x96xbf16>, %[[C:[^:]*]]: memref<256x96xbf16>)
// CHECK-DAG: %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[AH:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256x64xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 {
// CHECK: memref.load %[[A]]
// CHECK: scf.for %[[G:.*]] = %c0 to %c3 step %c1 {
// CHECK: memref.load %[[B]][%[[G]], %{{.*}}, %{{.*}}] : memref<3x96x32xi8>
// CHECK: %[[DG:.*]] = memref.load %[[DB]][%[[G]]] : memref<3xf32>
// CHECK-NEXT: %[[LO0:.*]] = memref.load %[[OFF]][%[[G]]] : memref<4xi32>
// CHECK-NEXT: %[[LO1:.*]] = arith.index_cast %[[LO0]] : i32 to index
// CHECK-NEXT: %[[LO2:.*]] = arith.maxsi %[[LO1]], %c0 : index
// CHECK-NEXT: %[[LO:.*]] = arith.minsi %[[LO2]], %c256 : index
// CHECK-NEXT: %[[G1:.*]] = arith.addi %[[G]], %c1 : index
// CHECK-NEXT: %[[HI0:.*]] = memref.load %[[OFF]][%[[G1]]] : memref<4xi32>
// CHECK-NEXT: %[[HI1:.*]] = arith.index_cast %[[HI0]] : i32 to index
// CHECK-NEXT: %[[HI2:.*]] = arith.maxsi %[[HI1]], %[[LO]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.minsi %[[HI2]], %c256 : index
// CHECK: scf.for %[[M:.*]] = %[[LO]] to %[[HI]] step %c1 {
// CHECK-NEXT: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK: vector.load %[[AH]][%[[M]], %{{.*}}]
// CHECK: %[[DOT:.*]] = vector.reduction <add>
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[DG]], %[[DOT]] : f32
// CHECK-NEXT: %[[CIN:.*]] = memref.load %[[ACC]][%[[M]], %[[N]]] : memref<256x96xbf16>
// CHECK-NEXT: %[[CF:.*]] = arith.extf %[[CIN]] : bf16 to f32
// CHECK-NEXT: %[[BC:.*]] = arith.mulf %[[CF]], %[[BETA]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[V]], %[[BC]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT: memref.store %[[T]], %[[C]][%[[M]], %[[N]]] : memref<256x96xbf16>
func.func @grouped_contiguous(%a: memref<256x64xf4E2M1FN>, %sa: memref<2x1x32x4x4xf8E4M3FN>, %b: memref<3x96x64xf4E2M1FN>, %sb: memref<3x1x1x32x4x4xf8E4M3FN>, %off: memref<4xi32>, %db: memref<3xf32>, %acc: memref<256x96xbf16>, %c: memref<256x96xbf16>) {
  nvfp4.grouped_matmul contiguous a(%a : memref<256x64xf4E2M1FN>) a_scales(%sa : memref<2x1x32x4x4xf8E4M3FN>) b(%b : memref<3x96x64xf4E2M1FN>) b_scales(%sb : memref<3x1x1x32x4x4xf8E4M3FN>) group_offsets(%off : memref<4xi32>) b_decode_scale(%db : memref<3xf32>) acc(%acc : memref<256x96xbf16>) outs(%c : memref<256x96xbf16>) {beta = 2.000000e+00 : f32}
  return
}

// -----

// Masked groups: per group g, its first min(max(masked_m[g], 0), maxM)
// rows of A[g] are dequantized and multiplied; the rows past it get
// beta * acc only.
// CHECK-LABEL: func @grouped_masked
// CHECK-SAME: (%[[A:[^:]*]]: memref<3x128x32xi8>, %{{[^:]*}}: memref<3x1x1x32x4x4xi8>, %{{[^:]*}}: memref<3x96x32xi8>, %{{[^:]*}}: memref<3x1x1x32x4x4xi8>, %[[MM:[^:]*]]: memref<3xi32>, %[[ACC:[^:]*]]: memref<3x128x96xf32>, %[[C:[^:]*]]: memref<3x128x96xf32>)
// CHECK-DAG: %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: scf.for %[[G:.*]] = %c0 to %c3 step %c1 {
// CHECK: %[[M0:.*]] = memref.load %[[MM]][%[[G]]] : memref<3xi32>
// CHECK-NEXT: %[[M1:.*]] = arith.index_cast %[[M0]] : i32 to index
// CHECK-NEXT: %[[M2:.*]] = arith.maxsi %[[M1]], %c0 : index
// CHECK-NEXT: %[[VALID:.*]] = arith.minsi %[[M2]], %c128 : index
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %[[VALID]] step %c1 {
// CHECK: memref.load %[[A]][%[[G]], %[[R]], %{{.*}}] : memref<3x128x32xi8>
// CHECK: scf.for %[[M:.*]] = %c0 to %[[VALID]] step %c1 {
// CHECK: vector.reduction <add>
// CHECK: memref.store %{{.*}}, %[[C]][%[[G]], %[[M]], %{{.*}}] : memref<3x128x96xf32>
// CHECK: scf.for %[[P:.*]] = %[[VALID]] to %c128 step %c1 {
// CHECK-NEXT: scf.for %[[N:.*]] = %c0 to %c96 step %c1 {
// CHECK-NEXT: %[[CIN:.*]] = memref.load %[[ACC]][%[[G]], %[[P]], %[[N]]] : memref<3x128x96xf32>
// CHECK-NEXT: %[[BC:.*]] = arith.mulf %[[CIN]], %[[BETA]] : f32
// CHECK-NEXT: memref.store %[[BC]], %[[C]][%[[G]], %[[P]], %[[N]]] : memref<3x128x96xf32>
func.func @grouped_masked(%a: memref<3x128x64xf4E2M1FN>, %sa: memref<3x1x1x32x4x4xf8E4M3FN>, %b: memref<3x96x64xf4E2M1FN>, %sb: memref<3x1x1x32x4x4xf8E4M3FN>, %mm: memref<3xi32>, %acc: memref<3x128x96xf32>, %c: memref<3x128x96xf32>) {
  nvfp4.grouped_matmul masked a(%a : memref<3x128x64xf4E2M1FN>) a_scales(%sa : memref<3x1x1x32x4x4xf8E4M3FN>) b(%b : memref<3x96x64xf4E2M1FN>) b_scales(%sb : memref<3x1x1x32x4x4xf8E4M3FN>) masked_m(%mm : memref<3xi32>) acc(%acc : memref<3x128x96xf32>) outs(%c : memref<3x128x96xf32>) {beta = 5.000000e-01 : f32}
  return
}
