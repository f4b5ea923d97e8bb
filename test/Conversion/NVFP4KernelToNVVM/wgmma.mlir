// The sm_90a MMA step: exact fragment dequantization, register-A wgmma
// through one typed op around the inline PTX MLIR 22 lacks, and the wait
// that orders register values after it.
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4k-to-nvvm --cse | FileCheck %s

// Both rows' scales: e4m3 -> f16 and x 64 once, splat per row. Each code
// word: low and high nibbles to e4m3 bit patterns (n & 7) << 2 | (n & 8) << 4
// (e2m1 * 2^-6), two cvt.rn.f16x2.e4m3x2 per pattern word, times the row's
// scale. Step 2w + p gathers (r0, t0t1), (r1, t0t1), (r0, t2t3), (r1, t2t3).
// CHECK-LABEL: gpu.func @dequant(
// CHECK-SAME:    %[[CODES:.*]]: vector<2x2xi32>, %[[SCALES:.*]]: vector<2xf8E4M3FN>
// CHECK:         %[[SB:.*]] = vector.bitcast %[[SCALES]] : vector<2xf8E4M3FN> to vector<2xi8>
// CHECK:         %[[SF:.*]] = nvvm.convert.f8x2.to.f16x2 %[[SB]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK:         %[[S64:.*]] = arith.mulf %[[SF]], %{{.*}} : vector<2xf16>
// CHECK:         %[[S0:.*]] = vector.shuffle %[[S64]], %[[S64]] [0, 0]
// CHECK:         %[[S1:.*]] = vector.shuffle %[[S64]], %[[S64]] [1, 1]
// CHECK:         %[[W00:.*]] = vector.extract %[[CODES]][0, 0]
// CHECK:         %[[LO:.*]] = arith.andi %[[W00]], %c252645135_i32
// CHECK:         %[[MAG:.*]] = arith.andi %[[LO]], %c117901063_i32
// CHECK:         %[[MAG2:.*]] = arith.shli %[[MAG]], %c2_i32
// CHECK:         %[[SIGN:.*]] = arith.andi %[[LO]], %c134744072_i32
// CHECK:         %[[SIGN4:.*]] = arith.shli %[[SIGN]], %c4_i32
// CHECK:         %[[E:.*]] = arith.ori %[[MAG2]], %[[SIGN4]]
// CHECK:         %[[H0:.*]] = nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK:         %[[R0T01:.*]] = arith.mulf %[[H0]], %[[S0]]
// CHECK:         arith.shrui %[[E]], %c16_i32
// CHECK:         %[[R0T23:.*]] = arith.mulf %{{.*}}, %[[S0]]
// CHECK:         vector.extract %[[CODES]][1, 0]
// CHECK:         %[[R1T01:.*]] = arith.mulf %{{.*}}, %[[S1]]
// CHECK:         %[[R1T23:.*]] = arith.mulf %{{.*}}, %[[S1]]
// CHECK:         %[[P01:.*]] = vector.shuffle %[[R0T01]], %[[R1T01]] [0, 1, 2, 3]
// CHECK:         %[[P23:.*]] = vector.shuffle %[[R0T23]], %[[R1T23]] [0, 1, 2, 3]
// CHECK:         %[[STEP0:.*]] = vector.shuffle %[[P01]], %[[P23]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK:         vector.insert %[[STEP0]], %{{.*}} [0] : vector<8xf16> into vector<4x8xf16>
// CHECK:         vector.insert %{{.*}}, %{{.*}} [1] : vector<8xf16> into vector<4x8xf16>
// CHECK:         vector.extract %[[CODES]][0, 1]
// CHECK:         vector.insert %{{.*}}, %{{.*}} [2] : vector<8xf16> into vector<4x8xf16>
// CHECK:         vector.insert %{{.*}}, %{{.*}} [3] : vector<8xf16> into vector<4x8xf16>
// CHECK-NOT:     nvfp4k.
gpu.module @k {
  gpu.func @dequant(%codes: vector<2x2xi32>, %scales: vector<2xf8E4M3FN>, %out: memref<4x8xf16>) kernel {
    %a = nvfp4k.dequant.fragment_a %codes, %scales : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xf16>
    %c0 = arith.constant 0 : index
    vector.store %a, %out[%c0, %c0] : memref<4x8xf16>, vector<4x8xf16>
    gpu.return
  }
}

// -----

