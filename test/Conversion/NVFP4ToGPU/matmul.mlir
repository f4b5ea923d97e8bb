// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu --canonicalize | FileCheck %s

// convert-nvfp4-to-gpu on the portable matmul kernels: one thread per
// output element, per dense matmul variant and per grouping of
// grouped_matmul (the group lookup of each), with acc/beta and
// alpha/decode scales (docs/spec.md 2.7).
// Dense MXFP4 with acc and beta: one thread per output element (128 x 64
// = 8192, 32 blocks of 256), a loop over the K/32 = 2 blocks decoding both
// UE8M0 scales at the swizzled index, then dot + fl(0.5 * acc).
// CHECK-LABEL: func @matmul_mxfp4_acc
// CHECK-SAME: (%{{[^:]*}}: memref<128x32xi8>, %[[SA:[^:]*]]: memref<1x1x32x4x4xi8>, %{{[^:]*}}: memref<64x32xi8>, %[[SB:[^:]*]]: memref<1x1x32x4x4xi8>, %[[ACC:[^:]*]]: memref<128x64xf32>, %[[C:[^:]*]]: memref<128x64xf32>)
// CHECK-DAG: %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[BX]], %c256 : index
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-NEXT: %[[LIVE:.*]] = arith.cmpi slt, %[[LIN]], %c8192 : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK-NEXT: %[[N:.*]] = arith.remui %[[LIN]], %c64 : index
// CHECK-NEXT: %[[M:.*]] = arith.divui %[[LIN]], %c64 : index
// CHECK-NEXT: %[[DOT:.*]] = scf.for %[[BLK:.*]] = %c0 to %c2 step %c1 iter_args
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[M]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[BLK]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[M]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[M]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[BLK]], %c4 : index
// CHECK-NEXT: %[[SBYTE:.*]] = memref.load %[[SA]][%[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<1x1x32x4x4xi8>
// CHECK-NEXT: %[[E:.*]] = arith.extui %[[SBYTE]] : i8 to i32
// CHECK-NEXT: arith.shli %[[E]], %c23_i32 : i32
// CHECK: memref.load %[[SB]]
// CHECK: %[[CIN:.*]] = memref.load %[[ACC]][%[[M]], %[[N]]] : memref<128x64xf32>
// CHECK-NEXT: %[[BC:.*]] = arith.mulf %[[CIN]], %[[BETA]] : f32
// CHECK-NEXT: %[[V:.*]] = arith.addf %[[DOT]], %[[BC]] : f32
// CHECK-NEXT: memref.store %[[V]], %[[C]][%[[M]], %[[N]]] : memref<128x64xf32>
// CHECK-NOT: gpu.launch
func.func @matmul_mxfp4_acc(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E8M0FNU>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E8M0FNU>, %acc: memref<128x64xf32>, %c: memref<128x64xf32>) {
  nvfp4.matmul %a, %sa, %b, %sb acc(%acc : memref<128x64xf32>) outs(%c : memref<128x64xf32>) {beta = 5.000000e-01 : f32} : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>
  return
}

// -----

// NVFP4 with decode scales and alpha: K/16 = 4 blocks; alpha_eff =
// fl(fl(dA * dB) * alpha) read on the device, applied before the f16 cast.
// CHECK-LABEL: func @matmul_nvfp4_alpha
// CHECK-SAME: %[[DA:[^:]*]]: memref<f32>, %[[DB:[^:]*]]: memref<f32>, %[[AL:[^:]*]]: memref<f32>, %[[C:[^:]*]]: memref<128x64xf16>)
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[BX]], %c256 : index
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-NEXT: %[[LIVE:.*]] = arith.cmpi slt, %[[LIN]], %c8192 : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK: %[[DOT:.*]] = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK: %[[VA:.*]] = memref.load %[[DA]][] : memref<f32>
// CHECK-NEXT: %[[VB:.*]] = memref.load %[[DB]][] : memref<f32>
// CHECK-NEXT: %[[VAL:.*]] = memref.load %[[AL]][] : memref<f32>
// CHECK-NEXT: %[[AB:.*]] = arith.mulf %[[VA]], %[[VB]] : f32
// CHECK-NEXT: %[[ALPHA:.*]] = arith.mulf %[[AB]], %[[VAL]] : f32
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[ALPHA]], %[[DOT]] : f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT: memref.store %[[H]], %[[C]]
func.func @matmul_nvfp4_alpha(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E4M3FN>, %da: memref<f32>, %db: memref<f32>, %alpha: memref<f32>, %c: memref<128x64xf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<f32>) b_decode_scale(%db : memref<f32>) alpha(%alpha : memref<f32>) outs(%c : memref<128x64xf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  return
}

