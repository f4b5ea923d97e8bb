// nvfp4-gpu-ptx-version: a kernel of more than 4352 bytes of parameters
// (ptxas's limit before PTX ISA 8.1) raises its module's target to +ptx81,
// one within that limit or a target already at 8.1 is left alone; more
// than 32764 bytes (the limit from 8.1 on), a chip before sm_70, or
// raise-ptx=false (the user named the version) are diagnostics. A TMA load
// into shared::cta (what NVIDIA's CuTe DSL emits) raises it to +ptx86, as
// LLVM's NVPTX backend needs (it aborts below: "Cannot select"); a TMA load
// with .cta_group below sm_100a is a diagnostic (LLVM aborts on it). The GPU
// pipelines (a grouped matmul of 120 and 240 independent groups):
// test/Integration/GPUCompile/independent-groups.test; an imported CuTe DSL
// kernel: test/CuTeDSL.
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics --nvfp4-gpu-ptx-version | FileCheck %s
// RUN: not nvfp4-opt %s --split-input-file --nvfp4-gpu-ptx-version=raise-ptx=false 2>&1 | FileCheck %s --check-prefix=KEEP

// 4800 bytes: raised; the other features and the options kept.
// CHECK-LABEL: gpu.module @large
// CHECK-SAME:    [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx81">]
// KEEP: kernel 'large' takes 4800 bytes of parameters: more than 4352 need PTX ISA 8.1 or later
gpu.module @large [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
  llvm.func @large(%a: !llvm.array<600 x i64>) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// Within 4352 bytes: unchanged (the largest kernel decides).
// CHECK-LABEL: gpu.module @small
// CHECK-SAME:    [#nvvm.target<chip = "sm_90a", features = "+ptx80">]
gpu.module @small [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.func @small(%a: !llvm.array<540 x i64>, %b: i64) attributes {nvvm.kernel} {
    llvm.return
  }
  // Not a kernel: its parameters are not a launch's.
  llvm.func @helper(%a: !llvm.array<1000 x i64>) {
    llvm.return
  }
}

// -----

// Already at 8.6: unchanged.
// CHECK-LABEL: gpu.module @newer
// CHECK-SAME:    [#nvvm.target<chip = "sm_100a", features = "+ptx86">]
gpu.module @newer [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
  llvm.func @newer(%a: !llvm.array<600 x i64>) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @huge [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  // expected-error @below {{kernel 'huge' takes 33600 bytes of parameters: more than a launch takes (32764) (independent groups pass each group's operands: fewer groups per op, or the contiguous or masked grouping)}}
  llvm.func @huge(%a: !llvm.array<4200 x i64>) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

gpu.module @pascal [#nvvm.target<chip = "sm_60", features = "+ptx50">] {
  // expected-error @below {{kernel 'pascal' takes 4800 bytes of parameters: more than 4352 need sm_70 or later, not sm_60}}
  llvm.func @pascal(%a: !llvm.array<600 x i64>) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// A TMA load into shared::cta: 8.6, whichever kernel of the module has it;
// one into shared::cluster needs nothing later.
// CHECK-LABEL: gpu.module @cta_only
// CHECK-SAME:    [#nvvm.target<chip = "sm_90a", features = "+ptx86">]
// KEEP: kernel 'cta_only' loads with TMA into shared::cta: that needs PTX ISA 8.6 or later (features=+ptx86, or no PTX version in features=)
gpu.module @cta_only [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.func @cluster(%dst: !llvm.ptr<7>, %map: !llvm.ptr, %bar: !llvm.ptr<3>, %x: i32) attributes {nvvm.kernel} {
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x] : !llvm.ptr<7>, !llvm.ptr
    llvm.return
  }
  llvm.func @cta_only(%dst: !llvm.ptr<3>, %map: !llvm.ptr, %bar: !llvm.ptr<3>, %x: i32) attributes {nvvm.kernel} {
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
    llvm.return
  }
}

// -----

// CHECK-LABEL: gpu.module @cluster_only
// CHECK-SAME:    [#nvvm.target<chip = "sm_90a", features = "+ptx80">]
gpu.module @cluster_only [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.func @cluster_only(%dst: !llvm.ptr<7>, %map: !llvm.ptr, %bar: !llvm.ptr<3>, %x: i32) attributes {nvvm.kernel} {
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x] : !llvm.ptr<7>, !llvm.ptr
    llvm.return
  }
}

// -----

// Many parameters and a shared::cta load: the later of the two.
// CHECK-LABEL: gpu.module @both
// CHECK-SAME:    [#nvvm.target<chip = "sm_90a", features = "+ptx86">]
gpu.module @both [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.func @both(%a: !llvm.array<600 x i64>, %dst: !llvm.ptr<3>, %map: !llvm.ptr, %bar: !llvm.ptr<3>, %x: i32) attributes {nvvm.kernel} {
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
    llvm.return
  }
}

// -----

// A TMA load with .cta_group (a CTA pair's, as the CuTe DSL's 2-CTA kernels
// emit): sm_100a on; below, a diagnostic rather than LLVM's abort.
gpu.module @pair_tma [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // expected-error @below {{kernel 'pair_tma' loads with TMA for a CTA group (.cta_group): that needs sm_100a or later, not sm_90a}}
  llvm.func @pair_tma(%dst: !llvm.ptr<7>, %map: !llvm.ptr, %bar: !llvm.ptr<3>, %x: i32, %mask: i16) attributes {nvvm.kernel} {
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x] multicast_mask = %mask {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
    llvm.return
  }
}

// -----

// CHECK-LABEL: gpu.module @pair_tma_sm100
// CHECK-SAME:    [#nvvm.target<chip = "sm_100a", features = "+ptx88">]
gpu.module @pair_tma_sm100 [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.func @pair_tma_sm100(%dst: !llvm.ptr<7>, %map: !llvm.ptr, %bar: !llvm.ptr<3>, %x: i32, %mask: i16) attributes {nvvm.kernel} {
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x] multicast_mask = %mask {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
    llvm.return
  }
}
