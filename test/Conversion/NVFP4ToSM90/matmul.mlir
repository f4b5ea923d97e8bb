// NVFP4 matmuls on the sm_90a kernel: the host side (token pre-pass, tensor
// maps, one persistent launch) and the kernel's structure in nvfp4k ops
// (test/Conversion/NVFP4KernelToNVVM checks how each op lowers). What the
// kernel computes is checked on the GPU (test/Integration/GPU).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="gemv=off token-tile=128 schedule=data-parallel bf16-mma=false" | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="gemv=off token-tile=64 stages=4 ctas=8 promote-every=0 schedule=data-parallel bf16-mma=false" | FileCheck %s --check-prefix=OPTS

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:    %[[A:.*]]: memref<256x64xi8>, %[[SA:.*]]: memref<2x2x32x4x4xi8>, %[[B:.*]]: memref<192x64xi8>, %[[SB:.*]]: memref<2x2x32x4x4xi8>, %[[C:.*]]: memref<256x192xbf16>)
// The tokens, exactly in f16, K padded to 128 and permuted: one launch, one
// thread per 16-value chunk.
// CHECK:         %[[X:.*]] = gpu.alloc () : memref<256x128xf16>
// CHECK:         gpu.launch
// CHECK:           vector.store {{.*}}, %[[X]]{{.*}} : memref<256x128xf16>, vector<2xf16>
// CHECK-NOT:     gpu.launch blocks
// Tensor maps: the f16 tokens ([128, 64] boxes, 128B swizzle) and the
// weights' FP4 bytes as ui8 ([128, 64]-byte boxes, no swizzle).
// CHECK:         %[[UX:.*]] = memref.cast %[[X]] : memref<256x128xf16> to memref<*xf16>
// CHECK:         %[[DESC:.*]] = nvgpu.tma.create.descriptor %[[UX]] box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[DESC]] {{.*}} to !llvm.ptr
// CHECK:         memref.reinterpret_cast %[[B]] to offset: [0], sizes: [12288], strides: [1]
// CHECK:         memref.view {{.*}} : memref<12288xi8> to memref<192x64xui8>
// CHECK:         nvgpu.tma.create.descriptor {{.*}} : memref<*xui8> -> <tensor = memref<128x64xui8, #gpu.address_space<workgroup>>, swizzle = none, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         memref.extract_aligned_pointer_as_index %[[SB]]
// CHECK:         memref.extract_aligned_pointer_as_index %[[C]]
// 5 stages of 41984 bytes (32 KiB of tokens, 8 KiB of weights, 1 KiB of
// scales) plus 1 KiB of alignment slack.
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 blocks in (%c132, %{{.*}}, %{{.*}}) threads in (%c384, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c210944_i32 args(%[[MAP]] : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64)
// CHECK:         gpu.dealloc %[[X]]
// The kernel, in nvfp4k ops: the ring (5 stages, released by the 8
// consumer warps) and the scheduler of one independent group.
// CHECK:       gpu.module @nvfp4_sm90_gemm_0
// CHECK:         gpu.func @nvfp4_sm90_gemm_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64) kernel attributes {nvfp4.grid_dependency_wait, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32}
// CHECK:           nvfp4k.shared_memory : memref<209920xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[RING:.*]] = nvfp4k.ring.create : <5, consumers = 8>
// CHECK:           %[[SCHED:.*]] = nvfp4k.scheduler.create : <mode = independent, groups = 1, rows = 256, weight_tiles = 2, weight_rows = 128, token_tile = 128, granule = 32, group_rows = [256], k_blocks = 1>
// The barriers set up, the kernel waits for the kernels ahead of it
// (programmatic dependent launch) before it reads anything they wrote.
// CHECK:           llvm.inline_asm has_side_effects {{.*}}"griddepcontrol.wait;", "~{memory}"
// CHECK:           %[[COUNT:.*]] = nvfp4k.scheduler.count %[[SCHED]]
// CHECK:           gpu.barrier
// Producer warpgroup: few registers, one elected thread fills each stage
// of each of the CTA's work units (whole tiles, data-parallel): two TMA
// boxes of tokens, one of weight bytes, one bulk copy of the two scale
// units.
// CHECK:           nvvm.setmaxregister decrease 40
// CHECK:           nvvm.elect.sync
// CHECK:           nvfp4k.scheduler.units %[[SCHED]] cta(%{{.*}}, %{{.*}}) count(%[[COUNT]])
// CHECK:           nvfp4k.scheduler.unit %[[SCHED]]
// CHECK:           nvfp4k.scheduler.tile %[[SCHED]]
// CHECK:           nvfp4k.ring.wait_empty %[[RING]]
// CHECK:           nvfp4k.ring.expect_tx %[[RING]]
// CHECK:           nvfp4k.ring.stage %[[RING]]
// CHECK-COUNT-2:   nvfp4k.tma.load {{.*}}, memref<128x64xf16, #gpu.address_space<workgroup>>, <5, consumers = 8>
// CHECK:           nvfp4k.tma.load {{.*}}, memref<128x64xui8, #gpu.address_space<workgroup>>, <5, consumers = 8>
// CHECK:           nvfp4k.bulk.load {{.*}} : memref<1024xi8, #gpu.address_space<workgroup>>, <5, consumers = 8>
// Consumers: per stage, wait full, the thread's share of the stage (its
// two rows' code words and permuted scale bytes: nvfp4k.fragment_a.load,
// test/Conversion/NVFP4KernelToNVVM/fragment-a-load.mlir); each half stage
// dequantizes 4 k16 steps of fragments and issues them (the first with
// scale-d from the fp32 promotion); the second half's inputs pass through
// the wait that frees its fragment registers, which also lets the previous
// stage go.
// CHECK:           nvvm.setmaxregister increase 232
// CHECK:           nvfp4k.ring.wait_full %[[RING]]
// CHECK:           nvfp4k.fragment_a.load {{.*}} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
// CHECK:           %[[D:.*]] = nvgpu.warpgroup.generate.descriptor {{.*}} : memref<128x128xf16, #gpu.address_space<workgroup>>
// CHECK:           %[[A0:.*]] = nvfp4k.dequant.fragment_a {{.*}} : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xf16>
// CHECK:           scf.if
// CHECK:             nvfp4k.wgmma.wait %{{.*}} {pending = 0 : i64} : vector<64xf32>
// CHECK:           %[[ACC:.*]] = nvfp4k.wgmma.rs %{{.*}}, %[[A0]], %[[D]] width(%{{.*}}) scale_d(%{{.*}}) {k_offset = 0 : i64, n = array<i64: 32, 64, 96, 128>}
// CHECK:           nvfp4k.wgmma.wait %{{.*}}, %{{.*}} {pending = 1 : i64} : vector<4xi32>, i32
// CHECK:           nvfp4k.ring.release %[[RING]]
// CHECK:           %[[A1:.*]] = nvfp4k.dequant.fragment_a
// CHECK:           nvfp4k.wgmma.rs %[[ACC]], %[[A1]], %[[D]] width(%{{.*}}) {k_offset = 64 : i64, n = array<i64: 32, 64, 96, 128>}
// CHECK:           nvfp4k.wgmma.wait {pending = 1 : i64}
// The tile's accumulators are read through the final wait; epilogue:
// neighbouring outputs exchanged, stored in pairs.
// CHECK:           nvfp4k.wgmma.wait %{{.*}} {pending = 0 : i64} : vector<64xf32>
// CHECK:           nvfp4k.ring.release %[[RING]]
// CHECK:           nvfp4k.alpha %{{.*}} : f32
// CHECK:           gpu.shuffle xor
// CHECK:           nvfp4k.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] bounds(%{{.*}}, %{{.*}}) alpha(%{{.*}}) {element = bf16, row_stride = 192 : i64} : vector<2xf32>

// Options: 64-token tiles (widths 32 and 64), a 4-stage ring of 25600-byte
// stages, 8 CTAs, no fp32 promotion (no scale-d, no accumulator wait in
// the loop).
// OPTS-LABEL: func.func @dense(
// OPTS:         tensor = memref<64x64xf16
// OPTS:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 blocks in (%c8{{.*}} dynamic_shared_memory_size %c103424_i32
// OPTS:         nvfp4k.ring.create : <4, consumers = 8>
// OPTS:         scf.for
// OPTS:         scf.for
// OPTS-NOT:     {pending = 0 : i64} : vector<32xf32>
// OPTS:         nvfp4k.wgmma.rs {{.*}} scale_d(%{{.*}}) {k_offset = 0 : i64, n = array<i64: 32, 64>}
// OPTS:         nvfp4k.wgmma.wait %{{.*}} {pending = 0 : i64} : vector<32xf32>
// OPTS:         gpu.shuffle
func.func @dense(%a: memref<256x128xf4E2M1FN>, %sa: memref<2x2x32x4x4xf8E4M3FN>,
                 %b: memref<192x128xf4E2M1FN>, %sb: memref<2x2x32x4x4xf8E4M3FN>,
                 %c: memref<256x192xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<256x192xbf16>) : memref<256x128xf4E2M1FN>, memref<2x2x32x4x4xf8E4M3FN>, memref<192x128xf4E2M1FN>, memref<2x2x32x4x4xf8E4M3FN>
  return
}

