// RUN: nvfp4-opt %s --nvfp4-lower-to-sm90="chip=sm_90a" --dump-pass-pipeline 2>&1 | FileCheck %s

// The GPU back end is upstream's gpu-lower-to-nvvm-pipeline of LLVM 22
// (`mlir-opt --gpu-lower-to-nvvm-pipeline --dump-pass-pipeline`), pass for
// pass and option for option, but for its gpu-module-to-binary (the
// modules become binaries concurrently: nvfp4-gpu-module-to-binary) and
// nvfp4-gpu-dependent-launch after the outlining (sm_90 on: the kernels
// launch while the kernel ahead of them runs) and nvfp4-gpu-ptx-version
// before the serialization (a kernel of many parameters gets PTX 8.1).
// CHECK:      gpu-async-region
// CHECK:      convert-nvgpu-to-nvvm,
// CHECK-NEXT: gpu-kernel-outlining{
// CHECK-NEXT: nvfp4-gpu-dependent-launch{early-trigger=true},
// CHECK-NEXT: convert-vector-to-scf{
// CHECK-NEXT: convert-scf-to-cf{
// CHECK-NEXT: convert-nvvm-to-llvm,
// CHECK-NEXT: convert-func-to-llvm{
// CHECK-NEXT: expand-strided-metadata,
// CHECK-NEXT: nvvm-attach-target{O=3 chip=sm_90a {{.*}}triple=nvptx64-nvidia-cuda},
// CHECK-NEXT: lower-affine,
// CHECK-NEXT: convert-arith-to-llvm{
// CHECK-NEXT: convert-index-to-llvm{index-bitwidth=64},
// CHECK-NEXT: canonicalize{
// CHECK-NEXT: cse,
// CHECK-NEXT: gpu.module(
// CHECK-NEXT:   convert-gpu-to-nvvm{{{.*}}index-bitwidth=64 use-bare-ptr-memref-call-conv=false},
// CHECK-NEXT:   canonicalize{
// CHECK-NEXT:   cse,
// CHECK-NEXT:   reconcile-unrealized-casts
// CHECK-NEXT: ),
// CHECK-NEXT: nvfp4-gpu-ptx-version{raise-ptx=true},
// CHECK-NEXT: gpu-to-llvm{intersperse-sizes-for-kernels=false use-bare-pointers-for-host=false use-bare-pointers-for-kernels=false},
// CHECK-NEXT: nvfp4-gpu-module-to-binary{format=bin},
// CHECK-NEXT: convert-math-to-llvm{
// CHECK-NEXT: canonicalize{
// CHECK-NEXT: cse,
// CHECK-NEXT: reconcile-unrealized-casts
// CHECK-NEXT: )
module {
}
