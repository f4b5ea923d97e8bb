// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf --canonicalize | FileCheck %s

// convert-nvfp4-to-scf on each quantize variant (docs/spec.md 2.2-2.5): one
// function per variant, checking the loops it must produce and the
// arithmetic that tells it apart from the others. --canonicalize hoists
// and deduplicates the constants, so they are matched once per function.
// NVFP4, 1x16 blocks, row-major scales: the tensor amax (rows x 16-wide
// chunks, fmax of |x|), S_enc = min(2688 / amax, FLT_MAX) with the zero
// guards, S_dec = 1 / S_enc stored, then one (row, block) loop nest whose
// block scale is e4m3(amax_b * fl(S_enc * fl(1/6))) stored at [row, block].
// CHECK-LABEL: func @nvfp4_1x16
// CHECK-SAME: (%[[X:[^:]*]]: memref<16x32xbf16>, %[[Q:[^:]*]]: memref<16x16xi8>, %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-DAG: %[[C2688:.*]] = arith.constant 2.688000e+03 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[FMAX:.*]] = arith.constant 3.40282347E+38 : f32
// CHECK: %[[AMAX:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// CHECK: vector.load %[[X]]
// CHECK: arith.maxnumf
// CHECK: %[[Q0:.*]] = arith.divf %[[C2688]], %[[AMAX]] : f32
// CHECK-NEXT: %[[SENC0:.*]] = arith.minnumf %[[Q0]], %[[FMAX]] : f32
// CHECK: %[[SENC:.*]] = arith.select %{{.*}}, %[[ONE]], %[[SENC0]] : f32
// CHECK-NEXT: %[[SDEC:.*]] = arith.divf %[[ONE]], %[[SENC]] : f32
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][] : memref<f32>
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[F:.*]] = arith.mulf %[[SENC]], %[[SIXTH]] : f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[F]] : f32
// CHECK: vector.store %{{.*}}, %[[Q]][%[[R]], %{{.*}}] {alignment = 8 : i64} : memref<16x16xi8>, vector<8xi8>
// CHECK: memref.store %{{.*}}, %[[S]][%[[R]], %[[B]]] : memref<16x2xi8>
// CHECK-NOT: arith.mului_extended
// CHECK: return
func.func @nvfp4_1x16(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// -----

// 16x16 tiles: the block loop walks tile rows (20 rows: 2), each tile's
// amax and encode loop over its min(16, R - 16*t) rows, and the one scale
// is stored for each of those rows.
// CHECK-LABEL: func @nvfp4_16x16
// CHECK-SAME: %[[S:[^:]*]]: memref<20x2xi8>
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK-NEXT: scf.for %[[T:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[FIRST:.*]] = arith.muli %[[T]], %c16 : index
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %c20, %[[FIRST]] : index
// CHECK-NEXT: %[[N:.*]] = arith.minsi %[[LEFT]], %c16 : index
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %[[N]] step %c1 iter_args
// CHECK: arith.maxnumf
// CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 {
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[I]] : index
// CHECK: memref.store %{{.*}}, %[[S]][%[[ROW]], %[[B]]] : memref<20x2xi8>
func.func @nvfp4_16x16(%x: memref<20x32xbf16>, %q: memref<20x32xf4E2M1FN>, %s: memref<20x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<20x32xf4E2M1FN>, memref<20x2xf8E4M3FN>, memref<f32>) {block = array<i64: 16, 16>} : memref<20x32xbf16>
  return
}

// -----

// MXFP4, rceil (default): no tensor amax and no decode scale; the code is
// the biased exponent of fl(amax_b * fl(1/6)), plus one for a non-zero
// mantissa unless the exponent is 0xFE or v is a subnormal <= 2^-127
// (mantissa <= 0x400000); the multiplier is 2^(127 - code) (bits
// (254 - code) << 23).
// CHECK-LABEL: func @mxfp4_rceil
// CHECK-SAME: %[[S:[^:]*]]: memref<16x2xi8>)
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-DAG: %[[MANT:.*]] = arith.constant 8388607 : i32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 4194304 : i32
// CHECK-DAG: %[[FE:.*]] = arith.constant 254 : i32
// CHECK-NOT: memref<f32>
// CHECK: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[V:.*]] = arith.mulf %{{.*}}, %[[SIXTH]] : f32
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[V]] : f32 to i32
// CHECK-NEXT: %[[E0:.*]] = arith.shrui %[[BITS]], %c23_i32 : i32
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[E0]], %c255_i32 : i32
// CHECK-NEXT: %[[M:.*]] = arith.andi %[[BITS]], %[[MANT]] : i32
// CHECK-NEXT: arith.cmpi ugt, %[[M]], %[[HALF]] : i32
// CHECK: arith.cmpi ne, %[[E]], %[[FE]] : i32
// CHECK: %[[UP:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK-NEXT: arith.addi %[[E]], %[[UP]] : i32
// CHECK: arith.subi %[[FE]], %{{.*}} : i32
// CHECK: memref.store %{{.*}}, %[[S]][%[[R]], %[[B]]] : memref<16x2xi8>
func.func @mxfp4_rceil(%x: memref<16x64xf32>, %q: memref<16x64xf4E2M1FN>, %s: memref<16x2xf8E8M0FNU>) {
  nvfp4.quantize mxfp4 %x outs(%q, %s : memref<16x64xf4E2M1FN>, memref<16x2xf8E8M0FNU>) : memref<16x64xf32>
  return
}

