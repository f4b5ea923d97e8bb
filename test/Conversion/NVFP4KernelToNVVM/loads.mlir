// Loads onto a ring stage and tcgen05 commits: upstream nvgpu TMA with the
// stage's full barrier; the bulk copy to the shared::cluster address of the
// destination (PTX 8.0: sm_90a has no .shared::cta form before 8.6),
// completing on the same barrier; commits on the stage's full or empty
// barrier.
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm --cse | FileCheck %s

// CHECK-LABEL: gpu.func @loads(
// CHECK-SAME:    %[[MAP:[^:]*]]: !nvgpu.tensormap.descriptor<{{.*}}>, %[[SRC:.*]]: i64, %[[I:.*]]: index, %[[K:.*]]: index, %[[ROW:.*]]: index, %[[BYTES:.*]]: index)
// CHECK:         %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// CHECK:         %[[DST:.*]] = memref.view %{{.*}}[%c0][] : memref<32768xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[STAGE:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK:         nvgpu.tma.async.load %[[MAP]][%[[K]], %[[ROW]]], %[[BARS]][%[[STAGE]]] to %[[DST]]
// CHECK:         %[[SC:.*]] = memref.view %{{.*}}[%c16384][] : memref<32768xi8, #gpu.address_space<workgroup>> to memref<1024xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[FULL:.*]] = nvgpu.mbarrier.get %[[BARS]][%[[STAGE]]] : {{.*}} -> i64
// CHECK:         %[[N:.*]] = arith.index_cast %[[BYTES]] : index to i32
// CHECK:         %[[MBAR:.*]] = llvm.inttoptr %[[FULL]] : i64 to !llvm.ptr<3>
// CHECK:         %[[GSRC:.*]] = llvm.inttoptr %[[SRC]] : i64 to !llvm.ptr<1>
// CHECK:         %[[SADDR:.*]] = memref.extract_aligned_pointer_as_index %[[SC]]
// CHECK:         %[[SPTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK:         %[[CPTR:.*]] = llvm.addrspacecast %[[SPTR]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK:         nvvm.cp.async.bulk.shared.cluster.global %[[CPTR]], %[[GSRC]], %[[MBAR]], %[[N]] : !llvm.ptr<7>, <1>
// Commit on empty (stage + 4), then on full (the stage).
// CHECK:         %[[E:.*]] = arith.addi %[[STAGE]], %c4 : index
// CHECK:         %[[EB:.*]] = nvgpu.mbarrier.get %[[BARS]][%[[E]]]
// CHECK:         %[[EP:.*]] = llvm.inttoptr %[[EB]] : i64 to !llvm.ptr<3>
// CHECK:         nvvm.tcgen05.commit %[[EP]] : !llvm.ptr<3>
// CHECK:         %[[FB:.*]] = nvgpu.mbarrier.get %[[BARS]][%[[STAGE]]]
// CHECK:         %[[FP:.*]] = llvm.inttoptr %[[FB]] : i64 to !llvm.ptr<3>
// CHECK:         nvvm.tcgen05.commit %[[FP]] : !llvm.ptr<3>
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!ring = !nvfp4k.ring<4, consumers = 1>
gpu.module @k {
  gpu.func @loads(%map: !map, %src: i64, %i: index, %k: index, %row: index, %bytes: index) kernel {
    %ring = nvfp4k.ring.create : !ring
    %smem = nvfp4k.shared_memory : memref<32768xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %dst = memref.view %smem[%c0][] : memref<32768xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    nvfp4k.tma.load %map[%k, %row], %dst, %ring[%i] : !map, memref<128x64xf16, #gpu.address_space<workgroup>>, !ring
    %sc = memref.view %smem[%c16384][] : memref<32768xi8, #gpu.address_space<workgroup>> to memref<1024xi8, #gpu.address_space<workgroup>>
    nvfp4k.bulk.load %src, %sc, %bytes, %ring[%i] : memref<1024xi8, #gpu.address_space<workgroup>>, !ring
    nvfp4k.tcgen05.commit %ring[%i], <empty> : !ring
    nvfp4k.tcgen05.commit %ring[%i], <full> : !ring
    gpu.return
  }
}
