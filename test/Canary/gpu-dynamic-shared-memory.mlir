// Canary: gpu.dynamic_shared_memory lowers to an internal [0 x i8] global
// that NVPTX turns into a 1-byte *static* shared variable
// (".shared .align 16 .b8 __dynamic_shmem__0;"), not the dynamic window
// (an ".extern .shared" array): a TMA into it could overwrite the static
// shared memory (the mbarriers) next to it. The kernels declare their own
// extern global instead (GemmProblem.h, declareDynamicShared).
//
// When this test fails, upstream emits an extern array: the op could
// replace declareDynamicShared; update this test.
//
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa})' | FileCheck %s
// CHECK: .shared .align 16 .b8 __dynamic_shmem__0;

module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    gpu.func @kern(%p: memref<4xi8>) kernel {
      %s = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %v = memref.load %p[%c0] : memref<4xi8>
      memref.store %v, %s[%c1] : memref<?xi8, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %s[%c0] : memref<?xi8, #gpu.address_space<workgroup>>
      memref.store %w, %p[%c1] : memref<4xi8>
      gpu.return
    }
  }
}
