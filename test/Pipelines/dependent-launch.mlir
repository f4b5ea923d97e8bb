// Programmatic dependent launch (nvfp4-gpu-dependent-launch): every kernel
// gets griddepcontrol.launch_dependents at its entry and griddepcontrol.wait
// there too unless it placed its own (nvfp4.grid_dependency_wait: the sm_90a
// GEMM waits after its prologue); each module with kernels gets the marker
// global the runtime looks for. Then the GPU pipelines: chips from sm_90 on
// emit both instructions in every kernel and the marker, sm_80 neither (its
// kernels launch in plain stream order), nor does dependent-launch=false
// (the GEMM's own wait then returns at once: nothing launched it early).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-gpu-dependent-launch | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --nvfp4-gpu-dependent-launch=early-trigger=false | FileCheck %s --check-prefix=LATE
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %S/Inputs/quantize-matmul.mlir --nvfp4-lower-to-gpu="chip=sm_90 format=isa" | FileCheck %s --check-prefix=SM90
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %S/Inputs/quantize-matmul.mlir --nvfp4-lower-to-sm90="format=isa gemv=off" | FileCheck %s --check-prefix=SM90A
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %S/Inputs/quantize-matmul.mlir --nvfp4-lower-to-sm90="format=isa" | FileCheck %s --check-prefix=GEMV
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %S/Inputs/quantize-matmul.mlir --nvfp4-lower-to-gpu="chip=sm_80 format=isa" | FileCheck %s --check-prefix=SM80
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %S/Inputs/quantize-matmul.mlir --nvfp4-lower-to-sm90="format=isa dependent-launch=false" | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: gpu.module @kernels
// CHECK:       gpu.func @plain(%{{.*}}: memref<4xf32>) kernel attributes {nvfp4.grid_dependency_wait}
// CHECK-NEXT:    llvm.inline_asm has_side_effects {{.*}}"griddepcontrol.wait;", "~{memory}"
// CHECK-NEXT:    llvm.inline_asm has_side_effects {{.*}}"griddepcontrol.launch_dependents;", "~{memory}"
// CHECK-NEXT:    arith.constant 0
// CHECK:       gpu.func @own_wait() kernel attributes {nvfp4.grid_dependency_wait}
// CHECK-NEXT:    llvm.inline_asm has_side_effects {{.*}}"griddepcontrol.launch_dependents;", "~{memory}"
// CHECK-NEXT:    llvm.inline_asm has_side_effects "griddepcontrol.wait;"
// CHECK-NOT:     griddepcontrol
// CHECK:       gpu.func @helper()
// CHECK-NOT:     griddepcontrol
// CHECK:       llvm.mlir.global external constant @nvfp4_dependent_launch(1 : i32) {addr_space = 4 : i32, alignment = 4 : i64}
// Without the early trigger: the waits only (a kernel lets its dependents
// launch when it completes).
// LATE-LABEL:  gpu.func @plain
// LATE-NEXT:     llvm.inline_asm has_side_effects {{.*}}"griddepcontrol.wait;", "~{memory}"
// LATE-NOT:      launch_dependents
// LATE:          llvm.mlir.global external constant @nvfp4_dependent_launch
gpu.module @kernels {
  gpu.func @plain(%m: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %v = memref.load %m[%c0] : memref<4xf32>
    memref.store %v, %m[%c0] : memref<4xf32>
    gpu.return
  }
  gpu.func @own_wait() kernel attributes {nvfp4.grid_dependency_wait} {
    llvm.inline_asm has_side_effects "griddepcontrol.wait;", "~{memory}" : () -> ()
    gpu.return
  }
  gpu.func @helper() {
    gpu.return
  }
}

// -----

// A module without kernels gets no marker.
// CHECK-LABEL: gpu.module @no_kernels
// CHECK-NOT:   nvfp4_dependent_launch
gpu.module @no_kernels {
  gpu.func @helper() {
    gpu.return
  }
}

// SM90:        gpu.binary @{{.*}}nvfp4_dependent_launch{{.*}}griddepcontrol.wait;{{.*}}griddepcontrol.launch_dependents;
// SM90A:        gpu.binary @main_kernel{{.*}}nvfp4_dependent_launch{{.*}}griddepcontrol.wait;{{.*}}griddepcontrol.launch_dependents;
// SM90A:        gpu.binary @nvfp4_sm90_gemm{{.*}}nvfp4_dependent_launch{{.*}}griddepcontrol.launch_dependents;{{.*}}mbarrier.init{{.*}}griddepcontrol.wait;{{.*}}wgmma.mma_async
// The narrow-token kernel (16 tokens: the default) waits before its
// first load, behind the pre-pass that reduces the amax and quantizes.
// GEMV:         gpu.binary @main_kernel{{.*}}nvfp4_dependent_launch{{.*}}griddepcontrol.wait;{{.*}}griddepcontrol.launch_dependents;
// GEMV-NOT:     gpu.binary @main_kernel_0
// GEMV:         gpu.binary @nvfp4_sm90_gemv{{.*}}nvfp4_dependent_launch{{.*}}griddepcontrol.launch_dependents;{{.*}}griddepcontrol.wait;{{.*}}ld.global.nc.v4{{.*}}mma.sync.aligned.m16n8k16
// SM80-NOT:     griddepcontrol
// SM80-NOT:     nvfp4_dependent_launch
// OFF-NOT:      nvfp4_dependent_launch
// OFF-NOT:      griddepcontrol.launch_dependents