// -----

// Row-scaled A and B: alpha_eff[m, n] = fl(fl(dA[m] * dB[n]) * alpha),
// read by the output's thread at its row and column.
// CHECK-LABEL: func @matmul_row_scaled
// CHECK-SAME: %[[DA:[^:]*]]: memref<128xf32>, %[[DB:[^:]*]]: memref<64xf32>, %[[AL:[^:]*]]: memref<f32>, %[[C:[^:]*]]: memref<128x64xbf16>)
// CHECK: %[[LIN:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: scf.if
// CHECK-NEXT: %[[N:.*]] = arith.remui %[[LIN]], %c64 : index
// CHECK-NEXT: %[[M:.*]] = arith.divui %[[LIN]], %c64 : index
// CHECK-NEXT: %[[DOT:.*]] = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK: %[[VA:.*]] = memref.load %[[DA]][%[[M]]] : memref<128xf32>
// CHECK-NEXT: %[[VB:.*]] = memref.load %[[DB]][%[[N]]] : memref<64xf32>
// CHECK-NEXT: %[[VAL:.*]] = memref.load %[[AL]][] : memref<f32>
// CHECK-NEXT: %[[AB:.*]] = arith.mulf %[[VA]], %[[VB]] : f32
// CHECK-NEXT: %[[ALPHA:.*]] = arith.mulf %[[AB]], %[[VAL]] : f32
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[ALPHA]], %[[DOT]] : f32
func.func @matmul_row_scaled(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E4M3FN>, %da: memref<128xf32>, %db: memref<64xf32>, %alpha: memref<f32>, %c: memref<128x64xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<128xf32>) b_decode_scale(%db : memref<64xf32>) alpha(%alpha : memref<f32>) outs(%c : memref<128x64xbf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  return
}

// -----

// Independent groups: one launch per group, sized by its own output
// (40 x 32, 72 x 48), each scaling by its alpha[g].
// CHECK-LABEL: func @grouped_independent
// CHECK-SAME: %[[AL:[^:]*]]: memref<2xf32>, %[[C0:[^:]*]]: memref<40x32xbf16>, %[[C1:[^:]*]]: memref<72x48xbf16>)
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c5, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[BX]], %c256 : index
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-NEXT: %[[LIVE:.*]] = arith.cmpi slt, %[[LIN]], %c1280 : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK: %[[G0:.*]] = memref.load %[[AL]][%c0] : memref<2xf32>
// CHECK-NEXT: %[[V0:.*]] = arith.mulf %[[G0]], %{{.*}} : f32
// CHECK-NEXT: %[[T0:.*]] = arith.truncf %[[V0]] : f32 to bf16
// CHECK-NEXT: memref.store %[[T0]], %[[C0]][%{{.*}}, %{{.*}}] : memref<40x32xbf16>
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c14, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: arith.cmpi slt, %{{.*}}, %c3456 : index
// CHECK: %[[G1:.*]] = memref.load %[[AL]][%c1] : memref<2xf32>
// CHECK-NEXT: %[[V1:.*]] = arith.mulf %[[G1]], %{{.*}} : f32
// CHECK-NEXT: %[[T1:.*]] = arith.truncf %[[V1]] : f32 to bf16
// CHECK-NEXT: memref.store %[[T1]], %[[C1]][%{{.*}}, %{{.*}}] : memref<72x48xbf16>
// CHECK-NOT: gpu.launch
func.func @grouped_independent(%a0: memref<40x64xf4E2M1FN>, %sa0: memref<1x1x32x4x4xf8E4M3FN>, %a1: memref<72x64xf4E2M1FN>, %sa1: memref<1x1x32x4x4xf8E4M3FN>, %b0: memref<32x64xf4E2M1FN>, %sb0: memref<1x1x32x4x4xf8E4M3FN>, %b1: memref<48x64xf4E2M1FN>, %sb1: memref<1x1x32x4x4xf8E4M3FN>, %alpha: memref<2xf32>, %c0: memref<40x32xbf16>, %c1: memref<72x48xbf16>) {
  nvfp4.grouped_matmul independent a(%a0, %a1 : memref<40x64xf4E2M1FN>, memref<72x64xf4E2M1FN>) a_scales(%sa0, %sa1 : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) b(%b0, %b1 : memref<32x64xf4E2M1FN>, memref<48x64xf4E2M1FN>) b_scales(%sb0, %sb1 : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) alpha(%alpha : memref<2xf32>) outs(%c0, %c1 : memref<40x32xbf16>, memref<72x48xbf16>)
  return
}

