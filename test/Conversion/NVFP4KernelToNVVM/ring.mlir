// The ring and the shared memory: each op's lowering to nvgpu mbarrier
// groups, and the ring's stage and phase arithmetic (i32, a constant
// divisor).
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm --cse | FileCheck %s

// CHECK-LABEL: gpu.module @k
// The dynamic window: an extern 1024-aligned array, viewed from its first
// aligned byte.
// CHECK:         memref.global "public" @ring_smem : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}
// CHECK-LABEL:   gpu.func @ring(
// CHECK-SAME:      %[[I:.*]]: index, %[[BYTES:.*]]: index)
// CHECK:           %[[G:.*]] = memref.get_global @ring_smem
// CHECK:           %[[ALL:.*]] = memref.reinterpret_cast %[[G]] to offset: [0], sizes: [2048], strides: [1]
// CHECK:           %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[ALL]]
// CHECK:           %[[UP:.*]] = arith.addi %[[BASE]], %c1023
// CHECK:           %[[AL:.*]] = arith.andi %[[UP]], %c-1024
// CHECK:           %[[PAD:.*]] = arith.subi %[[AL]], %[[BASE]]
// CHECK:           memref.view %[[ALL]][%[[PAD]]][] : memref<2048xi8, #gpu.address_space<workgroup>> to memref<1024xi8, #gpu.address_space<workgroup>>
// Create: 3 full barriers (1 arrival), 3 empty ones (8), initialised by
// thread 0 and fenced for the async proxy.
// CHECK:           %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 6>
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK:           nvgpu.mbarrier.init %[[BARS]][%c0], %c1, predicate = %[[FIRST]]
// CHECK:           nvgpu.mbarrier.init %[[BARS]][%c1], %c1, predicate = %[[FIRST]]
// CHECK:           nvgpu.mbarrier.init %[[BARS]][%c2], %c1, predicate = %[[FIRST]]
// CHECK:           nvgpu.mbarrier.init %[[BARS]][%c3], %c8, predicate = %[[FIRST]]
// CHECK:           nvgpu.mbarrier.init %[[BARS]][%c4], %c8, predicate = %[[FIRST]]
// CHECK:           nvgpu.mbarrier.init %[[BARS]][%c5], %c8, predicate = %[[FIRST]]
// CHECK:           scf.if %[[FIRST]] {
// CHECK-NEXT:        nvvm.fence.mbarrier.init
// CHECK-NEXT:        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// Position i: stage i % 3, round parity (i / 3) & 1.
// CHECK:           %[[I32:.*]] = arith.index_castui %[[I]] : index to i32
// CHECK:           %[[STAGE32:.*]] = arith.remui %[[I32]], %c3_i32 : i32
// CHECK:           %[[ROUND:.*]] = arith.divui %[[I32]], %c3_i32 : i32
// CHECK:           %[[STAGE:.*]] = arith.index_castui %[[STAGE32]] : i32 to index
// CHECK:           %[[PARITY:.*]] = arith.trunci %[[ROUND]] : i32 to i1
// wait_empty: the stage's empty barrier (after the full ones), parity of
// the round before.
// CHECK:           %[[EMPTY:.*]] = arith.addi %[[STAGE]], %c3 : index
// CHECK:           %[[NOT:.*]] = arith.xori %[[PARITY]], %true : i1
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[BARS]][%[[EMPTY]]], %[[NOT]], %c10000000
// expect_tx: the producer's arrival on the full barrier.
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%[[STAGE]]], %[[BYTES]]
// wait_full: the full barrier, the round's parity.
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[BARS]][%[[STAGE]]], %[[PARITY]], %c10000000
// release: one arrival on the empty barrier.
// CHECK:           nvgpu.mbarrier.arrive %[[BARS]][%[[EMPTY]]]
// stage: the stage index itself.
// CHECK:           memref.view %{{.*}}[%[[STAGE]]][]
// CHECK-NOT:       nvfp4k.
gpu.module @k {
  gpu.func @ring(%i: index, %bytes: index) kernel {
    %smem = nvfp4k.shared_memory : memref<1024xi8, #gpu.address_space<workgroup>>
    %ring = nvfp4k.ring.create : !nvfp4k.ring<3, consumers = 8>
    nvfp4k.ring.wait_empty %ring[%i] : !nvfp4k.ring<3, consumers = 8>
    nvfp4k.ring.expect_tx %ring[%i], %bytes : !nvfp4k.ring<3, consumers = 8>
    nvfp4k.ring.wait_full %ring[%i] : !nvfp4k.ring<3, consumers = 8>
    nvfp4k.ring.release %ring[%i] : !nvfp4k.ring<3, consumers = 8>
    %s = nvfp4k.ring.stage %ring[%i] : !nvfp4k.ring<3, consumers = 8>
    %v = memref.view %smem[%s][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0 : i8
    memref.store %z, %v[%c0] : memref<16xi8, #gpu.address_space<workgroup>>
    gpu.return
  }
}