// -----

// Row-scaled A and B: the decode scales' addresses follow the output; the
// epilogue forms alpha per stored pair, at the pair's row (past the group's
// rows: row 0) and each of its two columns (past N: column 0), and stores
// with a vector alpha.
// CHECK-LABEL: func.func @row_scaled(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK:         gpu.func @nvfp4_sm90_gemm_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %[[DA:[^:]*]]: i64, %[[DB:[^:]*]]: i64)
// CHECK:           %[[ROWS:.*]] = arith.subi %tile_end, %group_start : index
// CHECK:           %[[ROW:.*]] = arith.subi %{{[0-9]+}}, %group_start : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi slt, %[[ROW]], %[[ROWS]] : index
// CHECK:           %[[R:.*]] = arith.select %[[IN]], %[[ROW]], %{{.*}} : index
// CHECK:           %[[C:.*]] = arith.select %{{.*}}, %[[COL:.*]], %{{.*}} : index
// CHECK-NEXT:      %[[A0:.*]] = nvfp4k.alpha %{{.*}} a_decode(%[[DA]]) b_decode(%[[DB]]) row(%[[R]]) column(%[[C]]) {a_decode_per_row, b_decode_per_row} : f32
// CHECK:           %[[A1:.*]] = nvfp4k.alpha %{{.*}} a_decode(%[[DA]]) b_decode(%[[DB]]) row(%{{.*}}) column(%{{.*}}) {a_decode_per_row, b_decode_per_row} : f32
// CHECK-NEXT:      %[[AV:.*]] = vector.from_elements %[[A0]], %[[A1]] : vector<2xf32>
// CHECK:           nvfp4k.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]] bounds(%[[ROWS]], %{{.*}}) alpha(%[[AV]] : vector<2xf32>) {element = bf16, row_stride = 192 : i64} : vector<2xf32>
// OPTS-LABEL: func.func @row_scaled(
// OPTS:         gpu.launch_func @nvfp4_sm90_gemm_0
func.func @row_scaled(%a: memref<256x128xf4E2M1FN>, %sa: memref<2x2x32x4x4xf8E4M3FN>,
                      %b: memref<192x128xf4E2M1FN>, %sb: memref<2x2x32x4x4xf8E4M3FN>,
                      %da: memref<256xf32>, %db: memref<192xf32>, %c: memref<256x192xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<256xf32>) b_decode_scale(%db : memref<192xf32>) outs(%c : memref<256x192xbf16>) : memref<256x128xf4E2M1FN>, memref<2x2x32x4x4xf8E4M3FN>, memref<192x128xf4E2M1FN>, memref<2x2x32x4x4xf8E4M3FN>
  return
}