// -----

// Contiguous groups: one thread per (row, n) of the S x N output; the
// thread finds its group as the last g whose rows hold m, read as every
// lowering reads them ([clamp(off[g], 0, S), clamp(off[g+1], that, S))):
// -1, none, nothing written; then reads B[g], dB[g], and adds fl(2 * acc).
// Masked rows count as clamp(masked_m[g], 0, maxM).
// CHECK-LABEL: func @grouped_contiguous
// CHECK-SAME: %[[B:[^:]*]]: memref<3x96x32xi8>, %{{[^:]*}}: memref<3x1x1x32x4x4xi8>, %[[OFF:[^:]*]]: memref<4xi32>, %[[DB:[^:]*]]: memref<3xf32>, %[[ACC:[^:]*]]: memref<256x96xbf16>, %[[C:[^:]*]]: memref<256x96xbf16>)
// CHECK-DAG: %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c96, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[BX]], %c256 : index
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-NEXT: %[[LIVE:.*]] = arith.cmpi slt, %[[LIN]], %c24576 : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK-NEXT: %[[N:.*]] = arith.remui %[[LIN]], %c96 : index
// CHECK-NEXT: %[[M:.*]] = arith.divui %[[LIN]], %c96 : index
// CHECK-NEXT: %[[G:.*]] = scf.for %[[I:.*]] = %c0 to %c3 step %c1 iter_args(%[[FOUND:.*]] = %c-1) -> (index) {
// CHECK-NEXT: %[[LO0:.*]] = memref.load %[[OFF]][%[[I]]] : memref<4xi32>
// CHECK-NEXT: %[[LO1:.*]] = arith.index_cast %[[LO0]] : i32 to index
// CHECK-NEXT: %[[LO2:.*]] = arith.maxsi %[[LO1]], %c0 : index
// CHECK-NEXT: %[[LO:.*]] = arith.minsi %[[LO2]], %c256 : index
// CHECK-NEXT: %[[I1:.*]] = arith.addi %[[I]], %c1 : index
// CHECK-NEXT: %[[HI0:.*]] = memref.load %[[OFF]][%[[I1]]] : memref<4xi32>
// CHECK-NEXT: %[[HI1:.*]] = arith.index_cast %[[HI0]] : i32 to index
// CHECK-NEXT: %[[HI2:.*]] = arith.maxsi %[[HI1]], %[[LO]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.minsi %[[HI2]], %c256 : index
// CHECK-NEXT: %[[BELOW:.*]] = arith.cmpi slt, %[[M]], %[[HI]] : index
// CHECK-NEXT: %[[ABOVE:.*]] = arith.cmpi sle, %[[LO]], %[[M]] : index
// CHECK-NEXT: %[[OWNS:.*]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[OWNS]], %[[I]], %[[FOUND]] : index
// CHECK-NEXT: scf.yield %[[SEL]] : index
// CHECK: %[[HAS:.*]] = arith.cmpi sge, %[[G]], %c0 : index
// CHECK-NEXT: scf.if %[[HAS]] {
// CHECK: memref.load %[[B]][%[[G]], %[[N]], %{{.*}}] : memref<3x96x32xi8>
// CHECK: %[[DG:.*]] = memref.load %[[DB]][%[[G]]] : memref<3xf32>
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[DG]], %{{.*}} : f32
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

