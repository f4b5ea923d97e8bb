// Canary: nvvm.tcgen05.mma_smem_desc packs its operands as given: it masks
// the start address, LBO and SBO to 14 bits but does not shift them right
// by 4 (the descriptor holds them in 16-byte units), and it sets the
// version bit 46 itself. The sm_100a GEMM relies on that: it passes
// addr >> 4, LBO >> 4 and SBO >> 4 (docs/design/sm100-gemm.md). Here
// start = run-time, LBO = 1 (16 B), SBO = 64 (1024 B), 128B swizzle:
// low word (start & 0x3FFF) | 1 << 16, high word 0x40004040.
//
// When this test fails, upstream changed the op's encoding (e.g. it now
// shifts): fix SM100GemmConfig's descriptor builder first, or every
// descriptor is off by 16x. lower-to-sm100.mlir's decoder check would
// catch it too.
//
// RUN: nvfp4-opt %s --gpu-module-to-binary=format=isa -o %t.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.mlir --name k | FileCheck %s
// CHECK: and.b64 {{.*}}, 16383;
// CHECK-NEXT: or.b64 {{.*}}, 65536;
// CHECK: 1073758272;

module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
    llvm.func @desc(%start: i32, %p: !llvm.ptr) attributes {nvvm.kernel} {
      %lbo = llvm.mlir.constant(1 : i32) : i32
      %sbo = llvm.mlir.constant(64 : i32) : i32
      %base = llvm.mlir.constant(0 : i8) : i8
      %mode = llvm.mlir.constant(false) : i1
      %swz = llvm.mlir.constant(2 : i8) : i8
      %d = nvvm.tcgen05.mma_smem_desc (%start, %lbo, %sbo, %base, %mode, %swz) : (i32, i32, i32, i8, i1, i8) -> i64
      llvm.store %d, %p : i64, !llvm.ptr
      llvm.return
    }
  }
}
