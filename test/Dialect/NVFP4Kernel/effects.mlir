// RUN: nvfp4-opt %s --cse --canonicalize | FileCheck %s

// The nvfp4k ops' memory effects (NVFP4KernelOps.td): the scheduler's
// table walks and alpha only read memory, so a repeated walk with nothing
// written in between is one walk, and an unused one goes; a ring wait
// (unknown effects) keeps the walks on either side of it apart; the stores
// write, so they stay, and a read after a store is not merged with the one
// before it.

!sched = !nvfp4k.scheduler<mode = contiguous, groups = 8, rows = 1184, weight_tiles = 32, weight_rows = 128, token_tile = 128, granule = 32>
!ring = !nvfp4k.ring<5, consumers = 8>

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @reads
  gpu.func @reads(%offsets: i64, %t: index, %i: index, %g: index, %da: i64, %v: vector<2xf32>, %out: i64, %r: index) kernel {
    %sched = nvfp4k.scheduler.create %offsets : !sched
    %ring = nvfp4k.ring.create : !ring
    // CHECK: %[[N:.*]] = nvfp4k.scheduler.count
    // CHECK-NOT: nvfp4k.scheduler.count
    // CHECK: nvfp4k.ring.wait_full
    %n0 = nvfp4k.scheduler.count %sched : !sched
    %n1 = nvfp4k.scheduler.count %sched : !sched
    // Unused: removed.
    %unused:7 = nvfp4k.scheduler.tile %sched[%t] : !sched
    nvfp4k.ring.wait_full %ring[%i] : !ring
    // CHECK: %[[M:.*]] = nvfp4k.scheduler.count
    %n2 = nvfp4k.scheduler.count %sched : !sched
    // CHECK: %[[A:.*]] = nvfp4k.alpha
    %a0 = nvfp4k.alpha %g a_decode(%da) : f32
    // CHECK: nvfp4k.store %{{.*}} alpha(%[[A]])
    nvfp4k.store %v, %out[%r, %r] bounds(%n0, %n1) alpha(%a0) {element = f32, row_stride = 8 : i64} : vector<2xf32>
    // CHECK: %[[B:.*]] = nvfp4k.alpha
    // CHECK: nvfp4k.store %{{.*}} bounds(%[[N]], %[[M]]) alpha(%[[B]])
    %a1 = nvfp4k.alpha %g a_decode(%da) : f32
    nvfp4k.store %v, %out[%r, %r] bounds(%n1, %n2) alpha(%a1) {element = f32, row_stride = 8 : i64} : vector<2xf32>
    // CHECK-NOT: nvfp4k.scheduler.tile
    gpu.return
  }

  // A stage share is read only: two loads of the same stage with nothing
  // written in between are one; after a ring wait (which may mean new
  // data) it is loaded again.
  // CHECK-LABEL: gpu.func @stage_reads
  gpu.func @stage_reads(%w: memref<2048xi32, #gpu.address_space<workgroup>>, %s: memref<256xi32, #gpu.address_space<workgroup>>, %j: index, %t: index, %i: index, %out: memref<3xi32>) kernel {
    %ring = nvfp4k.ring.create : !ring
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // CHECK: nvfp4k.fragment_a.load
    // CHECK-NOT: nvfp4k.fragment_a.load
    // CHECK: nvfp4k.ring.wait_full
    // CHECK: nvfp4k.fragment_a.load
    // CHECK-NOT: nvfp4k.fragment_a.load
    %c_a, %b_a = nvfp4k.fragment_a.load %w, %s[%j, %t] : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    %c_b, %b_b = nvfp4k.fragment_a.load %w, %s[%j, %t] : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    %c_unused, %b_unused = nvfp4k.fragment_a.load %w, %s[%t, %j] : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    nvfp4k.ring.wait_full %ring[%i] : !ring
    %c_c, %b_c = nvfp4k.fragment_a.load %w, %s[%j, %t] : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    memref.store %b_a, %out[%c0] : memref<3xi32>
    memref.store %b_b, %out[%c1] : memref<3xi32>
    memref.store %b_c, %out[%c2] : memref<3xi32>
    gpu.return
  }
}
