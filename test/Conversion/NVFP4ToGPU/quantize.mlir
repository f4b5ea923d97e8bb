// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="fused-quantize-max-elements=0" --canonicalize | FileCheck %s

// convert-nvfp4-to-gpu on each quantize variant: the kernels it launches
// (the amax reduction where there is no caller amax, one thread per scale
// tile) and, inside them, the arithmetic that tells the variant apart (the
// tile body is the CPU lowering's, test/Conversion/NVFP4ToSCF/quantize.mlir).
// NVFP4 1x16 without a caller amax: a device word for the amax bits and
// scratch declared kept zero (no memset: the amax kernel's last block
// leaves it zero): the running max (word 0) and, a 128-byte line on, the
// blocks done (word 32); a grid-stride kernel over the 32 chunks, a 5-step
// xor-shuffle max per warp, the warps' maxima through workgroup memory;
// thread 0 adds the block's to the running max (one atomic per block),
// fences, counts the block, and the last block reads the max into the amax
// word and sets both scratch words to 0; then one thread per
// block (32, walked from the end), which derives S_enc from the amax bits,
// stores S_dec from the first tile and runs the CPU body; the words are
// freed.
// CHECK-LABEL: func @nvfp4_1x16
// CHECK-SAME: (%[[X:[^:]*]]: memref<16x32xbf16>, %[[Q:[^:]*]]: memref<16x16xi8>, %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C2688:.*]] = arith.constant 2.688000e+03 : f32
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK: %[[BITS:.*]] = gpu.alloc () : memref<1xi32>
// CHECK-NEXT: %[[SCRATCH:.*]] = gpu.alloc () : memref<33xi32>
// CHECK-NEXT: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[SCRATCH]]
// CHECK-NEXT: %[[SA:.*]] = arith.index_cast %[[SP]] : index to i64
// CHECK-NEXT: call @nvfp4KeptZero(%[[SA]], %c132_i64) : (i64, i64) -> ()
// CHECK-NEXT: gpu.launch blocks(%{{.*}}, %[[BY:.*]], %{{.*}}) in (%[[GX:.*]] = %{{.*}}, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[WG:.*]] : memref<8xi32, #gpu.address_space<workgroup>>) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32 step %{{.*}} iter_args
// CHECK: arith.maxnumf
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NEXT: %[[WMAX:.*]] = arith.maxnumf
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[TX]], %c32 : index
// CHECK-NEXT: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT: scf.if %[[LANE0]] {
// CHECK-NEXT: %[[WARP:.*]] = arith.divui %[[TX]], %c32 : index
// CHECK-NEXT: %[[WBITS:.*]] = arith.bitcast %[[WMAX]] : f32 to i32
// CHECK-NEXT: memref.store %[[WBITS]], %[[WG]][%[[WARP]]] : memref<8xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NEXT: %[[T0:.*]] = arith.cmpi eq, %[[TX]], %c0 : index
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT: %[[W0:.*]] = memref.load %[[WG]][%c0]
// CHECK: %[[W7:.*]] = memref.load %[[WG]][%c7]
// CHECK-NEXT: %[[BMAX:.*]] = arith.maxui %{{.*}}, %[[W7]] : i32
// CHECK-NEXT: memref.atomic_rmw maxu %[[BMAX]], %[[SCRATCH]][%c0] : (i32, memref<33xi32>) -> i32
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK-NEXT: %[[DONE:.*]] = memref.atomic_rmw addi %c1_i32, %[[SCRATCH]][%c32] : (i32, memref<33xi32>) -> i32
// CHECK-NEXT: %[[N1:.*]] = arith.subi %[[GX]], %c1 : index
// CHECK-NEXT: %[[DI:.*]] = arith.index_cast %[[DONE]] : i32 to index
// CHECK-NEXT: %[[LASTB:.*]] = arith.cmpi eq, %[[DI]], %[[N1]] : index
// CHECK-NEXT: scf.if %[[LASTB]] {
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK-NEXT: %[[MAX:.*]] = memref.atomic_rmw ori %c0_i32, %[[SCRATCH]][%c0] : (i32, memref<33xi32>) -> i32
// CHECK-NEXT: memref.store %[[MAX]], %[[BITS]][%c0] : memref<1xi32>
// CHECK-NEXT: memref.store %c0_i32, %[[SCRATCH]][%c0] : memref<33xi32>
// CHECK-NEXT: memref.store %c0_i32, %[[SCRATCH]][%c32] : memref<33xi32>
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c31, %[[T]] : index
// CHECK: %[[A:.*]] = memref.load %[[BITS]][%c0] : memref<1xi32>
// CHECK-NEXT: %[[AF:.*]] = arith.bitcast %[[A]] : i32 to f32
// CHECK-NEXT: arith.divf %[[C2688]], %[[AF]] : f32
// CHECK: %[[SDEC:.*]] = arith.divf
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][] : memref<f32>
// CHECK: arith.mulf %{{.*}}, %[[SIXTH]] : f32
// CHECK: vector.store %{{.*}}, %[[Q]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<16x16xi8>, vector<8xi8>
// CHECK: memref.store %{{.*}}, %[[S]][%{{.*}}, %{{.*}}] : memref<16x2xi8>
// CHECK: gpu.terminator
// CHECK: gpu.dealloc %[[BITS]] : memref<1xi32>
// CHECK-NEXT: gpu.dealloc %[[SCRATCH]] : memref<33xi32>
// CHECK-NEXT: return
func.func @nvfp4_1x16(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// -----

// 16x16 tiles: one thread per tile (2 tile rows x 2 blocks), each looping
// over its min(16, 20 - 16t) rows.
// CHECK-LABEL: func @nvfp4_16x16
// CHECK-SAME: %[[S:[^:]*]]: memref<20x2xi8>
// CHECK: %[[BITS:.*]] = gpu.alloc () : memref<1xi32>
// CHECK-NEXT: %[[SCRATCH:.*]] = gpu.alloc () : memref<33xi32>
// CHECK: call @nvfp4KeptZero(%{{.*}}, %c132_i64)
// CHECK-NEXT: gpu.launch blocks(%{{.*}}, %[[BY:.*]], %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c40 step %{{.*}} iter_args
// CHECK: arith.maxnumf
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NEXT: %[[WMAX:.*]] = arith.maxnumf
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[TX]], %c32 : index
// CHECK-NEXT: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT: scf.if %[[LANE0]] {
// CHECK-NEXT: arith.divui %[[TX]], %c32 : index
// CHECK-NEXT: %[[WBITS:.*]] = arith.bitcast %[[WMAX]] : f32 to i32
// CHECK: memref.atomic_rmw maxu %{{.*}}, %[[SCRATCH]][%c0] : (i32, memref<33xi32>) -> i32
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c4 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c3, %[[T]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %c20, %[[FIRST:.*]] : index
// CHECK-NEXT: %[[N:.*]] = arith.minsi %[[LEFT]], %c16 : index
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %[[N]] step %c1 iter_args
// CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 {
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[I]] : index
// CHECK: memref.store %{{.*}}, %[[S]][%[[ROW]], %{{.*}}] : memref<20x2xi8>
func.func @nvfp4_16x16(%x: memref<20x32xbf16>, %q: memref<20x32xf4E2M1FN>, %s: memref<20x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<20x32xf4E2M1FN>, memref<20x2xf8E4M3FN>, memref<f32>) {block = array<i64: 16, 16>} : memref<20x32xbf16>
  return
}

