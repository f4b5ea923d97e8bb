// Canary: a !nvgpu.tensormap.descriptor cannot be a gpu.func argument in
// MLIR 22: convert-gpu-to-nvvm has no type conversion for it. The sm_90a
// and sm_100a kernels take the map as !llvm.ptr, with an
// unrealized_conversion_cast on each side (NVFP4ToSM90.cpp,
// NVFP4ToSM100.cpp) that reconcile-unrealized-casts removes.
//
// When this test fails, upstream converts the type: the casts could go;
// update this test.
//
// RUN: not nvfp4-opt %s --convert-nvgpu-to-nvvm --convert-gpu-to-nvvm 2>&1 | FileCheck %s
// CHECK: error: failed to legalize operation 'gpu.func' that was explicitly marked illegal

!tB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kern(%d: !tB) kernel {
      nvgpu.tma.prefetch.descriptor %d : !tB
      gpu.return
    }
  }
}
