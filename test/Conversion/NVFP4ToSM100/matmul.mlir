// Block-scaled matmuls on the sm_100a tcgen05 kernel: the host side and the
// kernel's structure in nvfp4k ops (CHECK), and, through
// convert-nvfp4k-to-nvvm, the tcgen05 instructions they become (NVVM). The
// kernels are assembled for sm_100a and decoded in
// test/Integration/GPUCompile/lower-to-sm100.mlir; none has run on
// Blackwell hardware.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-bufferize --convert-nvfp4-to-sm100 | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --nvfp4-bufferize --convert-nvfp4-to-sm100 --convert-nvfp4k-to-nvvm --cse | FileCheck %s --check-prefix=NVVM

// Contiguous groups of ~75 rows: 128-token tiles (MMA N = 128), 6 stages.
// CHECK-LABEL: func.func @contiguous(
// Tensor maps of the FP4 codes as [rows, K/2] ui8 bytes (UINT8), 128 x 128
// boxes, 128B swizzle: the tokens, then the stacked weights (G * N rows).
// CHECK:         memref.view %{{.*}} : memref<1075200xi8> to memref<300x3584xui8>
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c128{{.*}}] : memref<*xui8> -> <tensor = memref<128x128xui8, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         memref.view %{{.*}} : memref<7340032xi8> to memref<2048x3584xui8>
// CHECK:         nvgpu.tma.create.descriptor
// The token scales repacked so that each group starts on a 128-row block:
// (ceil(300/128) + 4 groups) x 112 units x 512 bytes, zeroed, then one
// thread per scale byte of A, placed by the kernel's own group walk.
// CHECK:         %[[REPACK:.*]] = gpu.alloc () : memref<401408xi8>
// CHECK:         gpu.launch
// CHECK:         gpu.launch
// CHECK:           %[[S:.*]] = nvfp4k.scheduler.create %{{.*}} : <mode = contiguous, groups = 4, rows = 300,
// CHECK:           nvfp4k.scheduler.group_of %[[S]]
// CHECK:           nvfp4k.scheduler.blocks_before %[[S]]{{.*}} {block = 128 : i64}
// CHECK:           memref.store %{{.*}}, %[[REPACK]]
// 148 persistent CTAs of 192 threads; 6 stages of 36864 bytes, the TMEM
// slot, 1 KiB of alignment slack.
// CHECK:         gpu.launch_func @nvfp4_sm100_gemm_0::@nvfp4_sm100_gemm_0 blocks in (%c148, %{{.*}}, %{{.*}}) threads in (%c192, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %c222224_i32 args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK:       gpu.func @nvfp4_sm100_gemm_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) kernel attributes {nvvm.reqntid = array<i32: 192, 1, 1>}
// The same layer as sm_90a: the stage ring (released by one tcgen05.commit),
// an accumulator ring (2 TMEM buffers, released by the 4 epilogue warps),
// the scheduler.
// CHECK:         nvfp4k.shared_memory : memref<221200xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[RING:.*]] = nvfp4k.ring.create : <6, consumers = 1>
// CHECK:         %[[ACC:.*]] = nvfp4k.ring.create : <2, consumers = 4>
// CHECK:         %[[SCHED:.*]] = nvfp4k.scheduler.create %{{.*}} : <mode = contiguous, groups = 4, rows = 300, weight_tiles = 4, weight_rows = 128, token_tile = 128, granule = 0>
// 2 x 128 accumulator columns + 6 x (16 + 16) scale columns -> 512.
// CHECK:         nvvm.tcgen05.alloc %{{.*}}, %c512_i32 : !llvm.ptr<3>, i32
// CHECK:         nvvm.tcgen05.relinquish_alloc_permit
// CHECK:         nvvm.tcgen05.fence <before>
// CHECK:         gpu.barrier
// CHECK:         nvvm.tcgen05.fence <after>
// Warp 0, one lane: per stage, wait empty, expect the bytes, TMA both
// tiles (coordinates: K byte, row), bulk-copy the scale units (the token
// units only for the group's blocks).
// CHECK:           nvvm.elect.sync
// CHECK:           nvfp4k.scheduler.tile %[[SCHED]]
// CHECK:           nvfp4k.scheduler.blocks_before %[[SCHED]]
// CHECK:           nvfp4k.ring.wait_empty %[[RING]]
// CHECK:           nvfp4k.ring.expect_tx %[[RING]]
// CHECK-COUNT-2:   nvfp4k.tma.load {{.*}} memref<128x128xui8, #gpu.address_space<workgroup>>, <6, consumers = 1>
// CHECK:           nvfp4k.bulk.load {{.*}} : memref<2048xi8, #gpu.address_space<workgroup>>
// CHECK:           scf.if
// CHECK:             nvfp4k.bulk.load {{.*}} : memref<2048xi8, #gpu.address_space<workgroup>>
// Warp 1, one lane: wait the epilogue for the accumulator, then per stage
// wait full, one MMA step (scale copy and 4 MMAs), commit the stage; after
// the tile, commit the accumulator.
// CHECK:           nvvm.elect.sync
// CHECK:           nvfp4k.ring.wait_empty %[[ACC]]
// CHECK:           nvvm.tcgen05.fence <after>
// CHECK:           nvfp4k.ring.wait_full %[[RING]]
// CHECK:           nvvm.tcgen05.fence <after>
// CHECK:           nvfp4k.tcgen05.scaled_mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32 {b_scale_blocks = 1 : i64, n = 128 : i64, steps = 4 : i64, total_steps = 112 : i64, total_units = 112 : i64, units = 4 : i64} : memref<128x128xui8, #gpu.address_space<workgroup>>, memref<128x128xui8, #gpu.address_space<workgroup>>, memref<2048xi8, #gpu.address_space<workgroup>>, memref<2048xi8, #gpu.address_space<workgroup>>
// CHECK:           nvfp4k.tcgen05.commit %[[RING]][%{{.*}}], <empty>
// CHECK:           nvfp4k.tcgen05.commit %[[ACC]][%{{.*}}], <full>
// Warps 2-5: wait the accumulator, 4 x tcgen05.ld 32x32b.x32, the shared
// epilogue op, fence, release the buffer.
// CHECK:           nvfp4k.ring.wait_full %[[ACC]]
// CHECK:           nvvm.tcgen05.fence <after>
// CHECK:           nvfp4k.alpha %{{.*}} b_decode(%{{.*}}) {b_decode_per_group} : f32
// CHECK:           nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK:           nvfp4k.store {{.*}} {element = bf16, row_stride = 512 : i64} : vector<1xf32>
// CHECK:           nvvm.tcgen05.fence <before>
// CHECK:           nvfp4k.ring.release %[[ACC]]
// CHECK:         gpu.barrier
// CHECK:           nvvm.tcgen05.dealloc %{{.*}}, %c512_i32 : !llvm.ptr<6>, i32
//
// Lowered: full[6] and empty[6] (one arrival each), full[2] (a commit) and
// empty[2] (4 warps) of the accumulator ring, fenced for the async proxy;
// per stage 4 weight and 4 token unit copies to TMEM (SBO 128 B, no
// swizzle), 4 MMAs mxf4nvf4 block16 with idesc 0x8200480 (M 128, N 128,
// E2M1, UE4M3) on SW128 K-major descriptors (LBO 16 B, SBO 1024 B), and
// the commits to the rings' mbarriers.
// NVVM-LABEL: func.func @contiguous(
// NVVM:         nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 12>
// NVVM-COUNT-12: nvgpu.mbarrier.init %{{.*}}, %c1, predicate
// NVVM:         nvvm.fence.mbarrier.init
// NVVM:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// NVVM:         nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// NVVM-COUNT-2: nvgpu.mbarrier.init %{{.*}}, %c1, predicate
// NVVM-COUNT-2: nvgpu.mbarrier.init %{{.*}}, %c4, predicate
// NVVM:         nvgpu.mbarrier.try_wait.parity
// NVVM:         nvgpu.mbarrier.arrive.expect_tx
// NVVM:         nvgpu.tma.async.load
// NVVM:         nvgpu.tma.async.load
// NVVM:         nvvm.cp.async.bulk.shared.cluster.global
// NVVM-COUNT-8: nvvm.tcgen05.cp %{{.*}}, %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// NVVM:         nvvm.tcgen05.mma_smem_desc(%{{.*}}, %c1_i32, %c64_i32, %c0_i8, %false, %c2_i8)
// NVVM:         nvvm.tcgen05.mma_smem_desc(%{{.*}}, %c1_i32, %c64_i32, %c0_i8, %false, %c2_i8)
// NVVM-COUNT-4: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %c136316032_i32, %{{.*}}, %{{.*}}, %{{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>
// NVVM:         nvgpu.mbarrier.get
// NVVM:         nvvm.tcgen05.commit
// NVVM:         nvgpu.mbarrier.get
// NVVM:         nvvm.tcgen05.commit
// NVVM-COUNT-4: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// NVVM:         nvgpu.mbarrier.arrive
func.func @contiguous(%a: tensor<300x7168xf4E2M1FN>, %sa: tensor<3x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %b: tensor<4x512x7168xf4E2M1FN>, %sb: tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %off: tensor<5xi32>, %db: tensor<4xf32>) -> tensor<300x512xbf16> {
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<300x7168xf4E2M1FN>) a_scales(%sa : tensor<3x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<4x512x7168xf4E2M1FN>) b_scales(%sb : tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<5xi32>) b_decode_scale(%db : tensor<4xf32>) -> tensor<300x512xbf16>
  return %c : tensor<300x512xbf16>
}