// -----

// MXFP4 rceil: no amax kernel, no decode scale; one thread per block with
// TE's float_to_e8m0 of fl(amax_b * fl(1/6)).
// CHECK-LABEL: func @mxfp4_rceil
// CHECK-SAME: %[[S:[^:]*]]: memref<16x2xi8>)
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-DAG: %[[MANT:.*]] = arith.constant 8388607 : i32
// CHECK-NOT: gpu.alloc
// CHECK-NOT: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: %[[V:.*]] = arith.mulf %{{.*}}, %[[SIXTH]] : f32
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[V]] : f32 to i32
// CHECK-NEXT: %[[E0:.*]] = arith.shrui %[[BITS]], %c23_i32 : i32
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[E0]], %c255_i32 : i32
// CHECK-NEXT: arith.andi %[[BITS]], %[[MANT]] : i32
// CHECK: memref.store %{{.*}}, %[[S]][%{{.*}}, %{{.*}}] : memref<16x2xi8>
// CHECK-NOT: gpu.launch
func.func @mxfp4_rceil(%x: memref<16x64xf32>, %q: memref<16x64xf4E2M1FN>, %s: memref<16x2xf8E8M0FNU>) {
  nvfp4.quantize mxfp4 %x outs(%q, %s : memref<16x64xf4E2M1FN>, memref<16x2xf8E8M0FNU>) : memref<16x64xf32>
  return
}

// -----

