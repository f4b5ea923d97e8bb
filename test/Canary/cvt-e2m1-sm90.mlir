// Canary: nvvm.convert.f4x2.to.f16x2 (cvt.rn.f16x2.e2m1x2) verifies for
// sm_90a, which has no such instruction, and LLVM 22 then aborts in
// instruction selection ("Cannot select") instead of giving a diagnostic.
// The compiler never emits it below sm_100a (the chip table of
// lib/Pipelines/GPUTarget.cpp gates the e2m1 conversion, and the sm_90a
// GEMM dequantizes through the e4m3 conversion instead); on sm_100a it is
// the hardware quantize of convert-nvfp4-to-sm100.
//
// When this test fails, upstream diagnoses the chip (or no longer
// crashes): update this test; nothing in the compiler depends on the crash.
//
// RUN: not --crash nvfp4-opt %s --gpu-module-to-binary=format=isa 2>&1 | FileCheck %s
// CHECK: LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.e2m1x2.to.f16x2.rn

module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    llvm.func @cvt(%v: i8, %p: !llvm.ptr) attributes {nvvm.kernel} {
      %r = nvvm.convert.f4x2.to.f16x2 %v : i8 (f4E2M1FN) -> vector<2xf16>
      llvm.store %r, %p : vector<2xf16>, !llvm.ptr
      llvm.return
    }
  }
}