// -----

// MXFP4: mxf4 block32, UE8M0 (bit 23); a unit covers K = 128, so the MMAs
// alternate scale ids 0 and 2 (0x8a00480, 0x48a004a0).
// CHECK-LABEL: func.func @mxfp4(
// CHECK:         nvfp4k.tcgen05.scaled_mma {{.*}} {b_scale_blocks = 1 : i64, mxfp4, n = 128 : i64, steps = 4 : i64, total_steps = 8 : i64, total_units = 4 : i64, units = 2 : i64}
// NVVM-LABEL: func.func @mxfp4(
// NVVM:         nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %c144704640_i32, {{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4>
// NVVM:         nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %c1218446496_i32, {{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4>
func.func @mxfp4(%xa: tensor<256x512xf4E2M1FN>, %xsa: tensor<2x4x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>,
                 %xb: tensor<384x512xf4E2M1FN>, %xsb: tensor<3x4x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) -> tensor<256x384xbf16> {
  %x = nvfp4.matmul %xa, %xsa, %xb, %xsb : tensor<256x512xf4E2M1FN>, tensor<2x4x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, tensor<384x512xf4E2M1FN>, tensor<3x4x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<256x384xbf16>
  return %x : tensor<256x384xbf16>
}

// -----

// 2048 tokens: 256-token tiles (N = 256, idesc 0x8400480), one accumulator
// (256 + 4 x 48 columns -> 512), 4 stages; the token tile spans two 128-row
// scale blocks: two token unit copies per weight unit. No repacking for a
// plain matmul.
// CHECK-LABEL: func.func @wide(
// CHECK-NOT:     gpu.alloc
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c256, %c128]
// CHECK:         gpu.launch_func @nvfp4_sm100_gemm_0::@nvfp4_sm100_gemm_0 {{.*}} dynamic_shared_memory_size %c222224_i32
// CHECK:         nvfp4k.ring.create : <4, consumers = 1>
// CHECK:         nvfp4k.ring.create : <1, consumers = 4>
// CHECK:         nvvm.tcgen05.alloc %{{.*}}, %c512_i32
// CHECK:         nvfp4k.tcgen05.scaled_mma {{.*}} {b_scale_blocks = 2 : i64, n = 256 : i64, steps = 4 : i64, total_steps = 4 : i64, total_units = 4 : i64, units = 4 : i64}
// CHECK-COUNT-8: nvvm.tcgen05.ld
// NVVM-LABEL: func.func @wide(
// NVVM-COUNT-3: nvvm.tcgen05.cp
// NVVM:         nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %c138413184_i32,
func.func @wide(%a0: tensor<2048x256xf4E2M1FN>, %sa0: tensor<16x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %b0: tensor<200x256xf4E2M1FN>, %sb0: tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<2048x200xf32> {
  %d = nvfp4.matmul %a0, %sa0, %b0, %sb0 : tensor<2048x256xf4E2M1FN>, tensor<16x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<200x256xf4E2M1FN>, tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<2048x200xf32>
  return %d : tensor<2048x200xf32>
}

// -----

// A row-scaled A (a_decode [M]) with a per-tensor b_decode: the epilogue forms
// alpha per output at its row (past the group's rows: row 0), through the
// same nvfp4k.alpha as sm_90a's, and stores each output with its own; the
// lowering loads a_decode[row] and b_decode[0] (invariant loads).
// CHECK-LABEL: func.func @row_scaled(
// CHECK:         gpu.func @nvfp4_sm100_gemm_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[DA:[^:]*]]: i64, %[[DB:[^:]*]]: i64)
// CHECK:           nvvm.tcgen05.ld
// CHECK:           %[[ROW:.*]] = arith.subi %{{.*}}, %group_start : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi slt, %[[ROW]], %[[ROWS:.*]] : index
// CHECK:           %[[R:.*]] = arith.select %[[IN]], %[[ROW]], %{{.*}} : index
// CHECK-NEXT:      %[[AL:.*]] = nvfp4k.alpha %{{.*}} a_decode(%[[DA]]) b_decode(%[[DB]]) row(%[[R]]) {a_decode_per_row} : f32
// CHECK:           nvfp4k.store %{{.*}}, %{{.*}}[%[[ROW]], %{{.*}}] bounds(%[[ROWS]], %{{.*}}) alpha(%[[AL]]) {element = f32, row_stride = 200 : i64} : vector<1xf32>
// NVVM-LABEL: func.func @row_scaled(
// NVVM:         nvvm.tcgen05.ld
// NVVM:         %[[R:.*]] = arith.select %{{.*}}, %{{.*}}, %c0 : index
// NVVM-NEXT:    %[[OFF:.*]] = arith.muli %[[R]], %c4 : index
// NVVM-NEXT:    %[[BASE:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// NVVM-NEXT:    %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// NVVM-NEXT:    %[[P:.*]] = llvm.getelementptr %[[BASE]][%[[OFF64]]]
// NVVM-NEXT:    %[[VA:.*]] = llvm.load %[[P]] invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// NVVM:         %[[VB:.*]] = llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// NVVM-NEXT:    arith.mulf %[[VA]], %[[VB]] : f32
func.func @row_scaled(%a0: tensor<2048x256xf4E2M1FN>, %sa0: tensor<16x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %b0: tensor<200x256xf4E2M1FN>, %sb0: tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %da: tensor<2048xf32>, %db: tensor<f32>) -> tensor<2048x200xf32> {
  %d = nvfp4.matmul %a0, %sa0, %b0, %sb0 a_decode_scale(%da : tensor<2048xf32>) b_decode_scale(%db : tensor<f32>) : tensor<2048x256xf4E2M1FN>, tensor<16x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<200x256xf4E2M1FN>, tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<2048x200xf32>
  return %d : tensor<2048x200xf32>
}

// -----

// Masked slots of 40 rows: 64-token tiles (N = 64, idesc 0x8100480); the
// MMA's token scales start (row % 128) / 32 columns into the unit. The rows
// past masked_m[g] get beta * acc from a portable kernel.
// CHECK-LABEL: func.func @masked(
// CHECK:         memref.view %{{.*}} to memref<160x3584xui8>
// CHECK:         nvgpu.tma.create.descriptor %{{.*}} box[%c64, %c128]
// CHECK:         gpu.launch_func @nvfp4_sm100_gemm_0::@nvfp4_sm100_gemm_0
// CHECK:         gpu.launch blocks
// CHECK:           arith.cmpi sle
// CHECK:       gpu.func @nvfp4_sm100_gemm_0(
// CHECK:         nvfp4k.scheduler.create %{{.*}} : <mode = masked, groups = 4, rows = 40,
// CHECK:         nvfp4k.tcgen05.scaled_mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{[0-9]+}} {b_scale_blocks = 1 : i64, n = 64 : i64,
// CHECK-COUNT-2: nvvm.tcgen05.ld
// CHECK:         nvfp4k.store {{.*}} acc(%{{.*}}) {beta = 5.000000e-01 : f32, element = f16, row_stride = 512 : i64} : vector<1xf32>
// NVVM-LABEL: func.func @masked(
// NVVM:         nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %c135267456_i32,
func.func @masked(%am: tensor<4x40x7168xf4E2M1FN>, %sam: tensor<4x1x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %b: tensor<4x512x7168xf4E2M1FN>, %sb: tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %mm: tensor<4xi32>, %acc: tensor<4x40x512xf16>) -> tensor<4x40x512xf16> {
  %m = nvfp4.grouped_matmul masked a(%am : tensor<4x40x7168xf4E2M1FN>) a_scales(%sam : tensor<4x1x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<4x512x7168xf4E2M1FN>) b_scales(%sb : tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%mm : tensor<4xi32>) acc(%acc : tensor<4x40x512xf16>) {beta = 0.5 : f32} -> tensor<4x40x512xf16>
  return %m : tensor<4x40x512xf16>
}

// -----

// K not a multiple of 32 stays on the portable kernel.
// CHECK-LABEL: func.func @portable(
// CHECK-NOT:     nvfp4_sm100_gemm
// CHECK:         gpu.launch blocks
// CHECK-NOT:     nvfp4_sm100_gemm
func.func @portable(%a: tensor<64x48xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                    %b: tensor<96x48xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<64x96xf32> {
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<64x48xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<96x48xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<64x96xf32>
  return %c : tensor<64x96xf32>
}

// -----

// bf16 activations (weight-only): tcgen05's block-scaled MMA takes FP4 on
// both sides, so the portable kernel runs them.
// CHECK-LABEL: func.func @weight_only(
// CHECK-NOT:     nvfp4_sm100_gemm
// CHECK:         gpu.launch blocks
// CHECK-NOT:     nvfp4_sm100_gemm
func.func @weight_only(%x: tensor<64x64xbf16>,
                       %b: tensor<96x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<64x96xbf16> {
  %c = nvfp4.matmul %x, %b, %sb : tensor<64x64xbf16>, tensor<96x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<64x96xbf16>
  return %c : tensor<64x96xbf16>
}

// -----

// Quantize: round-to-nearest E2M1 pairs from the hardware conversion (x[2p+1]
// first: it lands in the high nibble); stochastic rounding keeps the
// emulated rule.
// CHECK-LABEL: func.func @quantize(
// CHECK:         gpu.launch
// CHECK:         gpu.launch
// CHECK-COUNT-8:   nvvm.convert.f32x2.to.f4x2 %{{.*}}, %{{.*}} : i8(f4E2M1FN)
// CHECK:         gpu.launch
// CHECK-NOT:       nvvm.convert.f32x2.to.f4x2
// CHECK:         return
func.func @quantize(%x: tensor<256x512xbf16>, %y: tensor<128x256xf32>, %seed: i64)
    -> (tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>) {
  %q0, %s0, %d0 = nvfp4.quantize nvfp4 %x : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %q1, %s1, %d1 = nvfp4.quantize nvfp4 %y seed %seed {rounding = #nvfp4.rounding<stochastic>} : tensor<128x256xf32> -> tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>, tensor<f32>
  return %q0, %s0, %q1, %s1 : tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>
}
