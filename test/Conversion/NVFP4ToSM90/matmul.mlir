// NVFP4 matmuls on the sm_90a kernel: the host side (token pre-pass, TMA
// descriptor, one persistent launch) and the kernel's structure. What the
// kernel computes is checked on the GPU (test/Integration/GPU).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="token-tile=128" | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="token-tile=64 stages=4 ctas=8 promote-every=0" | FileCheck %s --check-prefix=OPTS

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:    %[[A:.*]]: memref<256x64xi8>, %[[SA:.*]]: memref<2x2x32x4x4xi8>, %[[B:.*]]: memref<192x64xi8>, %[[SB:.*]]: memref<2x2x32x4x4xi8>, %[[C:.*]]: memref<256x192xbf16>)
// The tokens, exactly in f16, K padded to 64 and permuted: one thread per
// 16-value chunk.
// CHECK:         %[[X:.*]] = gpu.alloc () : memref<256x128xf16>
// CHECK:         gpu.launch
// CHECK:           vector.store {{.*}}, %[[X]]{{.*}} : memref<256x128xf16>, vector<2xf16>
// CHECK:         %[[UX:.*]] = memref.cast %[[X]] : memref<256x128xf16> to memref<*xf16>
// CHECK:         %[[DESC:.*]] = nvgpu.tma.create.descriptor %[[UX]] box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[DESC]] {{.*}} to !llvm.ptr
// CHECK:         %[[BI:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK:         %[[SBI:.*]] = memref.extract_aligned_pointer_as_index %[[SB]]
// CHECK:         %[[CI:.*]] = memref.extract_aligned_pointer_as_index %[[C]]
// 8 stages of 128x64 f16 plus 1 KiB of alignment slack.
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 blocks in (%c132, %{{.*}}, %{{.*}}) threads in (%c384, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c132096_i32 args(%[[MAP]] : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK:         gpu.dealloc %[[X]]
// CHECK:       gpu.module @nvfp4_sm90_gemm_0
// CHECK:         memref.global "public" @nvfp4_sm90_gemm_0_smem : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
// CHECK:         gpu.func @nvfp4_sm90_gemm_0(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) kernel attributes {nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32}
// Full and empty barriers for each of the 8 stages; a stage is released by
// one arrival per consumer warp (8).
// CHECK:           nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 16>
// CHECK-COUNT-15:  nvgpu.mbarrier.init %{{.*}}, %{{.*}}, predicate
// CHECK:           nvgpu.mbarrier.init %{{.*}}[%c15], %c8{{.*}}, predicate
// Producer warpgroup: few registers, one elected thread issues TMA.
// CHECK:           nvvm.setmaxregister decrease 24
// CHECK:           nvvm.elect.sync
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c16384
// CHECK:           nvgpu.tma.async.load
// Consumers: 8 weight bytes and the row's scale word per row and block,
// loaded unconditionally (addresses clamped) 4 blocks ahead; the thread's
// two scale bytes picked with one prmt after out-of-range rows/chunks are
// zeroed; e2m1 -> e4m3 bits -> f16.
// CHECK:           nvvm.setmaxregister increase 240
// CHECK-NOT:       scf.if
// CHECK:           llvm.load %{{.*}} invariant {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK:           llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK:           scf.for
// CHECK:           %[[S0:.*]] = arith.select %{{.*}}, %{{.*}}, %c0_i32 : i32
// CHECK:           %[[S1:.*]] = arith.select %{{.*}}, %{{.*}}, %c0_i32 : i32
// CHECK:           nvvm.prmt <default> %{{.*}}, %[[S0]], %[[S1]] : i32
// CHECK:           nvvm.convert.f8x2.to.f16x2 {{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK:           nvgpu.mbarrier.try_wait.parity
// Every promote-every (4) blocks the partial sum goes to the fp32 total.
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-64:  arith.addf
// The tile's width picks the wgmma N (32, 64, 96 or 128) in one loop: each
// width's branch fences, issues its four k16 steps (the step's descriptor
// offset added in the asm) and commits.
// CHECK:           scf.if
// CHECK-NEXT:        nvvm.wgmma.fence.aligned
// CHECK:             llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $21, 0;\0Awgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{.*}}, $20, p, 1, 1, 0;\0A}", "=f,{{.*}},r,r,r,r,l,r,0,1,
// CHECK:             llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .b64 d;\0Aadd.s64 d, $20, 2;\0Awgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{.*}}, d, 1, 1, 1, 0;\0A}"
// CHECK:             llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .b64 d;\0Aadd.s64 d, $20, 4;
// CHECK:             llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .b64 d;\0Aadd.s64 d, $20, 6;
// CHECK:             nvvm.wgmma.commit.group.sync.aligned
// CHECK:           } else {
// CHECK:             wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK:             nvvm.wgmma.commit.group.sync.aligned
// CHECK:             wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16
// CHECK:             nvvm.wgmma.commit.group.sync.aligned
// CHECK:             wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK:             nvvm.wgmma.commit.group.sync.aligned
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:           nvgpu.mbarrier.arrive
// Epilogue: neighbouring outputs exchanged, stored in pairs.
// CHECK:           gpu.shuffle xor
// CHECK:           llvm.store {{.*}} : vector<2xbf16>, !llvm.ptr<1>

// OPTS-LABEL: func.func @dense(
// OPTS:         tensor = memref<64x64xf16
// OPTS:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 blocks in (%c8{{.*}} dynamic_shared_memory_size %c33792_i32
// OPTS:         num_barriers = 8
// OPTS-NOT:     setp.ne.b32
// OPTS:         wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// OPTS-NOT:     setp.ne.b32
// OPTS:         wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// OPTS-NOT:     setp.ne.b32
// OPTS-NOT:     m64n96k16
// OPTS:         gpu.shuffle
func.func @dense(%a: memref<256x128xf4E2M1FN>, %sa: memref<2x2x32x4x4xf8E4M3FN>,
                 %b: memref<192x128xf4E2M1FN>, %sb: memref<2x2x32x4x4xf8E4M3FN>,
                 %c: memref<256x192xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<256x192xbf16>) : memref<256x128xf4E2M1FN>, memref<2x2x32x4x4xf8E4M3FN>, memref<192x128xf4E2M1FN>, memref<2x2x32x4x4xf8E4M3FN>
  return
}

// -----

// Contiguous groups: one kernel over every group's tiles; arguments are the
// tensor map, the stacked weights and their scales, the output, the group
// offsets and the per-group b decode scales.
// CHECK-LABEL: func.func @contiguous(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.func @nvfp4_sm90_gemm_0(
// OPTS-LABEL: func.func @contiguous(
// OPTS:         gpu.launch_func @nvfp4_sm90_gemm_0
func.func @contiguous(%a: memref<256x64xf4E2M1FN>, %sa: memref<2x1x32x4x4xf8E4M3FN>,
                      %b: memref<3x96x64xf4E2M1FN>, %sb: memref<3x1x1x32x4x4xf8E4M3FN>,
                      %off: memref<4xi32>, %d: memref<3xf32>, %c: memref<256x96xbf16>) {
  nvfp4.grouped_matmul contiguous a(%a : memref<256x64xf4E2M1FN>) a_scales(%sa : memref<2x1x32x4x4xf8E4M3FN>) b(%b : memref<3x96x64xf4E2M1FN>) b_scales(%sb : memref<3x1x1x32x4x4xf8E4M3FN>) group_offsets(%off : memref<4xi32>) b_decode_scale(%d : memref<3xf32>) outs(%c : memref<256x96xbf16>)
  return
}

// -----

// Masked groups: the kernel, then a portable kernel writing beta * acc to the
// rows past masked_m[g]. Arguments: the map, weights, scales, output,
// accumulator, masked_m.
// CHECK-LABEL: func.func @masked(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK:         gpu.launch blocks
// CHECK:           arith.cmpi sle
// CHECK:           memref.load %{{.*}} : memref<3x128x96xf32>
// CHECK:           arith.mulf
// CHECK:           memref.store %{{.*}} : memref<3x128x96xf32>
// OPTS-LABEL: func.func @masked(
// OPTS:         gpu.launch_func @nvfp4_sm90_gemm_0
func.func @masked(%a: memref<3x128x64xf4E2M1FN>, %sa: memref<3x1x1x32x4x4xf8E4M3FN>,
                  %b: memref<3x96x64xf4E2M1FN>, %sb: memref<3x1x1x32x4x4xf8E4M3FN>,
                  %mm: memref<3xi32>, %acc: memref<3x128x96xf32>, %c: memref<3x128x96xf32>) {
  nvfp4.grouped_matmul masked a(%a : memref<3x128x64xf4E2M1FN>) a_scales(%sa : memref<3x1x1x32x4x4xf8E4M3FN>) b(%b : memref<3x96x64xf4E2M1FN>) b_scales(%sb : memref<3x1x1x32x4x4xf8E4M3FN>) masked_m(%mm : memref<3xi32>) acc(%acc : memref<3x128x96xf32>) outs(%c : memref<3x128x96xf32>) {beta = 5.000000e-01 : f32}
  return
}

// -----

// Independent groups of one N and K: one kernel, a weight, scale and output
// pointer per group.
// CHECK-LABEL: func.func @independent(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// OPTS-LABEL: func.func @independent(
// OPTS:         gpu.launch_func @nvfp4_sm90_gemm_0
func.func @independent(%a0: memref<40x64xf4E2M1FN>, %sa0: memref<1x1x32x4x4xf8E4M3FN>,
                       %a1: memref<200x64xf4E2M1FN>, %sa1: memref<2x1x32x4x4xf8E4M3FN>,
                       %b0: memref<96x64xf4E2M1FN>, %sb0: memref<1x1x32x4x4xf8E4M3FN>,
                       %b1: memref<96x64xf4E2M1FN>, %sb1: memref<1x1x32x4x4xf8E4M3FN>,
                       %c0: memref<40x96xf16>, %c1: memref<200x96xf16>) {
  nvfp4.grouped_matmul independent a(%a0, %a1 : memref<40x64xf4E2M1FN>, memref<200x64xf4E2M1FN>) a_scales(%sa0, %sa1 : memref<1x1x32x4x4xf8E4M3FN>, memref<2x1x32x4x4xf8E4M3FN>) b(%b0, %b1 : memref<96x64xf4E2M1FN>, memref<96x64xf4E2M1FN>) b_scales(%sb0, %sb1 : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) outs(%c0, %c1 : memref<40x96xf16>, memref<200x96xf16>)
  return
}

// -----

// What the kernel does not cover keeps the portable SIMT kernel: MXFP4,
// odd N, independent groups of different N.
// CHECK-LABEL: func.func @portable(
// CHECK-NOT:     nvfp4_sm90_gemm
// CHECK-COUNT-3: gpu.launch blocks
// CHECK-NOT:     nvfp4_sm90_gemm
// OPTS-LABEL: func.func @portable(
// OPTS-NOT:     nvfp4_sm90_gemm
func.func @portable(%a: memref<64x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E8M0FNU>,
                    %b: memref<96x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E8M0FNU>,
                    %c: memref<64x96xf32>,
                    %an: memref<64x64xf4E2M1FN>, %san: memref<1x1x32x4x4xf8E4M3FN>,
                    %bo: memref<95x64xf4E2M1FN>, %sbo: memref<1x1x32x4x4xf8E4M3FN>,
                    %co: memref<64x95xf32>,
                    %b2: memref<32x64xf4E2M1FN>, %sb2: memref<1x1x32x4x4xf8E4M3FN>,
                    %bn: memref<96x64xf4E2M1FN>, %sbn: memref<1x1x32x4x4xf8E4M3FN>,
                    %g0: memref<64x96xf32>, %g1: memref<64x32xf32>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<64x96xf32>) : memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>, memref<96x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>
  nvfp4.matmul %an, %san, %bo, %sbo outs(%co : memref<64x95xf32>) : memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<95x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  nvfp4.grouped_matmul independent a(%an, %an : memref<64x64xf4E2M1FN>, memref<64x64xf4E2M1FN>) a_scales(%san, %san : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) b(%bn, %b2 : memref<96x64xf4E2M1FN>, memref<32x64xf4E2M1FN>) b_scales(%sbn, %sb2 : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) outs(%g0, %g1 : memref<64x96xf32>, memref<64x32xf32>)
  return
}
