// The sm_100a MMA step: the scale copy to tensor memory and the block-scaled
// tcgen05 MMAs, with the shared-memory and instruction descriptors built in
// one place.
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4k-to-nvvm --cse | FileCheck %s

// NVFP4, 4 steps and 4 scale units per stage, the K ending after 6 steps:
// stage ks runs global steps 4 ks + j and units 4 ks + u, each guarded by
// "< 6". Unit u of A goes to columns cols + 4u, of B to cols + 16 + 4u
// (4 A units first), from descriptors with no swizzle, LBO 0, SBO 128 B.
// CHECK-LABEL: gpu.func @nvfp4(
// CHECK-SAME:    %[[ACC:[^:]*]]: i32, %[[A:[^:]*]]: memref<128x128xui8, {{.*}}>, %[[B:[^:]*]]: memref<128x128xui8, {{.*}}>, %[[SA:[^:]*]]: memref<2048xi8, {{.*}}>, %[[SB:[^:]*]]: memref<2048xi8, {{.*}}>, %[[COLS:[^:]*]]: i32, %[[KS:[^:]*]]: index, %[[SHIFT:[^:]*]]: i32)
// CHECK:         %[[FIRST:.*]] = arith.muli %[[KS]], %c4 : index
// CHECK:         %[[BCOLS:.*]] = arith.addi %[[COLS]], %c16_i32 : i32
// CHECK:         %[[SAP:.*]] = memref.extract_aligned_pointer_as_index %[[SA]]
// CHECK:         %[[SA32:.*]] = arith.index_cast %[[SAP]] : index to i32
// CHECK:         %[[SBP:.*]] = memref.extract_aligned_pointer_as_index %[[SB]]
// CHECK:         %[[SB32:.*]] = arith.index_cast %[[SBP]] : index to i32
// CHECK:         %[[U0:.*]] = arith.addi %[[FIRST]], %c0 : index
// CHECK:         %[[IN0:.*]] = arith.cmpi slt, %[[U0]], %c6 : index
// CHECK:         scf.if %[[IN0]] {
// CHECK:           %[[AADDR:.*]] = arith.addi %[[SA32]], %c0_i32 : i32
// CHECK:           %[[ACOL:.*]] = arith.addi %[[COLS]], %c0_i32 : i32
// CHECK:           %[[AENC:.*]] = arith.shrui %[[AADDR]], %c4_i32{{.*}} : i32
// CHECK:           %[[ADESC:.*]] = nvvm.tcgen05.mma_smem_desc(%[[AENC]], %c0_i32, %c8_i32, %{{.*}}, %false{{.*}}, %{{.*}})
// CHECK:           %[[ATM:.*]] = llvm.inttoptr %[[ACOL]] : i32 to !llvm.ptr<6>
// CHECK:           nvvm.tcgen05.cp %[[ATM]], %[[ADESC]] {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK:           %[[BADDR:.*]] = arith.addi %[[SB32]], %c0_i32 : i32
// CHECK:           %[[BCOL:.*]] = arith.addi %[[BCOLS]], %c0_i32 : i32
// CHECK:           nvvm.tcgen05.cp
// CHECK:         }
// Unit 1: 512 bytes on, 4 columns on.
// CHECK:         %[[U1:.*]] = arith.addi %[[FIRST]], %c1 : index
// CHECK:         %[[IN1:.*]] = arith.cmpi slt, %[[U1]], %c6 : index
// CHECK:         scf.if %[[IN1]] {
// CHECK:           arith.addi %[[SA32]], %c512_i32 : i32
// CHECK:           arith.addi %[[COLS]], %c4_i32{{.*}} : i32
// CHECK:           nvvm.tcgen05.cp
// CHECK:           arith.addi %[[SB32]], %c512_i32 : i32
// CHECK:           nvvm.tcgen05.cp
// CHECK:         }
// CHECK:         scf.if
// CHECK:           arith.addi %[[SA32]], %c1024_i32 : i32
// CHECK:         scf.if
// CHECK:           arith.addi %[[SA32]], %c1536_i32 : i32
// Operand descriptors: K-major 128B swizzle (layout 2), LBO 1 (unused),
// SBO 1024 B >> 4 = 64.
// CHECK:         %[[AP:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:         %[[A32:.*]] = arith.index_cast %[[AP]] : index to i32
// CHECK:         %[[AE:.*]] = arith.shrui %[[A32]], %c4_i32 : i32
// CHECK:         %[[AD:.*]] = nvvm.tcgen05.mma_smem_desc(%[[AE]], %c1_i32, %c64_i32, %c0_i8, %false, %c2_i8)
// CHECK:         %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK:         %[[B32:.*]] = arith.index_cast %[[BP]] : index to i32
// CHECK:         %[[BE:.*]] = arith.shrui %[[B32]], %c4_i32 : i32
// CHECK:         %[[BD:.*]] = nvvm.tcgen05.mma_smem_desc(%[[BE]], %c1_i32, %c64_i32, %c0_i8, %false, %c2_i8)
// Step 0: accumulate unless it is the first step of the K; A's scales at
// cols, B's at cols + 16 + shift; idesc 0x8200480: E2M1 x E2M1 (bits 7, 10),
// UE4M3 scales, N = 128 (16 << 17), M = 128 (1 << 27: M >> 7), scale ids 0.
// CHECK:         scf.if %[[IN0]] {
// CHECK:           %[[ACC0:.*]] = arith.cmpi ne, %[[U0]], %c0 : index
// CHECK:           %[[SBC:.*]] = arith.addi %[[BCOLS]], %c0_i32 : i32
// CHECK:           %[[SBS:.*]] = arith.addi %[[SBC]], %[[SHIFT]] : i32
// CHECK:           %[[SBT:.*]] = llvm.inttoptr %[[SBS]] : i32 to !llvm.ptr<6>
// CHECK:           %[[SAC:.*]] = arith.addi %[[COLS]], %c0_i32 : i32
// CHECK:           %[[SAT:.*]] = llvm.inttoptr %[[SAC]] : i32 to !llvm.ptr<6>
// CHECK:           %[[ID:.*]] = arith.constant 136316032 : i32
// CHECK:           %[[D:.*]] = llvm.inttoptr %[[ACC]] : i32 to !llvm.ptr<6>
// CHECK:           nvvm.tcgen05.mma.block_scale %[[D]], %[[AD]], %[[BD]], %[[ID]], %[[ACC0]], %[[SAT]], %[[SBT]] {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>}
// CHECK:         }
// Step 1: both descriptors 32 B (2 in units of 16) along K; scales 4
// columns on.
// CHECK:         scf.if %[[IN1]] {
// CHECK:           arith.cmpi ne, %[[U1]], %c0 : index
// CHECK:           arith.addi %[[BCOLS]], %c4_i32 : i32
// CHECK:           %[[BD1:.*]] = arith.addi %[[BD]], %c2_i64 : i64
// CHECK:           %[[AD1:.*]] = arith.addi %[[AD]], %c2_i64 : i64
// CHECK:           nvvm.tcgen05.mma.block_scale %{{.*}}, %[[AD1]], %[[BD1]], %{{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block16>
// CHECK:         }
// CHECK:         scf.if
// CHECK:           arith.addi %[[AD]], %c4_i64 : i64
// CHECK:           nvvm.tcgen05.mma.block_scale
// CHECK:         scf.if
// CHECK:           arith.addi %[[AD]], %c6_i64 : i64
// CHECK:           nvvm.tcgen05.mma.block_scale
// CHECK:         }
// CHECK-NOT:     tcgen05
// CHECK:         gpu.return
!t = memref<128x128xui8, #gpu.address_space<workgroup>>
!s = memref<2048xi8, #gpu.address_space<workgroup>>
gpu.module @k {
  gpu.func @nvfp4(%acc: i32, %a: !t, %b: !t, %sa: !s, %sb: !s, %cols: i32, %ks: index, %shift: i32) kernel {
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %ks, %shift {b_scale_blocks = 1 : i64, n = 128 : i64, steps = 4 : i64, total_steps = 6 : i64, total_units = 6 : i64, units = 4 : i64} : !t, !t, !s, !s
    gpu.return
  }
}