// Two widths: a uniform branch on the width index, each leaf fencing,
// issuing its 4 k16 steps (A as 4 b32 registers from the fragment, the
// accumulators tied), committing. k_offset 64 lies in the second 128-byte
// atom: the descriptor's low word gets 128 rows x 128 B / 16 = 1024 plus 2
// per step. The first step carries the scale-d predicate.
// CHECK-LABEL: gpu.func @wgmma(
// CHECK:         %[[LOW:.*]] = arith.cmpi ule, %{{.*}}, %c0 : index
// CHECK:         scf.if %[[LOW]] -> (vector<64xf32>) {
// CHECK:           %[[P:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK-NEXT:      nvvm.wgmma.fence.aligned
// CHECK:           vector.bitcast %{{.*}} : vector<8xf16> to vector<4xi32>
// CHECK:           llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .b32 lo, hi;\0A.reg .b64 d;\0Amov.b64 {lo, hi}, $36;\0Aadd.u32 lo, lo, 1024;\0Amov.b64 d, {lo, hi};\0A.reg .pred p;\0Asetp.ne.b32 p, $37, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, d, p, 1, 1, 0;\0A}", "=f,{{(=f,)+}}r,r,r,r,l,r,0,1,{{.*}},31"
// CHECK:           llvm.inline_asm {{.*}}add.u32 lo, lo, 1026;{{.*}}m64n64k16{{.*}}, d, 1, 1, 1, 0;
// CHECK:           llvm.inline_asm {{.*}}add.u32 lo, lo, 1028;{{.*}}m64n64k16
// CHECK:           llvm.inline_asm {{.*}}add.u32 lo, lo, 1030;{{.*}}m64n64k16
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK:         } else {
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:   llvm.inline_asm {{.*}}m64n128k16
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK:         }
// The wait with values: one asm statement tying every register through it.
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "{{(=f,)+}}0,1,{{.*}},63"
!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma(%a: vector<4x8xf16>, %acc: vector<64xf32>, %desc: !desc, %w: index, %p: i1, %out: memref<64xf32>) kernel {
    %d = nvfp4k.wgmma.rs %acc, %a, %desc width(%w) scale_d(%p) {k_offset = 64 : i64, n = array<i64: 64, 128>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    %e = nvfp4k.wgmma.wait %d {pending = 0 : i64} : vector<64xf32>
    %c0 = arith.constant 0 : index
    vector.store %e, %out[%c0] : memref<64xf32>, vector<64xf32>
    gpu.return
  }
}

// -----

// One width, k_offset 0 (the first atom: +0 is the descriptor itself, then
// +2, +4, +6), no scale-d: every step accumulates. A wait without values is
// upstream's; with i32 and vector<4xi32> values, "=r" registers.
// CHECK-LABEL: gpu.func @single(
// CHECK-NOT:     scf.if
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {$0, {{.*}}, $15}, {$16, $17, $18, $19}, $20, 1, 1, 1, 0;"
// CHECK:         llvm.inline_asm {{.*}}add.u32 lo, lo, 2;{{.*}}m64n32k16
// CHECK:         llvm.inline_asm {{.*}}add.u32 lo, lo, 4;{{.*}}m64n32k16
// CHECK:         llvm.inline_asm {{.*}}add.u32 lo, lo, 6;{{.*}}m64n32k16
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 1;", "=r,=r,=r,=r,=r,0,1,2,3,4"
!desc = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @single(%a: vector<4x8xf16>, %acc: vector<16xf32>, %desc: !desc, %v: vector<4xi32>, %s: i32, %out: memref<16xf32>, %o2: memref<5xi32>) kernel {
    %d = nvfp4k.wgmma.rs %acc, %a, %desc {k_offset = 0 : i64, n = array<i64: 32>} : vector<16xf32>, vector<4x8xf16>, !desc -> vector<16xf32>
    nvfp4k.wgmma.wait {pending = 1 : i64}
    %r:2 = nvfp4k.wgmma.wait %v, %s {pending = 1 : i64} : vector<4xi32>, i32
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    vector.store %d, %out[%c0] : memref<16xf32>, vector<16xf32>
    vector.store %r#0, %o2[%c0] : memref<5xi32>, vector<4xi32>
    memref.store %r#1, %o2[%c4] : memref<5xi32>
    gpu.return
  }
}

// -----

