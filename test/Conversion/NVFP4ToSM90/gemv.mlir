// The narrow-token kernel (gemv, the default for dense matmuls of at most
// 16 tokens): the f16 pre-pass writes the tokens in the kernel's order,
// then one launch of ceil(N / 16) CTAs whose warps split K (9-16 tokens:
// no pre-pass, the kernel reads the FP4 tokens itself). A thread loads
// its code words and scale bytes from global memory (no ring, no TMA),
// dequantizes them (nvfp4k.dequant.fragment_a) and issues mma.sync
// m16n8k16; the warps' sums meet in shared memory, warp 0 adds them in
// warp order and stores. What it computes is checked on the GPU
// (test/Integration/GPU/decode.test and fused.test).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90 --canonicalize --cse | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="gemv-warps=3" --canonicalize --cse | FileCheck %s --check-prefix=THREE
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="gemv=off" --canonicalize --cse | FileCheck %s --check-prefix=OFF
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="tokens=prepass" --canonicalize --cse | FileCheck %s --check-prefix=PRE
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="gemv-ctas-per-sm=-1 gemv-prefetch=0" --canonicalize --cse | FileCheck %s --check-prefix=NONE
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="ctas=4" --canonicalize --cse | FileCheck %s --check-prefix=FOUR
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="ctas=4 gemv-warps=16" --canonicalize --cse | FileCheck %s --check-prefix=TIGHT
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="gemv=maybe" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="gemv-warps=17" 2>&1 | FileCheck %s --check-prefix=BADWARPS
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="gemv-ctas-per-sm=33" 2>&1 | FileCheck %s --check-prefix=BADCTAS
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="gemv-prefetch=-1" 2>&1 | FileCheck %s --check-prefix=BADPREFETCH

// 5 tokens, N = 200, K = 512 (4 blocks of 128: one warp at about 4 blocks
// each): 13 CTAs of 16 rows.
// CHECK-LABEL: func.func @decode(
// CHECK:         %[[TOK:.*]] = gpu.alloc () : memref<5x512xf16>
// CHECK:         gpu.launch blocks
// CHECK-COUNT-8:   vector.store %{{.*}}, %[[TOK]][{{.*}}] {alignment = 4 : i64} : memref<5x512xf16>, vector<2xf16>
// CHECK:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0 blocks in (%c13, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK:       gpu.func @nvfp4_sm90_gemv_0(%[[X:.*]]: i64, %[[W:.*]]: i64, %[[S:.*]]: i64,
// The grid's CTAs per SM (13 on 132 SMs: 1) as .minnctapersm: ptxas then
// keeps every load of a block ahead of its MMAs.
// CHECK-SAME:      nvvm.maxntid = array<i32: 32, 1, 1>, nvvm.minctasm = 1 : i32
// Before the wait for the pre-pass, each warp's first K block of the CTA's
// weights into L2 (gemv-prefetch=1): 64 code bytes of each row from byte
// 256 w (K blocks 4w.. of warp w), 256 scale bytes of each 128x4 unit.
// CHECK:         scf.if
// CHECK:           %[[BEGIN:.*]] = arith.muli %{{.*}}, %c256 : index
// CHECK:           %[[ROW:.*]] = arith.muli %{{.*}}, %c256 : index
// CHECK:           arith.addi %[[ROW]], %[[BEGIN]] : index
// CHECK:           nvvm.cp.async.bulk.prefetch %{{.*}}, %{{.*}} : <1>
// CHECK:         scf.for
// CHECK:             nvvm.cp.async.bulk.prefetch %{{.*}}, %c256_i32 : <1>
// The wait comes before the first load.
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;"
// One fp32 total per token tile is carried; each block's MMAs start from
// zero (fp32 promotion after every 128-K block).
// CHECK:         scf.for %{{.*}} iter_args(%[[TOTAL:.*]] = %[[ZERO:.*]]) -> (vector<2x2xf32>)
// Two rows' 16 code bytes and their two scale bytes, then the 5 tokens'
// (clamped rows) 64 bytes of the block: the weights' loads invariant
// (ld.global.nc), the tokens' not (the pre-pass writes them while this
// kernel, launched early, waits).
// CHECK:           llvm.load %{{.*}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:           llvm.load %{{.*}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:           llvm.load %{{.*}} invariant {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK:           llvm.load %{{.*}} invariant {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<16xi32>
// Per chunk of 16 K: four k16 steps' A fragments and their MMAs.
// CHECK:           nvfp4k.dequant.fragment_a %{{.*}} : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xf16>
// CHECK:           %[[P0:.*]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[ZERO]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:           %[[P1:.*]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[ZERO]])
// CHECK-COUNT-2:   nvgpu.mma.sync
// CHECK:           nvfp4k.dequant.fragment_a
// CHECK-COUNT-3:   nvgpu.mma.sync
// CHECK:           %[[L1:.*]] = nvgpu.mma.sync
// CHECK:           %[[BLOCK:.*]] = arith.addf %{{.*}}, %[[L1]] : vector<2x2xf32>
// CHECK:           %[[NEXT:.*]] = arith.addf %[[TOTAL]], %[[BLOCK]] : vector<2x2xf32>
// CHECK:           scf.yield %[[NEXT]]
// One warp: no hand-over.
// CHECK-NOT:     gpu.barrier
// CHECK:         nvfp4k.alpha %c0 a_decode(%{{.*}}) b_decode(%{{.*}}) : f32
// CHECK-COUNT-4: nvfp4k.store %{{.*}} bounds(%c5, %c200) alpha(%{{.*}}) {element = bf16, row_stride = 200 : i64} : vector<1xf32>

