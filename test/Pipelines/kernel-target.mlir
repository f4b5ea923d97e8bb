// Kernel-level input against the chip and PTX version a GPU pipeline
// resolved: a diagnostic, never an instruction-selection abort in the back
// end. tcgen05 MMAs need a tcgen05 chip and PTX 8.8; rings, TMA and
// async-proxy fences the sm_90 generation.
// RUN: not nvfp4-opt %S/../Conversion/NVFP4KernelToNVVM/tcgen05.mlir --split-input-file --nvfp4-lower-to-gpu="chip=sm_100a" 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not nvfp4-opt %S/../Conversion/NVFP4KernelToNVVM/tcgen05.mlir --split-input-file --nvfp4-lower-to-gpu="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: nvfp4-opt %S/../Conversion/NVFP4KernelToNVVM/tcgen05.mlir --split-input-file --nvfp4-lower-to-gpu="chip=sm_100a features=+ptx88" 2>&1 | FileCheck %s --check-prefix=OK
// RUN: not nvfp4-opt %S/../Conversion/NVFP4KernelToNVVM/ring.mlir --split-input-file --nvfp4-lower-to-gpu="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=RING
// RUN: nvfp4-opt %S/../Conversion/NVFP4KernelToNVVM/ring.mlir --split-input-file --nvfp4-lower-to-gpu="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=OK

// PTX: error: nvfp4-lower-to-gpu: 'nvfp4k.tcgen05.scaled_mma' needs PTX ISA 8.8 (tcgen05.mma .block16/.block32); this pipeline chose 8.6 (features=+ptx88)
// CHIP: error: nvfp4-lower-to-gpu: 'nvfp4k.tcgen05.scaled_mma' needs a chip with tcgen05 block-scaled MMAs, not sm_90a
// RING: error: nvfp4-lower-to-gpu: 'nvfp4k.{{[a-z_.]+}}' needs mbarriers, TMA and async-proxy fences (sm_90 or later), not sm_80
// OK-NOT: error
// OK-NOT: LLVM ERROR