// Masked groups: one thread per (g, m, n) of the G x maxM x N output; rows
// m < masked_m[g] get the dot product plus fl(0.5 * acc), the others
// fl(0 * 0) + fl(0.5 * acc).
// CHECK-LABEL: func @grouped_masked
// CHECK-SAME: (%[[A:[^:]*]]: memref<3x128x32xi8>, %{{[^:]*}}: memref<3x1x1x32x4x4xi8>, %{{[^:]*}}: memref<3x96x32xi8>, %{{[^:]*}}: memref<3x1x1x32x4x4xi8>, %[[MM:[^:]*]]: memref<3xi32>, %[[ACC:[^:]*]]: memref<3x128x96xf32>, %[[C:[^:]*]]: memref<3x128x96xf32>)
// CHECK-DAG: %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c144, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) {
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[BX]], %c256 : index
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// CHECK-NEXT: %[[LIVE:.*]] = arith.cmpi slt, %[[LIN]], %c36864 : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK-NEXT: %[[N:.*]] = arith.remui %[[LIN]], %c96 : index
// CHECK-NEXT: %[[GM:.*]] = arith.divui %[[LIN]], %c96 : index
// CHECK-NEXT: %[[M:.*]] = arith.remui %[[GM]], %c128 : index
// CHECK-NEXT: %[[G:.*]] = arith.divui %[[GM]], %c128 : index
// CHECK-NEXT: %[[V0:.*]] = memref.load %[[MM]][%[[G]]] : memref<3xi32>
// CHECK-NEXT: %[[V1:.*]] = arith.index_cast %[[V0]] : i32 to index
// CHECK-NEXT: %[[V2:.*]] = arith.maxsi %[[V1]], %c0 : index
// CHECK-NEXT: %[[VALID:.*]] = arith.minsi %[[V2]], %c128 : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[M]], %[[VALID]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: memref.load %[[A]][%[[G]], %[[M]], %{{.*}}] : memref<3x128x32xi8>
// CHECK: %[[CIN:.*]] = memref.load %[[ACC]][%[[G]], %[[M]], %[[N]]] : memref<3x128x96xf32>
// CHECK-NEXT: %[[BC:.*]] = arith.mulf %[[CIN]], %[[BETA]] : f32
// CHECK-NEXT: %[[V:.*]] = arith.addf %{{.*}}, %[[BC]] : f32
// CHECK-NEXT: memref.store %[[V]], %[[C]][%[[G]], %[[M]], %[[N]]] : memref<3x128x96xf32>
// Rows past masked_m take no product: beta * acc itself (no 0 added, which
// would turn a -0 into +0; the CPU and sm_90a lowerings agree).
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[CIN2:.*]] = memref.load %[[ACC]][%[[G]], %[[M]], %[[N]]] : memref<3x128x96xf32>
// CHECK-NEXT: %[[BC2:.*]] = arith.mulf %[[CIN2]], %[[BETA]] : f32
// CHECK-NEXT: memref.store %[[BC2]], %[[C]][%[[G]], %[[M]], %[[N]]] : memref<3x128x96xf32>
func.func @grouped_masked(%a: memref<3x128x64xf4E2M1FN>, %sa: memref<3x1x1x32x4x4xf8E4M3FN>, %b: memref<3x96x64xf4E2M1FN>, %sb: memref<3x1x1x32x4x4xf8E4M3FN>, %mm: memref<3xi32>, %acc: memref<3x128x96xf32>, %c: memref<3x128x96xf32>) {
  nvfp4.grouped_matmul masked a(%a : memref<3x128x64xf4E2M1FN>) a_scales(%sa : memref<3x1x1x32x4x4xf8E4M3FN>) b(%b : memref<3x96x64xf4E2M1FN>) b_scales(%sb : memref<3x1x1x32x4x4xf8E4M3FN>) masked_m(%mm : memref<3xi32>) acc(%acc : memref<3x128x96xf32>) outs(%c : memref<3x128x96xf32>) {beta = 5.000000e-01 : f32}
  return
}