// gemv-warps=3: warps 1 and 2 hand their sums to warp 0 (4 floats a lane
// each: 256 f32) across one barrier; warp 0 adds them in warp order.
// THREE-LABEL: func.func @decode(
// THREE:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0 blocks in (%c13, %c1, %c1) threads in (%c96, %c1, %c1)
// THREE:         nvfp4k.shared_memory : memref<1024xi8, #gpu.address_space<workgroup>>
// THREE:         scf.if
// THREE-COUNT-4:   memref.store %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// THREE:         gpu.barrier
// THREE:         scf.if
// THREE-COUNT-8:   memref.load %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// THREE:           nvfp4k.store

// gemv-ctas-per-sm=-1: ptxas's own register target; gemv-prefetch=0: no
// prefetch.
// NONE-LABEL: func.func @decode(
// NONE:       gpu.func @nvfp4_sm90_gemv_0(
// NONE-SAME:      nvvm.maxntid = array<i32: 32, 1, 1>} {
// NONE-NOT:     nvvm.cp.async.bulk.prefetch
// NONE:         griddepcontrol.wait

// 13 CTAs on 4 SMs: 4 each, 128 threads (64 and more registers a thread).
// FOUR-LABEL: func.func @decode(
// FOUR:       gpu.func @nvfp4_sm90_gemv_0(
// FOUR-SAME:      nvvm.maxntid = array<i32: 32, 1, 1>, nvvm.minctasm = 4 : i32

// 16 warps: 4 CTAs of 512 threads would leave 32 registers a thread; no
// bound.
// TIGHT-LABEL: func.func @decode(
// TIGHT:       gpu.func @nvfp4_sm90_gemv_0(
// TIGHT-SAME:      nvvm.maxntid = array<i32: 512, 1, 1>} {

// gemv=off: the wgmma kernel.
// OFF-LABEL: func.func @decode(
// OFF:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// OFF-NOT:     nvgpu.mma.sync

// BAD: convert-nvfp4-to-sm90: gemv must be auto, on or off, got 'maybe'
// BADWARPS: convert-nvfp4-to-sm90: gemv-warps must be 0 (choose) to 16, got 17
// BADCTAS: convert-nvfp4-to-sm90: gemv-ctas-per-sm must be -1 (none), 0 (choose) or 1 to 32, got 33
// BADPREFETCH: convert-nvfp4-to-sm90: gemv-prefetch must be non-negative, got -1

func.func @decode(%a: memref<5x512xf4E2M1FN>, %sa: memref<1x8x32x4x4xf8E4M3FN>,
                  %b: memref<200x512xf4E2M1FN>, %sb: memref<2x8x32x4x4xf8E4M3FN>,
                  %da: memref<f32>, %db: memref<f32>, %c: memref<5x200xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<f32>) b_decode_scale(%db : memref<f32>) outs(%c : memref<5x200xbf16>) : memref<5x512xf4E2M1FN>, memref<1x8x32x4x4xf8E4M3FN>, memref<200x512xf4E2M1FN>, memref<2x8x32x4x4xf8E4M3FN>
  return
}

