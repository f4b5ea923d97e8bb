// Canary: tcgen05.mma .block16 / .block32 need PTX ISA 8.8, but with a
// target of "+ptx87" (or no PTX feature) MLIR 22 / LLVM 22 neither diagnose
// it nor raise the version: instruction selection aborts. The compiler
// therefore derives the PTX version from the chip and asks for +ptx88 on
// sm_100a (lib/Pipelines/GPUTarget.cpp; docs/design/sm100-gemm.md).
//
// When this test fails, upstream diagnoses (or fixes) the version: update
// this test; the compiler's explicit version stays correct either way.
//
// RUN: not --crash nvfp4-opt %s --gpu-module-to-binary=format=isa 2>&1 | FileCheck %s
// CHECK: LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.tcgen05.mma.shared.mxf4nvf4.block_scale.block16

module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx87">] {
    llvm.func @mma(%d: !llvm.ptr<6>, %a: i64, %b: i64, %i: i32, %e: i1,
                   %sa: !llvm.ptr<6>, %sb: !llvm.ptr<6>) attributes {nvvm.kernel} {
      nvvm.tcgen05.mma.block_scale %d, %a, %b, %i, %e, %sa, %sb {kind = #nvvm.block_scale_kind<mxf4nvf4>, ctaGroup = #nvvm.cta_group<cta_1>, blockScale = #nvvm.tcgen05_mma_block_scale<block16>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
      llvm.return
    }
  }
}
