// nvfp4-test-mutate-tcgen05 (the emulation's mutation test,
// test/Integration/GPU/emulate-tcgen05.test) changes exactly the field it is
// asked to, in the ops that carry it.
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=swizzle | FileCheck %s --check-prefix=SWIZZLE
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=sbo | FileCheck %s --check-prefix=SBO
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=lbo | FileCheck %s --check-prefix=LBO
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=idesc-n | FileCheck %s --check-prefix=IDESCN
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=idesc-m | FileCheck %s --check-prefix=IDESCM
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=sf-id | FileCheck %s --check-prefix=SFID
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=cp-shape | FileCheck %s --check-prefix=CPSHAPE
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=tmem-column | FileCheck %s --check-prefix=TMEMCOLUMN
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=scale-column | FileCheck %s --check-prefix=SCALECOLUMN
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=d-column | FileCheck %s --check-prefix=DCOLUMN
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=enable-input-d | FileCheck %s --check-prefix=ENABLED
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=commit-mask | FileCheck %s --check-prefix=COMMITMASK
// RUN: nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=cta-group | FileCheck %s --check-prefix=CTAGROUP --implicit-check-not="cta_group<cta_2>"
// RUN: not nvfp4-opt %s --nvfp4-test-mutate-tcgen05=field=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS

// The operand descriptor's swizzle (128B, code 2) becomes 64B (code 4); the
// scale copy's descriptor (no swizzle) is left alone.
// SWIZZLE: nvvm.tcgen05.mma_smem_desc(%{{.*}}, %c0_i32, %c8_i32, %c0_i8, %false, %c0_i8)
// SWIZZLE: %[[C4:.*]] = arith.constant 4 : i8
// SWIZZLE: nvvm.tcgen05.mma_smem_desc(%{{.*}}, %c1_i32, %c64_i32, %c0_i8, %false, %[[C4]])
// SBO: %[[HALF:.*]] = arith.divui %c64_i32, %c2_i32
// SBO: nvvm.tcgen05.mma_smem_desc(%{{.*}}, %c1_i32, %[[HALF]], %c0_i8, %false, %c2_i8)
// LBO: nvvm.tcgen05.mma_smem_desc(%{{.*}}, %c2_i32, %c64_i32, %c0_i8, %false, %c2_i8)
// IDESCN: %[[N:.*]] = arith.shrui %c136316032_i32, %c17_i32
// IDESCN: nvvm.tcgen05.mma.block_scale
// IDESCM: %[[I:.*]] = arith.xori %c136316032_i32, %c402653184_i32
// IDESCM: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[I]],
// SFID: %[[I:.*]] = arith.xori %c136316032_i32, %c1073741824_i32
// SFID: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[I]],
// CPSHAPE: nvvm.tcgen05.cp %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_cp_shape<shape_128x128b>}
// TMEMCOLUMN: %[[P:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<6> to i32
// TMEMCOLUMN: %[[Q:.*]] = arith.addi %[[P]], %c1_i32
// TMEMCOLUMN: %[[R:.*]] = llvm.inttoptr %[[Q]] : i32 to !llvm.ptr<6>
// TMEMCOLUMN: nvvm.tcgen05.ld %[[R]]
// SCALECOLUMN: %[[P:.*]] = llvm.ptrtoint %[[SFB:.*]] : !llvm.ptr<6> to i32
// SCALECOLUMN: %[[Q:.*]] = arith.addi %[[P]], %c1_i32
// SCALECOLUMN: %[[R:.*]] = llvm.inttoptr %[[Q]] : i32 to !llvm.ptr<6>
// SCALECOLUMN: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SFB]], %[[R]]
// DCOLUMN: %[[P:.*]] = llvm.ptrtoint %[[D:.*]] : !llvm.ptr<6> to i32
// DCOLUMN: %[[Q:.*]] = arith.addi %[[P]], %c1_i32
// DCOLUMN: %[[R:.*]] = llvm.inttoptr %[[Q]] : i32 to !llvm.ptr<6>
// DCOLUMN: nvvm.tcgen05.mma.block_scale %[[R]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}
// DCOLUMN: nvvm.tcgen05.ld %[[D]]
// ENABLED: %[[TRUE:.*]] = arith.constant true
// ENABLED: nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TRUE]], %{{.*}}, %{{.*}}
// BOGUS: nvfp4-test-mutate-tcgen05: unknown field 'bogus'

// The CTA pair (as NVIDIA's CuTe DSL writes it): an operand descriptor
// advanced along K by arithmetic is an operand descriptor too; M 256 -> 128;
// the multicast commit's mask without the odd CTAs; every cta_group::2 op
// made cta_group::1.
// SWIZZLE-LABEL: gpu.module @pair
// SWIZZLE: nvvm.tcgen05.mma_smem_desc(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c4_i8)
// IDESCM-LABEL: gpu.module @pair
// IDESCM: arith.xori %c272630912_i32, %c402653184_i32
// COMMITMASK-LABEL: gpu.module @pair
// COMMITMASK: %[[M:.*]] = arith.andi %{{.*}}, %c21845_i16 : i16
// COMMITMASK: nvvm.tcgen05.commit %{{.*}}, multicast_mask = %[[M]] {group = #nvvm.cta_group<cta_2>}
// CTAGROUP-LABEL: gpu.module @pair
// CTAGROUP: ctaGroup = #nvvm.cta_group<cta_1>
// CTAGROUP: nvvm.tcgen05.commit %{{.*}}, multicast_mask = %{{.*}} : !llvm.ptr<3>, i16
gpu.module @kernel {
  gpu.func @k(%d: !llvm.ptr<6>, %sf: !llvm.ptr<6>, %addr: i32, %en: i1) kernel {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c8_i32 = arith.constant 8 : i32
    %c64_i32 = arith.constant 64 : i32
    %c0_i8 = arith.constant 0 : i8
    %c2_i8 = arith.constant 2 : i8
    %false = arith.constant false
    %idesc = arith.constant 136316032 : i32
    %s = nvvm.tcgen05.mma_smem_desc(%addr, %c0_i32, %c8_i32, %c0_i8, %false, %c0_i8) : (i32, i32, i32, i8, i1, i8) -> i64
    nvvm.tcgen05.cp %sf, %s {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
    %a = nvvm.tcgen05.mma_smem_desc(%addr, %c1_i32, %c64_i32, %c0_i8, %false, %c2_i8) : (i32, i32, i32, i8, i1, i8) -> i64
    nvvm.tcgen05.mma.block_scale %d, %a, %a, %idesc, %en, %sf, %sf {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    %v = nvvm.tcgen05.ld %d {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
    gpu.return
  }
}

gpu.module @pair {
  gpu.func @k(%d: !llvm.ptr<6>, %addr: i32, %bar: !llvm.ptr<3>, %mask: i16, %en: i1) kernel {
    %c1_i32 = arith.constant 1 : i32
    %c64_i32 = arith.constant 64 : i32
    %c2_i8 = arith.constant 2 : i8
    %c2_i64 = arith.constant 2 : i64
    %false = arith.constant false
    %idesc = arith.constant 272630912 : i32
    %a = nvvm.tcgen05.mma_smem_desc(%addr, %c1_i32, %c64_i32, %c2_i8, %false, %c2_i8) : (i32, i32, i32, i8, i1, i8) -> i64
    %k = arith.addi %a, %c2_i64 : i64
    nvvm.tcgen05.mma.block_scale %d, %k, %k, %idesc, %en, %d, %d {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.block_scale_kind<mxf4nvf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    nvvm.tcgen05.commit %bar, multicast_mask = %mask {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
    gpu.return
  }
}