// -----

// Contiguous groups: one kernel over every group's tiles; arguments are the
// token map, the stacked weights' map (3 x 96 rows) and their scales, the
// output, the group offsets and the per-group b decode scales, which the
// scheduler and the epilogue's alpha read.
// CHECK-LABEL: func.func @contiguous(
// CHECK:         memref.view {{.*}} to memref<288x32xui8>
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.func @nvfp4_sm90_gemm_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %[[TABLE:.*]]: i64, %[[DB:.*]]: i64)
// CHECK:           nvfp4k.scheduler.create %[[TABLE]] : <mode = contiguous, groups = 3, rows = 256, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 32, k_blocks = 1>
// CHECK:           nvfp4k.alpha %{{.*}} b_decode(%[[DB]]) {b_decode_per_group} : f32
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
// rows past masked_m[g]. Arguments: the token and weight maps, scales,
// output, accumulator, masked_m; the epilogue adds beta * acc.
// CHECK-LABEL: func.func @masked(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK:         gpu.launch blocks
// CHECK:           arith.cmpi sle
// CHECK:           memref.load %{{.*}} : memref<3x128x96xf32>
// CHECK:           arith.mulf
// CHECK:           memref.store %{{.*}} : memref<3x128x96xf32>
// CHECK:         nvfp4k.scheduler.create %{{.*}} : <mode = masked, groups = 3, rows = 128,
// CHECK:         nvfp4k.store {{.*}} acc(%{{.*}}) {beta = 5.000000e-01 : f32, element = f32, row_stride = 96 : i64}
// OPTS-LABEL: func.func @masked(
// OPTS:         gpu.launch_func @nvfp4_sm90_gemm_0
func.func @masked(%a: memref<3x128x64xf4E2M1FN>, %sa: memref<3x1x1x32x4x4xf8E4M3FN>,
                  %b: memref<3x96x64xf4E2M1FN>, %sb: memref<3x1x1x32x4x4xf8E4M3FN>,
                  %mm: memref<3xi32>, %acc: memref<3x128x96xf32>, %c: memref<3x128x96xf32>) {
  nvfp4.grouped_matmul masked a(%a : memref<3x128x64xf4E2M1FN>) a_scales(%sa : memref<3x1x1x32x4x4xf8E4M3FN>) b(%b : memref<3x96x64xf4E2M1FN>) b_scales(%sb : memref<3x1x1x32x4x4xf8E4M3FN>) masked_m(%mm : memref<3xi32>) acc(%acc : memref<3x128x96xf32>) outs(%c : memref<3x128x96xf32>) {beta = 5.000000e-01 : f32}
  return
}