// MXFP4 floor: the exponent of amax_b itself, minus 2, clamped.
// CHECK-LABEL: func @mxfp4_floor
// CHECK-NOT: arith.constant 0.166666672
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: %[[E0:.*]] = arith.shrui %{{.*}}, %c23_i32 : i32
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[E0]], %c255_i32 : i32
// CHECK-NEXT: %[[C0:.*]] = arith.subi %[[E]], %c2_i32 : i32
// CHECK-NEXT: arith.maxsi %[[C0]], %c0_i32 : i32
func.func @mxfp4_floor(%x: memref<16x64xf32>, %q: memref<16x64xf4E2M1FN>, %s: memref<16x2xf8E8M0FNU>) {
  nvfp4.quantize mxfp4 %x outs(%q, %s : memref<16x64xf4E2M1FN>, memref<16x2xf8E8M0FNU>) {scale_rule = #nvfp4.scale_rule<floor>} : memref<16x64xf32>
  return
}

// -----

// Stochastic rounding: the tile thread runs Philox4x32-10 on its chunk's
// counter with the seed as key (10 rounds, 0xD2511F53 / 0xCD9E8D57,
// key bumped by 0x9E3779B9 / 0xBB67AE85), then u = r/256.
// CHECK-LABEL: func @stochastic
// CHECK-SAME: %[[SEED:[^:]*]]: i64
// CHECK-DAG: %[[M0:.*]] = arith.constant -766435501 : i32
// CHECK-DAG: %[[M1:.*]] = arith.constant -845247145 : i32
// CHECK-DAG: %[[W0:.*]] = arith.constant -1640531527 : i32
// CHECK-DAG: %[[W1:.*]] = arith.constant -1150833019 : i32
// CHECK-DAG: %[[U:.*]] = arith.constant 3.906250e-03 : f32
// CHECK: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c31, %[[T]] : index
// CHECK: %[[K0:.*]] = arith.trunci %[[SEED]] : i64 to i32
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[SEED]], %c32_i64 : i64
// CHECK-NEXT: %[[K1:.*]] = arith.trunci %[[SH]] : i64 to i32
// CHECK-NEXT: arith.mului_extended %{{.*}}, %[[M0]] : i32
// CHECK: arith.addi %[[K0]], %[[W0]] : i32
// CHECK-NEXT: arith.addi %[[K1]], %[[W1]] : i32
// CHECK-COUNT-9: arith.mului_extended %{{.*}}, %[[M1]] : i32
// CHECK-NOT: arith.mului_extended
// CHECK: %[[RF:.*]] = arith.uitofp %{{.*}} : i32 to f32
// CHECK-NEXT: arith.mulf %[[RF]], %[[U]] : f32
// CHECK: gpu.terminator
func.func @stochastic(%x: memref<16x32xbf16>, %seed: i64, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x seed %seed outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {rounding = #nvfp4.rounding<stochastic>} : memref<16x32xbf16>
  return
}

// -----

// Hadamard: in the amax kernel and again in the tile kernel, each chunk is
// transformed (x/16, signed in-order sum with the signs of column 0 of
// diag(s) * H16, times 4, rounded to bf16) before anything looks at it.
// CHECK-LABEL: func @hadamard
// CHECK-DAG: %[[SIXTEENTH:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: gpu.launch blocks
// CHECK: %[[H0:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H1:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H2:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H3:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H4:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H5:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H6:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H7:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H8:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H9:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H10:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H11:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H12:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H13:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H14:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H15:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[H0]], %[[H1]] : f32
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[H2]] : f32
// CHECK-NEXT: %[[A3:.*]] = arith.subf %[[A2]], %[[H3]] : f32
// CHECK-NEXT: %[[A4:.*]] = arith.addf %[[A3]], %[[H4]] : f32
// CHECK-NEXT: %[[A5:.*]] = arith.subf %[[A4]], %[[H5]] : f32
// CHECK-NEXT: %[[A6:.*]] = arith.subf %[[A5]], %[[H6]] : f32
// CHECK-NEXT: %[[A7:.*]] = arith.subf %[[A6]], %[[H7]] : f32
// CHECK-NEXT: %[[A8:.*]] = arith.subf %[[A7]], %[[H8]] : f32
// CHECK-NEXT: %[[A9:.*]] = arith.subf %[[A8]], %[[H9]] : f32
// CHECK-NEXT: %[[A10:.*]] = arith.subf %[[A9]], %[[H10]] : f32
// CHECK-NEXT: %[[A11:.*]] = arith.addf %[[A10]], %[[H11]] : f32
// CHECK-NEXT: %[[A12:.*]] = arith.subf %[[A11]], %[[H12]] : f32
// CHECK-NEXT: %[[A13:.*]] = arith.addf %[[A12]], %[[H13]] : f32
// CHECK-NEXT: %[[A14:.*]] = arith.subf %[[A13]], %[[H14]] : f32
// CHECK-NEXT: %[[A15:.*]] = arith.subf %[[A14]], %[[H15]] : f32
// CHECK-NEXT: %[[T15:.*]] = arith.mulf %[[A15]], %[[FOUR]] : f32
// CHECK-NEXT: %[[RND:.*]] = arith.truncf %[[T15]] : f32 to bf16
// CHECK-NEXT: arith.extf %[[RND]] : bf16 to f32
// CHECK: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c31, %[[T]] : index
// CHECK: %[[H0:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H1:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H2:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H3:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H4:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H5:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H6:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H7:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H8:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H9:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H10:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H11:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H12:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H13:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H14:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H15:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[H0]], %[[H1]] : f32
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[H2]] : f32
// CHECK-NEXT: %[[A3:.*]] = arith.subf %[[A2]], %[[H3]] : f32
// CHECK-NEXT: %[[A4:.*]] = arith.addf %[[A3]], %[[H4]] : f32
// CHECK-NEXT: %[[A5:.*]] = arith.subf %[[A4]], %[[H5]] : f32
// CHECK-NEXT: %[[A6:.*]] = arith.subf %[[A5]], %[[H6]] : f32
// CHECK-NEXT: %[[A7:.*]] = arith.subf %[[A6]], %[[H7]] : f32
// CHECK-NEXT: %[[A8:.*]] = arith.subf %[[A7]], %[[H8]] : f32
// CHECK-NEXT: %[[A9:.*]] = arith.subf %[[A8]], %[[H9]] : f32
// CHECK-NEXT: %[[A10:.*]] = arith.subf %[[A9]], %[[H10]] : f32
// CHECK-NEXT: %[[A11:.*]] = arith.addf %[[A10]], %[[H11]] : f32
// CHECK-NEXT: %[[A12:.*]] = arith.subf %[[A11]], %[[H12]] : f32
// CHECK-NEXT: %[[A13:.*]] = arith.addf %[[A12]], %[[H13]] : f32
// CHECK-NEXT: %[[A14:.*]] = arith.subf %[[A13]], %[[H14]] : f32
// CHECK-NEXT: %[[A15:.*]] = arith.subf %[[A14]], %[[H15]] : f32
// CHECK-NEXT: %[[T15:.*]] = arith.mulf %[[A15]], %[[FOUR]] : f32
// CHECK-NEXT: %[[RND:.*]] = arith.truncf %[[T15]] : f32 to bf16
// CHECK-NEXT: arith.extf %[[RND]] : bf16 to f32
func.func @hadamard(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {hadamard} : memref<16x32xbf16>
  return
}

