// nvfp4-gpu-parameter-space: a kernel of more than 4352 bytes of parameters
// (ptxas's limit before PTX ISA 8.1) raises its module's target to +ptx81,
// one within that limit or a target already at 8.1 is left alone; more
// than 32764 bytes (the limit from 8.1 on), a chip before sm_70, or
// raise-ptx=false (the user named the version) are diagnostics. The GPU
// pipelines (a grouped matmul of 120 and 240 independent groups):
// test/Integration/GPUCompile/independent-groups.test.
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics --nvfp4-gpu-parameter-space | FileCheck %s
// RUN: not nvfp4-opt %s --split-input-file --nvfp4-gpu-parameter-space=raise-ptx=false 2>&1 | FileCheck %s --check-prefix=KEEP

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