// -----

// MXFP4: 32-value blocks, 2 scale units per stage; a 64-value step uses 2
// of a column's 4 scale bytes, so steps alternate scale-factor ids 0 and 2
// (bits 4-5 for B, 29-30 for A: 0x40000020 apart), with UE8M0 scales
// (bit 23).
// CHECK-LABEL: gpu.func @mxfp4(
// CHECK-COUNT-4: nvvm.tcgen05.cp
// CHECK-NOT:     nvvm.tcgen05.cp
// CHECK:         arith.constant 144704640 : i32
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4>}
// CHECK:         arith.constant 1218446496 : i32
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}}block32
// CHECK:         arith.constant 144704640 : i32
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}}block32
// CHECK:         arith.constant 1218446496 : i32
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}}block32
// CHECK-NOT:     tcgen05
!t = memref<128x128xui8, #gpu.address_space<workgroup>>
!s = memref<1024xi8, #gpu.address_space<workgroup>>
gpu.module @k {
  gpu.func @mxfp4(%acc: i32, %a: !t, %b: !t, %sa: !s, %sb: !s, %cols: i32, %ks: index, %shift: i32) kernel {
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %ks, %shift {b_scale_blocks = 1 : i64, mxfp4, n = 128 : i64, steps = 4 : i64, total_steps = 6 : i64, total_units = 3 : i64, units = 2 : i64} : !t, !t, !s, !s
    gpu.return
  }
}