// -----

// Hadamard on f32 input: the sums stay in fp32, in both kernels.
// CHECK-LABEL: func @hadamard_f32
// CHECK-DAG: %[[SIXTEENTH:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NOT: arith.truncf
// CHECK: gpu.launch blocks
// CHECK: %[[H0:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H1:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H2:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H3:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H4:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H5:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H6:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H7:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H8:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H9:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H10:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H11:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H12:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H13:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H14:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H15:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[H0]], %[[H1]] : f32
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[H2]] : f32
// CHECK-NEXT: %[[A3:.*]] = arith.subf %[[A2]], %[[H3]] : f32
// CHECK-NEXT: %[[A4:.*]] = arith.addf %[[A3]], %[[H4]] : f32
// CHECK-NEXT: %[[A5:.*]] = arith.subf %[[A4]], %[[H5]] : f32
// CHECK-NEXT: %[[A6:.*]] = arith.subf %[[A5]], %[[H6]] : f32
// CHECK-NEXT: %[[A7:.*]] = arith.subf %[[A6]], %[[H7]] : f32
// CHECK-NEXT: %[[A8:.*]] = arith.subf %[[A7]], %[[H8]] : f32
// CHECK-NEXT: %[[A9:.*]] = arith.subf %[[A8]], %[[H9]] : f32
// CHECK-NEXT: %[[A10:.*]] = arith.subf %[[A9]], %[[H10]] : f32
// CHECK-NEXT: %[[A11:.*]] = arith.addf %[[A10]], %[[H11]] : f32
// CHECK-NEXT: %[[A12:.*]] = arith.subf %[[A11]], %[[H12]] : f32
// CHECK-NEXT: %[[A13:.*]] = arith.addf %[[A12]], %[[H13]] : f32
// CHECK-NEXT: %[[A14:.*]] = arith.subf %[[A13]], %[[H14]] : f32
// CHECK-NEXT: %[[A15:.*]] = arith.subf %[[A14]], %[[H15]] : f32
// CHECK-NEXT: %{{.*}} = arith.mulf %[[A15]], %[[FOUR]] : f32
// CHECK-NEXT: %{{.*}} = arith.subf %[[H0]], %[[H1]] : f32
// CHECK: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[H0:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H1:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H2:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H3:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H4:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H5:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H6:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H7:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H8:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H9:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H10:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H11:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H12:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H13:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H14:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[H15:.*]] = arith.mulf %{{.*}}, %[[SIXTEENTH]] : f32
// CHECK-NEXT: %[[A1:.*]] = arith.addf %[[H0]], %[[H1]] : f32
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[H2]] : f32
// CHECK-NEXT: %[[A3:.*]] = arith.subf %[[A2]], %[[H3]] : f32
// CHECK-NEXT: %[[A4:.*]] = arith.addf %[[A3]], %[[H4]] : f32
// CHECK-NEXT: %[[A5:.*]] = arith.subf %[[A4]], %[[H5]] : f32
// CHECK-NEXT: %[[A6:.*]] = arith.subf %[[A5]], %[[H6]] : f32
// CHECK-NEXT: %[[A7:.*]] = arith.subf %[[A6]], %[[H7]] : f32
// CHECK-NEXT: %[[A8:.*]] = arith.subf %[[A7]], %[[H8]] : f32
// CHECK-NEXT: %[[A9:.*]] = arith.subf %[[A8]], %[[H9]] : f32
// CHECK-NEXT: %[[A10:.*]] = arith.subf %[[A9]], %[[H10]] : f32
// CHECK-NEXT: %[[A11:.*]] = arith.addf %[[A10]], %[[H11]] : f32
// CHECK-NEXT: %[[A12:.*]] = arith.subf %[[A11]], %[[H12]] : f32
// CHECK-NEXT: %[[A13:.*]] = arith.addf %[[A12]], %[[H13]] : f32
// CHECK-NEXT: %[[A14:.*]] = arith.subf %[[A13]], %[[H14]] : f32
// CHECK-NEXT: %[[A15:.*]] = arith.subf %[[A14]], %[[H15]] : f32
// CHECK-NEXT: %{{.*}} = arith.mulf %[[A15]], %[[FOUR]] : f32
// CHECK-NEXT: %{{.*}} = arith.subf %[[H0]], %[[H1]] : f32
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @hadamard_f32(%x: memref<16x32xf32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {hadamard} : memref<16x32xf32>
  return
}