// -----

// 16 tokens, N = 9216 > 8192: the narrow kernel on FP4 tokens; with f16
// pre-pass tokens (two token tiles load as many token values as code
// bytes) auto keeps the wgmma kernel. 17 tokens never take the narrow
// kernel.
// CHECK-LABEL: func.func @wide_n(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0 blocks in (%c576, %c1, %c1)
// CHECK-LABEL: func.func @seventeen(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// PRE-LABEL: func.func @wide_n(
// PRE:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
func.func @wide_n(%a: memref<16x512xf4E2M1FN>, %sa: memref<1x8x32x4x4xf8E4M3FN>,
                  %b: memref<9216x512xf4E2M1FN>, %sb: memref<72x8x32x4x4xf8E4M3FN>,
                  %c: memref<16x9216xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<16x9216xbf16>) : memref<16x512xf4E2M1FN>, memref<1x8x32x4x4xf8E4M3FN>, memref<9216x512xf4E2M1FN>, memref<72x8x32x4x4xf8E4M3FN>
  return
}
func.func @seventeen(%a: memref<17x512xf4E2M1FN>, %sa: memref<1x8x32x4x4xf8E4M3FN>,
                     %b: memref<200x512xf4E2M1FN>, %sb: memref<2x8x32x4x4xf8E4M3FN>,
                     %c: memref<17x200xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<17x200xbf16>) : memref<17x512xf4E2M1FN>, memref<1x8x32x4x4xf8E4M3FN>, memref<200x512xf4E2M1FN>, memref<2x8x32x4x4xf8E4M3FN>
  return
}

// -----

// 16 tokens (two tiles): the kernel reads the FP4 tokens itself, no f16
// pre-pass. Per block a thread loads its token rows g and 8 + g as it
// loads its weight rows (plain loads: the kernel ahead writes them),
// dequantizes them with the same op, and takes each k16 step's B
// fragments from the token fragment: values 0, 1, 4, 5 (token g) and 2,
// 3, 6, 7 (token 8 + g). tokens=prepass keeps the f16 pre-pass.
// CHECK-LABEL: func.func @sixteen(
// CHECK-NOT:     gpu.alloc
// CHECK:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0 blocks in (%c13, %c1, %c1) threads in (%c32, %c1, %c1)
// CHECK:       gpu.func @nvfp4_sm90_gemv_0(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64,
// CHECK:         scf.for
// CHECK-COUNT-2:   llvm.load %{{.*}} invariant {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-COUNT-2:   llvm.load %{{.*}} invariant {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:           llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:           llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> i16
// CHECK:           %[[W:.*]] = nvfp4k.dequant.fragment_a
// CHECK:           %[[T:.*]] = nvfp4k.dequant.fragment_a
// CHECK:           %[[T0:.*]] = vector.extract %[[T]][0] : vector<8xf16> from vector<4x8xf16>
// CHECK:           vector.shuffle %[[T0]], %[[T0]] [0, 1, 4, 5] : vector<8xf16>, vector<8xf16>
// CHECK:           nvgpu.mma.sync
// CHECK:           vector.shuffle %[[T0]], %[[T0]] [2, 3, 6, 7] : vector<8xf16>, vector<8xf16>
// CHECK:           nvgpu.mma.sync
// PRE-LABEL: func.func @sixteen(
// PRE:         gpu.alloc () : memref<16x512xf16>
// PRE:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0
// PRE:       gpu.func @nvfp4_sm90_gemv_0(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// PRE:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<16xi32>
// PRE:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<16xi32>
func.func @sixteen(%a: memref<16x512xf4E2M1FN>, %sa: memref<1x8x32x4x4xf8E4M3FN>,
                  %b: memref<200x512xf4E2M1FN>, %sb: memref<2x8x32x4x4xf8E4M3FN>,
                  %da: memref<f32>, %db: memref<f32>, %c: memref<16x200xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<f32>) b_decode_scale(%db : memref<f32>) outs(%c : memref<16x200xbf16>) : memref<16x512xf4E2M1FN>, memref<1x8x32x4x4xf8E4M3FN>, memref<200x512xf4E2M1FN>, memref<2x8x32x4x4xf8E4M3FN>
  return
}
