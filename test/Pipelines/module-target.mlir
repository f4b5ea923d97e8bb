// A gpu.module that carries its own #nvvm.target keeps it through the GPU
// pipelines; its chip and PTX version are checked as the pipeline's own
// options are (the chip table), so a version the chip cannot take or an
// unknown chip is a diagnostic instead of an LLVM abort at serialization.
// RUN: not nvfp4-opt %s --split-input-file --nvfp4-lower-to-gpu="format=isa" 2>&1 | FileCheck %s

// CHECK: error: gpu.module @old carries #nvvm.target<chip = "sm_90a", features = "+ptx70">: nvfp4-lower-to-gpu: features '+ptx70' select PTX ISA 7.0, but sm_90a needs 8.0 or later
module attributes {gpu.container_module} {
  gpu.module @old [#nvvm.target<chip = "sm_90a", features = "+ptx70">] {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// CHECK: error: gpu.module @blackwell carries #nvvm.target<chip = "sm_100a", features = "+ptx80">: nvfp4-lower-to-gpu: features '+ptx80' select PTX ISA 8.0, but sm_100a needs 8.6 or later
module attributes {gpu.container_module} {
  gpu.module @blackwell [#nvvm.target<chip = "sm_100a", features = "+ptx80">] {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// CHECK: error: gpu.module @unknown carries #nvvm.target<chip = "sm_99z">: nvfp4-lower-to-gpu: unknown chip 'sm_99z'
module attributes {gpu.container_module} {
  gpu.module @unknown [#nvvm.target<chip = "sm_99z">] {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Its own target, valid: compiled for it.
// CHECK-NOT: error
// CHECK: gpu.binary @valid [#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_90a
module attributes {gpu.container_module} {
  gpu.module @valid [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