// -----

// Independent groups of one N and K: one token pre-pass over both groups
// (each row reads its own group's operand: the groups' operands as memrefs
// of a dynamic row count, one picked by a select per group, one body), one
// kernel, a weight map, scale and output pointer per group.
// CHECK-LABEL: func.func @independent(
// CHECK:         gpu.launch blocks
// CHECK-NOT:       scf.index_switch
// CHECK:           %[[A0:.*]] = memref.cast %{{.*}} : memref<40x32xi8> to memref<?x32xi8>
// CHECK:           %[[A1:.*]] = memref.cast %{{.*}} : memref<200x32xi8> to memref<?x32xi8>
// CHECK:           %[[A:.*]] = arith.select %{{.*}}, %[[A1]], %[[A0]] : memref<?x32xi8>
// CHECK:           %[[S0:.*]] = memref.cast %{{.*}} : memref<1x1x32x4x4xi8> to memref<?x1x32x4x4xi8>
// CHECK:           %[[S1:.*]] = memref.cast %{{.*}} : memref<2x1x32x4x4xi8> to memref<?x1x32x4x4xi8>
// CHECK:           arith.select %{{.*}}, %[[S1]], %[[S0]] : memref<?x1x32x4x4xi8>
// CHECK:           vector.load %[[A]][{{.*}}] {{.*}} : memref<?x32xi8>, vector<8xi8>
// CHECK-NOT:       scf.index_switch
// CHECK-NOT:     gpu.launch blocks
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK:         nvfp4k.scheduler.create : <mode = independent, groups = 2, rows = 240, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 32, group_rows = [40, 200], k_blocks = 1>
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

