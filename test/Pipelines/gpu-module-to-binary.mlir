// RUN: nvfp4-opt %s --split-input-file --nvfp4-gpu-module-to-binary="format=isa" --verify-diagnostics | FileCheck %s

// Every gpu.module becomes a gpu.binary of its name, in module order, with
// one object per target, each the PTX of its own module (serialized
// concurrently).
// CHECK-LABEL: module @two
// CHECK-NOT: gpu.module
// CHECK: gpu.binary @first  [#gpu.object<#nvvm.target<chip = "sm_90a">, {{.*}}assembly = "{{[^"]*}}.target sm_90a{{[^"]*}}.entry first_kernel{{[^"]*}}">]
// CHECK-NEXT: gpu.binary @second  [#gpu.object<#nvvm.target<chip = "sm_90a">, {{.*}}assembly = "{{[^"]*}}.target sm_90a{{[^"]*}}.entry second_kernel{{[^"]*}}">, #gpu.object<#nvvm.target<chip = "sm_80">, {{.*}}assembly = "{{[^"]*}}.target sm_80{{[^"]*}}.entry second_kernel{{[^"]*}}">]
// CHECK-NEXT: func.func @host
module @two {
  gpu.module @first [#nvvm.target<chip = "sm_90a">] {
    llvm.func @first_kernel() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @second [#nvvm.target<chip = "sm_90a">, #nvvm.target<chip = "sm_80">] {
    llvm.func @second_kernel() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  func.func @host() {
    return
  }
}

// -----

// A module without targets is an error, not a crash.
module {
  // expected-error @below {{the module has no target attributes}}
  gpu.module @bare {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
