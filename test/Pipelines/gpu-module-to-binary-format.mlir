// RUN: nvfp4-opt %s --nvfp4-gpu-module-to-binary="format=cubin" --verify-diagnostics

// An unknown format is a diagnostic.
// expected-error @below {{nvfp4-gpu-module-to-binary: unknown format 'cubin' (offloading, assembly, binary or fatbinary)}}
module {
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  }
}