// What the kernel does not cover keeps the portable SIMT kernel: odd N,
// independent groups of different N, K not a multiple of 32, and with
// bf16-mma=false (the f16 MMA only) MXFP4 and bf16 activations
// (weight-only).
// CHECK-LABEL: func.func @portable(
// CHECK-NOT:     nvfp4_sm90_gemm
// CHECK-COUNT-5: gpu.launch blocks
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
                    %g0: memref<64x96xf32>, %g1: memref<64x32xf32>,
                    %ak: memref<64x48xf4E2M1FN>, %sak: memref<1x1x32x4x4xf8E4M3FN>,
                    %bk: memref<96x48xf4E2M1FN>, %sbk: memref<1x1x32x4x4xf8E4M3FN>,
                    %ck: memref<64x96xf32>, %xw: memref<64x64xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<64x96xf32>) : memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>, memref<96x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>
  nvfp4.matmul %an, %san, %bo, %sbo outs(%co : memref<64x95xf32>) : memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<95x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  nvfp4.grouped_matmul independent a(%an, %an : memref<64x64xf4E2M1FN>, memref<64x64xf4E2M1FN>) a_scales(%san, %san : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) b(%bn, %b2 : memref<96x64xf4E2M1FN>, memref<32x64xf4E2M1FN>) b_scales(%sbn, %sb2 : memref<1x1x32x4x4xf8E4M3FN>, memref<1x1x32x4x4xf8E4M3FN>) outs(%g0, %g1 : memref<64x96xf32>, memref<64x32xf32>)
  nvfp4.matmul %ak, %sak, %bk, %sbk outs(%ck : memref<64x96xf32>) : memref<64x48xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<96x48xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  nvfp4.matmul %xw, %bn, %sbn outs(%c : memref<64x96xf32>) : memref<64x64xbf16>, memref<96x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  return
}

// -----

// Weight-only with f16 activations: exact in the kernel's f16 MMA, so the
// pre-pass copies them (K permuted, no scales) and the kernel runs; bf16
// activations stay on the portable kernel (@portable above).
// CHECK-LABEL: func.func @weight_only_f16(
// CHECK:         %[[X:.*]] = gpu.alloc () : memref<8x256xf16>
// CHECK:         gpu.launch
// CHECK:           vector.load %{{.*}} : memref<8x256xf16>, vector<16xf16>
// CHECK:           vector.store {{.*}}, %[[X]]{{.*}} : memref<8x256xf16>, vector<2xf16>
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_{{[0-9]+}}::@nvfp4_sm90_gemm_{{[0-9]+}}
// OPTS-LABEL: func.func @weight_only_f16(
// OPTS:         gpu.launch_func @nvfp4_sm90_gemm
func.func @weight_only_f16(%x: memref<8x256xf16>, %w: memref<192x256xf4E2M1FN>,
                           %sw: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<8x192xbf16>) {
  nvfp4.matmul %x, %w, %sw outs(%c : memref<8x192xbf16>) : memref<8x256xf16>, memref<192x256xf4E2M1FN>, memref<2x4x32x4x4xf8E4M3FN>
  return
}

// -----

// bf16 activations with bf16-mma: the pre-pass copies them into a bf16
// token operand (bf16 TMA boxes), the kernel dequantizes the weights to
// bf16 fragments and runs the bf16 wgmma. Without the option they stay
// portable (@portable).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="gemv=off bf16-mma=true" | FileCheck %s --check-prefix=BF16
// BF16-LABEL: func.func @weight_only_bf16(
// BF16:         %[[X:.*]] = gpu.alloc () : memref<8x256xbf16>
// BF16:         vector.load %{{.*}} : memref<8x256xbf16>, vector<16xbf16>
// BF16:         vector.store {{.*}}, %[[X]]{{.*}} : memref<8x256xbf16>, vector<2xbf16>
// BF16:         nvgpu.tma.create.descriptor {{.*}} : memref<*xbf16> -> <tensor = memref<{{[0-9]+}}x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// BF16:         gpu.launch_func @nvfp4_sm90_gemm_{{[0-9]+}}::@nvfp4_sm90_gemm_{{[0-9]+}}
// BF16:         nvfp4k.dequant.fragment_a {{.*}} -> vector<4x8xbf16>
// BF16:         nvfp4k.wgmma.rs {{.*}} : vector<{{[0-9]+}}xf32>, vector<4x8xbf16>, <tensor = memref<{{[0-9]+}}x128xbf16, #gpu.address_space<workgroup>>>
// CHECK-LABEL: func.func @weight_only_bf16(
// CHECK-NOT:     nvfp4_sm90_gemm
// OPTS-LABEL: func.func @weight_only_bf16(
func.func @weight_only_bf16(%x: memref<8x256xbf16>, %w: memref<192x256xf4E2M1FN>,
                            %sw: memref<2x4x32x4x4xf8E4M3FN>, %c: memref<8x192xbf16>) {
  nvfp4.matmul %x, %w, %sw outs(%c : memref<8x192xbf16>) : memref<8x256xbf16>, memref<192x256xf4E2M1FN>, memref<2x4x32x4x4xf8E4M3FN>
  return
}
