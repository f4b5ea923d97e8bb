// The pass rejects options outside what the kernel supports.
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="token-tile=96" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="stages=1" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="stages=6" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="stages=9 token-tile=64" 2>&1 | FileCheck %s --check-prefix=STAGES64
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="ctas=0" 2>&1 | FileCheck %s --check-prefix=CTAS
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="ctas=4294967297" 2>&1 | FileCheck %s --check-prefix=CTAS
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="promote-every=3" 2>&1 | FileCheck %s --check-prefix=PROMOTE
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="k-split=3" 2>&1 | FileCheck %s --check-prefix=KSPLIT
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="granule=24" 2>&1 | FileCheck %s --check-prefix=GRANULE
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="schedule=split-k" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="tokens=fused" 2>&1 | FileCheck %s --check-prefix=TOKENS
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="stages=8 token-tile=64 promote-every=0 granule=8" | FileCheck %s --check-prefix=OK
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="token-tile=8 schedule=stream-k tokens=in-kernel" | FileCheck %s --check-prefix=OK
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="token-tile=16 schedule=data-parallel tokens=prepass granule=0" | FileCheck %s --check-prefix=OK
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="stages=5 token-tile=128 granule=16" | FileCheck %s --check-prefix=OK

// TILE: error: convert-nvfp4-to-sm90: token-tile must be 0 (choose), 8, 16, 32, 64 or 128, got 96
// STAGES: error: convert-nvfp4-to-sm90: stages must be 0 (the deepest that fits) or 2 to 5 with 128-token tiles, got {{1|6}}
// STAGES64: error: convert-nvfp4-to-sm90: stages must be 0 (the deepest that fits) or 2 to 8 with 64-token tiles, got 9
// CTAS: error: convert-nvfp4-to-sm90: ctas must be 1 to 65536, got {{0|4294967297}}
// PROMOTE: error: convert-nvfp4-to-sm90: promote-every must be even and non-negative, got 3
// KSPLIT: convert-nvfp4-to-sm90: k-split must be 0 (choose), 1 or 2, got 3
// GRANULE: error: convert-nvfp4-to-sm90: granule must be 0 (choose), 8, 16 or 32, got 24
// SCHEDULE: error: convert-nvfp4-to-sm90: schedule must be auto, data-parallel or stream-k, got 'split-k'
// TOKENS: error: convert-nvfp4-to-sm90: tokens must be auto, prepass or in-kernel, got 'fused'
// OK: func.func @f
func.func @f() {
  return
}