// bf16 fragments (weight-only matmuls on bf16 activations): the scales
// widen exactly e4m3 -> f16 -> f32 -> bf16 (no x 64); each pair of codes goes
// into the low bytes of two 16-bit lanes, (n & 7) << 6 | (n & 8) << 12 is
// the bf16 pattern of e2m1 * 2^-126, times 2^126 (0x7E80 in both lanes),
// times the row's scale.
// CHECK-LABEL: gpu.func @dequant_bf16(
// CHECK-SAME:    %[[CODES:.*]]: vector<2x2xi32>, %[[SCALES:.*]]: vector<2xf8E4M3FN>
// CHECK:         %[[SF:.*]] = nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK:         %[[S32:.*]] = arith.extf %[[SF]] : vector<2xf16> to vector<2xf32>
// CHECK:         %[[SB:.*]] = arith.truncf %[[S32]] : vector<2xf32> to vector<2xbf16>
// CHECK:         %[[S0:.*]] = vector.shuffle %[[SB]], %[[SB]] [0, 0]
// CHECK:         %[[W00:.*]] = vector.extract %[[CODES]][0, 0]
// CHECK:         %[[LO:.*]] = arith.andi %[[W00]], %c252645135_i32
// CHECK:         %[[B0:.*]] = arith.andi %[[LO]], %c255_i32
// CHECK:         %[[B1:.*]] = arith.andi %[[LO]], %c65280_i32
// CHECK:         %[[B1S:.*]] = arith.shli %[[B1]], %c8_i32
// CHECK:         %[[LANES:.*]] = arith.ori %[[B0]], %[[B1S]]
// CHECK:         %[[MAG:.*]] = arith.andi %[[LANES]], %c458759_i32
// CHECK:         %[[MAG6:.*]] = arith.shli %[[MAG]], %c6_i32
// CHECK:         %[[SIGN:.*]] = arith.andi %[[LANES]], %c524296_i32
// CHECK:         %[[SIGN12:.*]] = arith.shli %[[SIGN]], %c12_i32
// CHECK:         %[[PAT:.*]] = arith.ori %[[MAG6]], %[[SIGN12]]
// CHECK:         %[[V:.*]] = llvm.bitcast %[[PAT]] : i32 to vector<2xbf16>
// CHECK:         %[[E2M1:.*]] = arith.mulf %[[V]], %cst{{.*}} : vector<2xbf16>
// CHECK:         arith.mulf %[[E2M1]], %[[S0]] : vector<2xbf16>
// CHECK:         vector.insert %{{.*}}, %{{.*}} [0] : vector<8xbf16> into vector<4x8xbf16>
// CHECK-NOT:     nvfp4k.
gpu.module @k {
  gpu.func @dequant_bf16(%codes: vector<2x2xi32>, %scales: vector<2xf8E4M3FN>, %out: memref<4x8xbf16>) kernel {
    %a = nvfp4k.dequant.fragment_a %codes, %scales : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xbf16>
    %c0 = arith.constant 0 : index
    vector.store %a, %out[%c0, %c0] : memref<4x8xbf16>, vector<4x8xbf16>
    gpu.return
  }
}

// -----

// E8M0 scales (MXFP4 weights, bf16 fragments only): the scale byte e as the
// bf16 pattern e << 7, 0x0040 (2^-127) for e = 0 and 0x7FC0 (NaN) for
// e = 255; the codes as for E4M3 scales.
// CHECK-LABEL: gpu.func @dequant_e8m0(
// CHECK-SAME:    %[[CODES:.*]]: vector<2x2xi32>, %[[SCALES:.*]]: vector<2xf8E8M0FNU>
// CHECK:         %[[I8:.*]] = vector.bitcast %[[SCALES]] : vector<2xf8E8M0FNU> to vector<2xi8>
// CHECK:         %[[E:.*]] = arith.extui %[[I8]] : vector<2xi8> to vector<2xi16>
// CHECK:         %[[SH:.*]] = arith.shli %[[E]], %{{.*}} : vector<2xi16>
// CHECK:         %[[Z:.*]] = arith.cmpi eq, %[[E]], %{{.*}} : vector<2xi16>
// CHECK:         %[[B0:.*]] = arith.select %[[Z]], %{{.*}}, %[[SH]] : vector<2xi1>, vector<2xi16>
// CHECK:         %[[N:.*]] = arith.cmpi eq, %[[E]], %{{.*}} : vector<2xi16>
// CHECK:         %[[B1:.*]] = arith.select %[[N]], %{{.*}}, %[[B0]] : vector<2xi1>, vector<2xi16>
// CHECK:         %[[SB:.*]] = vector.bitcast %[[B1]] : vector<2xi16> to vector<2xbf16>
// CHECK:         %[[S0:.*]] = vector.shuffle %[[SB]], %[[SB]] [0, 0]
// CHECK:         %[[E2M1:.*]] = arith.mulf %{{.*}}, %cst{{.*}} : vector<2xbf16>
// CHECK:         arith.mulf %[[E2M1]], %[[S0]] : vector<2xbf16>
// CHECK-NOT:     nvfp4k.
gpu.module @k {
  gpu.func @dequant_e8m0(%codes: vector<2x2xi32>, %scales: vector<2xf8E8M0FNU>, %out: memref<4x8xbf16>) kernel {
    %a = nvfp4k.dequant.fragment_a %codes, %scales : vector<2x2xi32>, vector<2xf8E8M0FNU> -> vector<4x8xbf16>
    %c0 = arith.constant 0 : index
    vector.store %a, %out[%c0, %c0] : memref<4x8xbf16>, vector<4x8xbf16>
    gpu.return
  }
}

// -----

// A bf16 step: the same asm with .bf16.bf16 operand types.
// CHECK-LABEL: gpu.func @single_bf16(
// CHECK:         vector.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {$0, {{.*}}, $15}, {$16, $17, $18, $19}, $20, 1, 1, 1, 0;"
!desc = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @single_bf16(%a: vector<4x8xbf16>, %acc: vector<16xf32>, %desc: !desc, %out: memref<16xf32>) kernel {
    %d = nvfp4k.wgmma.rs %acc, %a, %desc {k_offset = 0 : i64, n = array<i64: 32>} : vector<16xf32>, vector<4x8xbf16>, !desc -> vector<16xf32>
    %c0 = arith.constant 0 : index
    vector.store %d, %out[%c0] : memref<16xf32>, vector<16xf32>
    gpu.return
  }
}