// -----

// 4/6, mae: decode_scale = amax / C from the amax bits; per candidate the
// error-domain value fl(fl(e2m1 * sf) * amax) / C, |d| summed; e4 < e6.
// CHECK-LABEL: func @four_over_six_mae
// CHECK-SAME: %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C:.*]] = arith.constant 2.688000e+03 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[ONEHALF:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c31, %[[T]] : index
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%c0] : memref<1xi32>
// CHECK-NEXT: %[[AMAX:.*]] = arith.bitcast %[[A]] : i32 to f32
// CHECK: %[[DS:.*]] = arith.divf %[[AMAX]], %[[C]] : f32
// CHECK: memref.store %[[DS]], %[[D]][] : memref<f32>
// CHECK: %[[B6:.*]] = arith.divf %{{.*}}, %[[SIX]] : f32
// CHECK-NEXT: %[[BASE:.*]] = arith.mulf %[[B6]], %{{.*}} : f32
// CHECK: arith.mulf %[[BASE]], %[[ONEHALF]] : f32
// CHECK: %[[V:.*]] = arith.mulf %{{.*}}, %[[AMAX]] : f32
// CHECK-NEXT: %[[VC:.*]] = arith.divf %[[V]], %[[C]] : f32
// CHECK-NEXT: %[[DIFF:.*]] = arith.subf %[[VC]], %{{.*}} : f32
// CHECK-NEXT: %[[DB:.*]] = arith.bitcast %[[DIFF]] : f32 to i32
// CHECK-NEXT: %[[DA:.*]] = arith.andi %[[DB]], %c2147483647_i32 : i32
// CHECK-NEXT: %[[T:.*]] = arith.bitcast %[[DA]] : i32 to f32
// CHECK-NEXT: arith.addf {{.*}}%[[T]]{{,| }}
// CHECK: %[[PICK:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.select %[[PICK]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.select %[[PICK]], %{{.*}}, %{{.*}} : f32
func.func @four_over_six_mae(%x: memref<16x32xf32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {scale_rule = #nvfp4.scale_rule<four_over_six>} : memref<16x32xf32>
  return
}

// -----

// mse, e4m3_max 256 (C = 1536): the term is d * d.
// CHECK-LABEL: func @four_over_six_mse
// CHECK-SAME: %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C:.*]] = arith.constant 1.536000e+03 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[ONEHALF:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c31, %[[T]] : index
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%c0] : memref<1xi32>
// CHECK-NEXT: %[[AMAX:.*]] = arith.bitcast %[[A]] : i32 to f32
// CHECK: %[[DS:.*]] = arith.divf %[[AMAX]], %[[C]] : f32
// CHECK: memref.store %[[DS]], %[[D]][] : memref<f32>
// CHECK: %[[B6:.*]] = arith.divf %{{.*}}, %[[SIX]] : f32
// CHECK-NEXT: %[[BASE:.*]] = arith.mulf %[[B6]], %{{.*}} : f32
// CHECK: arith.mulf %[[BASE]], %[[ONEHALF]] : f32
// CHECK: %[[V:.*]] = arith.mulf %{{.*}}, %[[AMAX]] : f32
// CHECK-NEXT: %[[VC:.*]] = arith.divf %[[V]], %[[C]] : f32
// CHECK-NEXT: %[[DIFF:.*]] = arith.subf %[[VC]], %{{.*}} : f32
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[DIFF]], %[[DIFF]] : f32
// CHECK-NEXT: arith.addf {{.*}}%[[SQ]]{{,| }}
// CHECK: %[[PICK:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.select %[[PICK]], %{{.*}}, %{{.*}} : i32
func.func @four_over_six_mse(%x: memref<16x32xf32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {scale_rule = #nvfp4.scale_rule<four_over_six>, error_metric = #nvfp4.error_metric<mse>, e4m3_max = 256} : memref<16x32xf32>
  return
}

// -----

// abs_max: |d| combined with fmaxf.
// CHECK-LABEL: func @four_over_six_abs_max
// CHECK-SAME: %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C:.*]] = arith.constant 2.688000e+03 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[ONEHALF:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c31, %[[T]] : index
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%c0] : memref<1xi32>
// CHECK-NEXT: %[[AMAX:.*]] = arith.bitcast %[[A]] : i32 to f32
// CHECK: %[[DS:.*]] = arith.divf %[[AMAX]], %[[C]] : f32
// CHECK: memref.store %[[DS]], %[[D]][] : memref<f32>
// CHECK: %[[B6:.*]] = arith.divf %{{.*}}, %[[SIX]] : f32
// CHECK-NEXT: %[[BASE:.*]] = arith.mulf %[[B6]], %{{.*}} : f32
// CHECK: arith.mulf %[[BASE]], %[[ONEHALF]] : f32
// CHECK: %[[V:.*]] = arith.mulf %{{.*}}, %[[AMAX]] : f32
// CHECK-NEXT: %[[VC:.*]] = arith.divf %[[V]], %[[C]] : f32
// CHECK-NEXT: %[[DIFF:.*]] = arith.subf %[[VC]], %{{.*}} : f32
// CHECK-NEXT: %[[DB:.*]] = arith.bitcast %[[DIFF]] : f32 to i32
// CHECK-NEXT: %[[DA:.*]] = arith.andi %[[DB]], %c2147483647_i32 : i32
// CHECK-NEXT: %[[T:.*]] = arith.bitcast %[[DA]] : i32 to f32
// CHECK-NEXT: arith.maxnumf {{.*}}%[[T]]{{,| }}
// CHECK: %[[PICK:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.select %[[PICK]], %{{.*}}, %{{.*}} : i32
func.func @four_over_six_abs_max(%x: memref<16x32xf32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {scale_rule = #nvfp4.scale_rule<four_over_six>, error_metric = #nvfp4.error_metric<abs_max>} : memref<16x32xf32>
  return
}

// -----

// 4/6 on 16x16 tiles: each tile thread keeps 32 row errors and reduces
// them as TE's shuffle tree (offsets 8, 4, 2, 1) per candidate.
// CHECK-LABEL: func @four_over_six_16x16
// CHECK: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c4 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c3, %[[T]] : index
// CHECK: %[[ROWS:.*]]:32 = scf.for
// CHECK: %[[A6_0:.*]] = arith.addf %[[ROWS]]#0, %[[ROWS]]#8 : f32
// CHECK-NEXT: %[[A6_1:.*]] = arith.addf %[[ROWS]]#1, %[[ROWS]]#9 : f32
// CHECK-NEXT: %[[A6_2:.*]] = arith.addf %[[ROWS]]#2, %[[ROWS]]#10 : f32
// CHECK-NEXT: %[[A6_3:.*]] = arith.addf %[[ROWS]]#3, %[[ROWS]]#11 : f32
// CHECK-NEXT: %[[A6_4:.*]] = arith.addf %[[ROWS]]#4, %[[ROWS]]#12 : f32
// CHECK-NEXT: %[[A6_5:.*]] = arith.addf %[[ROWS]]#5, %[[ROWS]]#13 : f32
// CHECK-NEXT: %[[A6_6:.*]] = arith.addf %[[ROWS]]#6, %[[ROWS]]#14 : f32
// CHECK-NEXT: %[[A6_7:.*]] = arith.addf %[[ROWS]]#7, %[[ROWS]]#15 : f32
// CHECK-NEXT: %[[B6_0:.*]] = arith.addf %[[A6_0]], %[[A6_4]] : f32
// CHECK-NEXT: %[[B6_1:.*]] = arith.addf %[[A6_1]], %[[A6_5]] : f32
// CHECK-NEXT: %[[B6_2:.*]] = arith.addf %[[A6_2]], %[[A6_6]] : f32
// CHECK-NEXT: %[[B6_3:.*]] = arith.addf %[[A6_3]], %[[A6_7]] : f32
// CHECK-NEXT: %[[C6_0:.*]] = arith.addf %[[B6_0]], %[[B6_2]] : f32
// CHECK-NEXT: %[[C6_1:.*]] = arith.addf %[[B6_1]], %[[B6_3]] : f32
// CHECK-NEXT: %[[E6:.*]] = arith.addf %[[C6_0]], %[[C6_1]] : f32
// CHECK-NEXT: %[[A4_0:.*]] = arith.addf %[[ROWS]]#16, %[[ROWS]]#24 : f32
// CHECK-NEXT: %[[A4_1:.*]] = arith.addf %[[ROWS]]#17, %[[ROWS]]#25 : f32
// CHECK-NEXT: %[[A4_2:.*]] = arith.addf %[[ROWS]]#18, %[[ROWS]]#26 : f32
// CHECK-NEXT: %[[A4_3:.*]] = arith.addf %[[ROWS]]#19, %[[ROWS]]#27 : f32
// CHECK-NEXT: %[[A4_4:.*]] = arith.addf %[[ROWS]]#20, %[[ROWS]]#28 : f32
// CHECK-NEXT: %[[A4_5:.*]] = arith.addf %[[ROWS]]#21, %[[ROWS]]#29 : f32
// CHECK-NEXT: %[[A4_6:.*]] = arith.addf %[[ROWS]]#22, %[[ROWS]]#30 : f32
// CHECK-NEXT: %[[A4_7:.*]] = arith.addf %[[ROWS]]#23, %[[ROWS]]#31 : f32
// CHECK-NEXT: %[[B4_0:.*]] = arith.addf %[[A4_0]], %[[A4_4]] : f32
// CHECK-NEXT: %[[B4_1:.*]] = arith.addf %[[A4_1]], %[[A4_5]] : f32
// CHECK-NEXT: %[[B4_2:.*]] = arith.addf %[[A4_2]], %[[A4_6]] : f32
// CHECK-NEXT: %[[B4_3:.*]] = arith.addf %[[A4_3]], %[[A4_7]] : f32
// CHECK-NEXT: %[[C4_0:.*]] = arith.addf %[[B4_0]], %[[B4_2]] : f32
// CHECK-NEXT: %[[C4_1:.*]] = arith.addf %[[B4_1]], %[[B4_3]] : f32
// CHECK-NEXT: %[[E4:.*]] = arith.addf %[[C4_0]], %[[C4_1]] : f32
// CHECK-NEXT: %[[PICK:.*]] = arith.cmpf olt, %[[E4]], %[[E6]] : f32
func.func @four_over_six_16x16(%x: memref<32x32xf32>, %q: memref<32x32xf4E2M1FN>, %s: memref<32x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<32x32xf4E2M1FN>, memref<32x2xf8E4M3FN>, memref<f32>) {block = array<i64: 16, 16>, scale_rule = #nvfp4.scale_rule<four_over_six>} : memref<32x32xf32>
  return
}

// -----

// A caller amax: no amax buffer or kernel; the tile threads load it, and
// the tiles are walked in order.
// CHECK-LABEL: func @caller_amax
// CHECK-SAME: (%[[X:[^:]*]]: memref<16x32xbf16>, %[[AMAX:[^:]*]]: memref<f32>, %{{[^:]*}}: memref<16x16xi8>, %{{[^:]*}}: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C2688:.*]] = arith.constant 2.688000e+03 : f32
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c32 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NOT: arith.subi %c31
// CHECK: %[[A:.*]] = memref.load %[[AMAX]][] : memref<f32>
// CHECK-NEXT: arith.divf %[[C2688]], %[[A]] : f32
// CHECK: memref.store %{{.*}}, %[[D]][] : memref<f32>
// CHECK-NOT: gpu.launch
// CHECK-NOT: gpu.dealloc
func.func @caller_amax(%x: memref<16x32xbf16>, %amax: memref<f32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x amax %amax : memref<f32> outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// -----

// Swizzled scales: the thread grid covers the padded scale matrix (256 rows
// x 4 blocks = 1024 tiles); real tiles store at the swizzled index, those
// past row 200 store zero bytes (the padding) at the swizzled index.
// CHECK-LABEL: func @swizzled
// CHECK-SAME: %[[S:[^:]*]]: memref<2x1x32x4x4xi8>, %{{[^:]*}}: memref<f32>)
// CHECK: atomic_rmw
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c1024 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c1023, %[[T]] : index
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK-NEXT: %[[TROW:.*]] = arith.divui %{{.*}}, %c4 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.remui %[[TROW]], %c256 : index
// CHECK: %[[REAL:.*]] = arith.andi
// CHECK-NEXT: scf.if %[[REAL]] {
// CHECK: %[[T:.*]] = arith.divui %[[ROW]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[COL]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[ROW]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[ROW]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[COL]], %c4 : index
// CHECK-NEXT: %[[BYTE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK-NEXT: memref.store %[[BYTE]], %[[S]][%[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<2x1x32x4x4xi8>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[PR:.*]] = %[[ROW]] to %{{.*}} step %c1 {
// CHECK-NEXT: %[[PT:.*]] = arith.divui %[[PR]], %c128 : index
// CHECK-NEXT: %[[PCT:.*]] = arith.divui %[[COL]], %c4 : index
// CHECK-NEXT: %[[PR32:.*]] = arith.remui %[[PR]], %c32 : index
// CHECK-NEXT: %[[PR128:.*]] = arith.remui %[[PR]], %c128 : index
// CHECK-NEXT: %[[PQ32:.*]] = arith.divui %[[PR128]], %c32 : index
// CHECK-NEXT: %[[PC4:.*]] = arith.remui %[[COL]], %c4 : index
// CHECK-NEXT: memref.store %c0_i8, %[[S]][%[[PT]], %[[PCT]], %[[PR32]], %[[PQ32]], %[[PC4]]] : memref<2x1x32x4x4xi8>
func.func @swizzled(%x: memref<200x64xbf16>, %q: memref<200x64xf4E2M1FN>, %s: memref<2x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<200x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<200x64xbf16>
  return
}

// -----

// 3-D input: the amax kernel's grid has one row of blocks per batch entry
// (blockIdx.y) and one amax word (and two scratch words) each; tile threads delinearize (batch,
// row, block) and store S_dec[batch].
// CHECK-LABEL: func @batched
// CHECK-SAME: (%[[X:[^:]*]]: memref<3x16x32xf16>, %[[Q:[^:]*]]: memref<3x16x16xi8>, %[[S:[^:]*]]: memref<3x16x2xi8>, %[[D:[^:]*]]: memref<3xf32>)
// CHECK: %[[BITS:.*]] = gpu.alloc () : memref<3xi32>
// CHECK-NEXT: %[[SCRATCH:.*]] = gpu.alloc () : memref<35xi32>
// CHECK: call @nvfp4KeptZero(%{{.*}}, %c140_i64)
// CHECK-NEXT: gpu.launch blocks(%{{.*}}, %[[BY:.*]], %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c3, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32 step %{{.*}} iter_args
// CHECK: arith.maxnumf
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NEXT: %[[WMAX:.*]] = arith.maxnumf
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[TX]], %c32 : index
// CHECK-NEXT: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT: scf.if %[[LANE0]] {
// CHECK-NEXT: arith.divui %[[TX]], %c32 : index
// CHECK-NEXT: %[[WBITS:.*]] = arith.bitcast %[[WMAX]] : f32 to i32
// CHECK: memref.atomic_rmw maxu %{{.*}}, %[[SCRATCH]][%[[BY]]] : (i32, memref<35xi32>) -> i32
// Each entry counts its own blocks (word 32 + entry) and publishes its own
// amax.
// CHECK: %[[CNT:.*]] = arith.addi %[[BY]], %c32 : index
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK-NEXT: memref.atomic_rmw addi %c1_i32, %[[SCRATCH]][%[[CNT]]]
// CHECK: memref.atomic_rmw ori %c0_i32, %[[SCRATCH]][%[[BY]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[BITS]][%[[BY]]] : memref<3xi32>
// CHECK-NEXT: memref.store %c0_i32, %[[SCRATCH]][%[[BY]]]
// CHECK-NEXT: memref.store %c0_i32, %[[SCRATCH]][%[[CNT]]]
// CHECK: gpu.launch blocks
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[T:.*]], %c96 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %{{.*}} = arith.subi %c95, %[[T]] : index
// CHECK: %[[B:.*]] = arith.divui %{{.*}}, %c16 : index
// CHECK: memref.load %[[BITS]][%[[B]]] : memref<3xi32>
// CHECK: memref.store %{{.*}}, %[[D]][%[[B]]] : memref<3xf32>
// CHECK: vector.load %[[X]][%[[B]], %{{.*}}, %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[S]][%[[B]], %{{.*}}, %{{.*}}] : memref<3x16x2xi8>
func.func @batched(%x: memref<3x16x32xf16>, %q: memref<3x16x32xf4E2M1FN>, %s: memref<3x16x2xf8E4M3FN>, %d: memref<3xf32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<3x16x32xf4E2M1FN>, memref<3x16x2xf8E4M3FN>, memref<3xf32>) : memref<3x16x32xf16>
  return
}