// -----

// MXFP4, floor: code = max(E(amax_b) - 2, 0) on the exponent field of
// amax_b itself (no 1/6 product, no mantissa round-up), 254 for Inf/NaN.
// CHECK-LABEL: func @mxfp4_floor
// CHECK-SAME: %[[S:[^:]*]]: memref<16x2xi8>)
// CHECK-NOT: arith.constant 0.166666672
// CHECK-NOT: arith.constant 8388607
// CHECK: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[E0:.*]] = arith.shrui %{{.*}}, %c23_i32 : i32
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[E0]], %c255_i32 : i32
// CHECK-NEXT: %[[C0:.*]] = arith.subi %[[E]], %c2_i32 : i32
// CHECK-NEXT: %[[C:.*]] = arith.maxsi %[[C0]], %c0_i32 : i32
// CHECK-NEXT: %[[INF:.*]] = arith.cmpi eq, %[[E]], %c255_i32 : i32
// CHECK-NEXT: arith.select %[[INF]], %c254_i32, %[[C]] : i32
// CHECK: memref.store %{{.*}}, %[[S]][%[[R]], %[[B]]] : memref<16x2xi8>
func.func @mxfp4_floor(%x: memref<16x64xf32>, %q: memref<16x64xf4E2M1FN>, %s: memref<16x2xf8E8M0FNU>) {
  nvfp4.quantize mxfp4 %x outs(%q, %s : memref<16x64xf4E2M1FN>, memref<16x2xf8E8M0FNU>) {scale_rule = #nvfp4.scale_rule<floor>} : memref<16x64xf32>
  return
}

// -----

// Stochastic rounding: per 16-element chunk, Philox4x32-10 (10 rounds of
// the multipliers 0xD2511F53 / 0xCD9E8D57, key bumped by 0x9E3779B9 /
// 0xBB67AE85) on counter (e/16 lo, e/16 hi, 0, 0) and key (seed lo, seed
// hi); byte t of the chunk is byte t%4 of word t/4; u = r/256 scales the
// step (0.5 below 2, 1 below 4, else 2).
// CHECK-LABEL: func @stochastic
// CHECK-SAME: %[[SEED:[^:]*]]: i64
// CHECK-DAG: %[[M0:.*]] = arith.constant -766435501 : i32
// CHECK-DAG: %[[M1:.*]] = arith.constant -845247145 : i32
// CHECK-DAG: %[[W0:.*]] = arith.constant -1640531527 : i32
// CHECK-DAG: %[[W1:.*]] = arith.constant -1150833019 : i32
// CHECK-DAG: %[[U:.*]] = arith.constant 3.906250e-03 : f32
// CHECK-DAG: %[[FF:.*]] = arith.constant 255 : i32
// CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[ROW:.*]] = arith.index_castui %[[R]] : index to i64
// CHECK: %[[CH:.*]] = arith.muli %[[ROW]], %c2_i64 : i64
// CHECK-NEXT: %[[E:.*]] = arith.addi %[[CH]], %{{.*}} : i64
// CHECK-NEXT: %[[C0:.*]] = arith.trunci %[[E]] : i64 to i32
// CHECK: %[[K0:.*]] = arith.trunci %[[SEED]] : i64 to i32
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[SEED]], %c32_i64 : i64
// CHECK-NEXT: %[[K1:.*]] = arith.trunci %[[SH]] : i64 to i32
// CHECK-NEXT: %{{.*}}, %{{.*}} = arith.mului_extended %[[C0]], %[[M0]] : i32
// CHECK: arith.addi %[[K0]], %[[W0]] : i32
// CHECK-NEXT: arith.addi %[[K1]], %[[W1]] : i32
// CHECK-COUNT-9: arith.mului_extended %{{.*}}, %[[M1]] : i32
// CHECK-NOT: arith.mului_extended
// CHECK: %[[RB:.*]] = arith.andi %{{.*}}, %[[FF]] : i32
// CHECK: %[[RF:.*]] = arith.uitofp %[[RB]] : i32 to f32
// CHECK-NEXT: %[[UR:.*]] = arith.mulf %[[RF]], %[[U]] : f32
// t = fl(a + u*step(a)) is clamped to 8 (NaN and Inf too) before fptosi:
// every t >= 8 gives 6, and a larger one would overflow the conversion.
// CHECK: %[[T0:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = arith.minnumf %[[T0]], %[[EIGHT]] : f32
// CHECK: %[[STEPS:.*]] = arith.divf %[[T]], %{{.*}} : f32
// CHECK-NEXT: arith.fptosi %[[STEPS]] : f32 to i32
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[R]], %[[B]]] : memref<16x2xi8>
func.func @stochastic(%x: memref<16x32xbf16>, %seed: i64, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x seed %seed outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {rounding = #nvfp4.rounding<stochastic>} : memref<16x32xbf16>
  return
}

// -----

// Hadamard: each chunk is scaled by 1/16 once, then output j is 4 times
// the in-order sum of +-x_i/16 with the signs of M = diag(s) * H16 (column
// 0: s itself, + + + - + - - - - - - + - + - -; column 1 starts with -),
// rounded to the input type (bf16) and widened back.
// CHECK-LABEL: func @hadamard
// CHECK-DAG: %[[SIXTEENTH:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
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
// CHECK-NEXT: %{{.*}} = arith.subf %[[H0]], %[[H1]] : f32
func.func @hadamard(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {hadamard} : memref<16x32xbf16>
  return
}

// -----

// Hadamard on f32 input: the same signed sums, kept in fp32 (no rounding
// to the input type: column 1 starts right after column 0's last add).
// CHECK-LABEL: func @hadamard_f32
// CHECK-DAG: %[[SIXTEENTH:.*]] = arith.constant 6.250000e-02 : f32
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NOT: arith.truncf
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

// 4/6 (TE's 4over6), mae, e4m3_max 448: decode_scale = amax / 2688;
// base = fl(amax_b / 6) * S_enc, sf4 from base * 1.5; each element's
// candidate value in the error domain fl(fl(e2m1 * sf) * amax) / C minus x,
// |d| summed in element order; candidate 4 only if e4 < e6 (ordered), which
// picks both the scale byte and the multiplier.
// CHECK-LABEL: func @four_over_six_mae
// CHECK-SAME: %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C:.*]] = arith.constant 2.688000e+03 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[ONEHALF:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[AMAX:.*]] = scf.for
// CHECK: %[[DS:.*]] = arith.divf %[[AMAX]], %[[C]] : f32
// CHECK-NEXT: memref.store %[[DS]], %[[D]][] : memref<f32>
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
// CHECK: memref.store %{{.*}}, %[[S]]
func.func @four_over_six_mae(%x: memref<16x32xf32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {scale_rule = #nvfp4.scale_rule<four_over_six>} : memref<16x32xf32>
  return
}

// -----

// mse with e4m3_max = 256: C = 1536; the term is fl(d * d).
// CHECK-LABEL: func @four_over_six_mse
// CHECK-SAME: %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C:.*]] = arith.constant 1.536000e+03 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[ONEHALF:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[AMAX:.*]] = scf.for
// CHECK: %[[DS:.*]] = arith.divf %[[AMAX]], %[[C]] : f32
// CHECK-NEXT: memref.store %[[DS]], %[[D]][] : memref<f32>
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
// CHECK: memref.store %{{.*}}, %[[S]]
func.func @four_over_six_mse(%x: memref<16x32xf32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {scale_rule = #nvfp4.scale_rule<four_over_six>, error_metric = #nvfp4.error_metric<mse>, e4m3_max = 256} : memref<16x32xf32>
  return
}

// -----

// abs_max: |d| combined with fmaxf instead of +.
// CHECK-LABEL: func @four_over_six_abs_max
// CHECK-SAME: %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C:.*]] = arith.constant 2.688000e+03 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[ONEHALF:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[AMAX:.*]] = scf.for
// CHECK: %[[DS:.*]] = arith.divf %[[AMAX]], %[[C]] : f32
// CHECK-NEXT: memref.store %[[DS]], %[[D]][] : memref<f32>
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
// CHECK: memref.store %{{.*}}, %[[S]]
func.func @four_over_six_abs_max(%x: memref<16x32xf32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) {scale_rule = #nvfp4.scale_rule<four_over_six>, error_metric = #nvfp4.error_metric<abs_max>} : memref<16x32xf32>
  return
}

// -----

// 4/6 on 16x16 tiles: the row loop keeps 16 row errors per candidate (32
// values, +0 for rows past the matrix), reduced as TE's shuffle tree
// a_l = r_l + r_(l+8), b_l = a_l + a_(l+4), c_l = b_l + b_(l+2),
// e = c_0 + c_1; then e4 < e6 picks.
// CHECK-LABEL: func @four_over_six_16x16
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

// A caller amax: loaded, no reduction over the input before S_enc.
// CHECK-LABEL: func @caller_amax
// CHECK-SAME: (%[[X:[^:]*]]: memref<16x32xbf16>, %[[AMAX:[^:]*]]: memref<f32>, %{{[^:]*}}: memref<16x16xi8>, %{{[^:]*}}: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[C2688:.*]] = arith.constant 2.688000e+03 : f32
// CHECK-NOT: vector.load
// CHECK: %[[A:.*]] = memref.load %[[AMAX]][] : memref<f32>
// CHECK-NEXT: arith.divf %[[C2688]], %[[A]] : f32
// CHECK-NOT: vector.load
// CHECK: memref.store %{{.*}}, %[[D]][] : memref<f32>
// CHECK-NEXT: scf.for
func.func @caller_amax(%x: memref<16x32xbf16>, %amax: memref<f32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x amax %amax : memref<f32> outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// -----

// Given scales (spec 2.2): no amax loop (no load of the input, no 2688)
// before the decode scale is stored. encode_scale: S_enc is the loaded
// value, S_dec = fl(1 / S_enc) without a guard; both reach the blocks.
// CHECK-LABEL: func @given_encode
// CHECK-SAME: (%[[X:[^:]*]]: memref<16x32xbf16>, %[[E:[^:]*]]: memref<f32>, %{{[^:]*}}: memref<16x16xi8>, %{{[^:]*}}: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-NOT: arith.constant 2.688000e+03
// CHECK-NOT: vector.load
// CHECK: %[[SENC:.*]] = memref.load %[[E]][] : memref<f32>
// CHECK-NEXT: %[[SDEC:.*]] = arith.divf %[[ONE]], %[[SENC]] : f32
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][] : memref<f32>
// CHECK-NEXT: scf.for
// CHECK: arith.mulf %[[SENC]], %[[SIXTH]] : f32
// CHECK: arith.mulf %{{.*}}, %[[SDEC]] : f32
// CHECK-NOT: arith.constant 2.688000e+03
// CHECK: return
func.func @given_encode(%x: memref<16x32xbf16>, %e: memref<f32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x encode_scale %e : memref<f32> outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// -----

// decode_scale per batch entry: d[b] is stored as it is (S_dec), S_enc =
// fl(1 / d[b]) scales the blocks; no amax loop in the batch loop.
// CHECK-LABEL: func @given_decode_batched
// CHECK-SAME: (%[[X:[^:]*]]: memref<3x16x32xbf16>, %[[DIN:[^:]*]]: memref<3xf32>, %{{[^:]*}}: memref<3x16x16xi8>, %{{[^:]*}}: memref<3x16x2xi8>, %[[D:[^:]*]]: memref<3xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK: scf.for %[[B:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: %[[SDEC:.*]] = memref.load %[[DIN]][%[[B]]] : memref<3xf32>
// CHECK-NEXT: %[[SENC:.*]] = arith.divf %[[ONE]], %[[SDEC]] : f32
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][%[[B]]] : memref<3xf32>
// CHECK-NEXT: scf.for
// CHECK: arith.mulf %[[SENC]], %[[SIXTH]] : f32
// CHECK: arith.mulf %{{.*}}, %[[SDEC]] : f32
func.func @given_decode_batched(%x: memref<3x16x32xbf16>, %din: memref<3xf32>, %q: memref<3x16x32xf4E2M1FN>, %s: memref<3x16x2xf8E4M3FN>, %d: memref<3xf32>) {
  nvfp4.quantize nvfp4 %x decode_scale %din : memref<3xf32> outs(%q, %s, %d : memref<3x16x32xf4E2M1FN>, memref<3x16x2xf8E4M3FN>, memref<3xf32>) : memref<3x16x32xbf16>
  return
}

// -----

// Swizzled scales: the padded tiles are zeroed first (4 bytes at a time),
// and S[r, b] is stored at [r/128, b/4, r%32, (r%128)/32, b%4].
// CHECK-LABEL: func @swizzled
// CHECK-SAME: %[[S:[^:]*]]: memref<2x1x32x4x4xi8>, %{{[^:]*}}: memref<f32>)
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<0> : vector<4xi8>
// CHECK: scf.for %[[I:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c32 step %c1 {
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: vector.store %[[Z]], %[[S]][%[[I]], %c0, %[[J]], %[[K]], %c0] : memref<2x1x32x4x4xi8>, vector<4xi8>
// CHECK: scf.for %[[R:.*]] = %c0 to %c200 step %c1 {
// CHECK-NEXT: scf.for %[[B:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[T:.*]] = arith.divui %[[R]], %c128 : index
// CHECK-NEXT: %[[CT:.*]] = arith.divui %[[B]], %c4 : index
// CHECK-NEXT: %[[R32:.*]] = arith.remui %[[R]], %c32 : index
// CHECK-NEXT: %[[R128:.*]] = arith.remui %[[R]], %c128 : index
// CHECK-NEXT: %[[Q32:.*]] = arith.divui %[[R128]], %c32 : index
// CHECK-NEXT: %[[C4:.*]] = arith.remui %[[B]], %c4 : index
// CHECK-NEXT: %[[BYTE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK-NEXT: memref.store %[[BYTE]], %[[S]][%[[T]], %[[CT]], %[[R32]], %[[Q32]], %[[C4]]] : memref<2x1x32x4x4xi8>
func.func @swizzled(%x: memref<200x64xbf16>, %q: memref<200x64xf4E2M1FN>, %s: memref<2x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<200x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<200x64xbf16>
  return
}

// -----

// 3-D input: everything runs once per batch entry, with its own amax and
// decode scale; loads and stores carry the batch index.
// CHECK-LABEL: func @batched
// CHECK-SAME: (%[[X:[^:]*]]: memref<3x16x32xf16>, %[[Q:[^:]*]]: memref<3x16x16xi8>, %[[S:[^:]*]]: memref<3x16x2xi8>, %[[D:[^:]*]]: memref<3xf32>)
// CHECK: scf.for %[[BATCH:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: %[[AMAX:.*]] = scf.for
// CHECK: vector.load %[[X]][%[[BATCH]], %{{.*}}, %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[D]][%[[BATCH]]] : memref<3xf32>
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: scf.for %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK: vector.store %{{.*}}, %[[Q]][%[[BATCH]], %[[R]], %{{.*}}]
// CHECK: memref.store %{{.*}}, %[[S]][%[[BATCH]], %[[R]], %[[B]]] : memref<3x16x2xi8>
func.func @batched(%x: memref<3x16x32xf16>, %q: memref<3x16x32xf4E2M1FN>, %s: memref<3x16x2xf8E4M3FN>, %d: memref<3xf32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<3x16x32xf4E2M1FN>, memref<3x16x2xf8E4M3FN>, memref<3xf32>) : memref<3x16x32xf16>
  return
}

// -----

// Row-scaled NVFP4 (decode scale per row): for each row, its amax over its
// 16-wide chunks, S_enc = min(2688 / amax, FLT_MAX) with the zero guards,
// S_dec stored at [row], then the row's blocks with that row's S_enc.
// CHECK-LABEL: func @row_scaled
// CHECK-SAME: (%[[X:[^:]*]]: memref<16x32xbf16>, %[[Q:[^:]*]]: memref<16x16xi8>, %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<16xf32>)
// CHECK: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: %[[AMAX:.*]] = scf.for %[[K:.*]] = %c0 to %c32 step %c16 iter_args
// CHECK-NEXT: vector.load %[[X]][%[[R]], %[[K]]]
// CHECK: %[[ENC:.*]] = arith.divf %{{.*}}, %[[AMAX]] : f32
// CHECK-NEXT: %[[ENCC:.*]] = arith.minnumf %[[ENC]], %{{.*}} : f32
// CHECK: %[[SENC:.*]] = arith.select %{{.*}}, %{{.*}}, %[[ENCC]] : f32
// CHECK-NEXT: %[[SDEC:.*]] = arith.divf %{{.*}}, %[[SENC]] : f32
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][%[[R]]] : memref<16xf32>
// CHECK-NEXT: scf.for %[[BLK:.*]] = %c0 to %c2 step %c1 {
// CHECK: memref.store %{{.*}}, %[[S]][%[[R]], %[[BLK]]] : memref<16x2xi8>
func.func @row_scaled(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<16xf32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<16xf32>) : memref<16x32xbf16>
  return
}