// -----

// Row-scaled NVFP4: one kernel, a warp per row of the padded scale grid (256
// rows of the swizzled layout, 4 warps a block, a block row per batch
// entry). Padding rows read row 199; the lanes stride over the row's chunks
// (fmax), a butterfly of shuffles gives every lane the row amax, lane 0 of
// a real row stores its S_dec at [batch, row], and the lanes stride over
// the row's blocks.
// CHECK-LABEL: func @row_scaled
// CHECK-SAME: %[[D:[^:]*]]: memref<2x200xf32>)
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c2, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[T]], %c32 : index
// CHECK-NEXT: %[[WARP:.*]] = arith.divui %[[T]], %c32 : index
// CHECK-NEXT: %[[B4:.*]] = arith.muli %[[BX]], %c4 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[B4]], %[[WARP]] : index
// CHECK-NEXT: %[[READ:.*]] = arith.minsi %[[ROW]], %c199 : index
// CHECK-NEXT: %[[K0:.*]] = arith.muli %[[LANE]], %c16 : index
// CHECK-NEXT: scf.for %[[K:.*]] = %[[K0]] to %c64 step %c512
// CHECK-NEXT: vector.load %{{.*}}[%[[BY]], %[[READ]], %[[K]]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: %[[SENC:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[SDEC:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[REAL:.*]] = arith.cmpi slt, %[[ROW]], %c200 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK-NEXT: %[[STORES:.*]] = arith.andi %[[FIRST]], %[[REAL]] : i1
// CHECK-NEXT: scf.if %[[STORES]] {
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][%[[BY]], %[[ROW]]] : memref<2x200xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %{{.*}} = %[[LANE]] to %c4 step %c32 {
// CHECK-NOT: gpu.launch
func.func @row_scaled(%x: memref<2x200x64xbf16>, %q: memref<2x200x64xf4E2M1FN>, %s: memref<2x2x1x32x4x4xf8E4M3FN>, %d: memref<2x200xf32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<2x200x64xf4E2M1FN>, memref<2x2x1x32x4x4xf8E4M3FN>, memref<2x200xf32>) : memref<2x200x64xbf16>
  return
}
