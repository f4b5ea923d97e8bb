// The pass rejects options outside what the kernel supports.
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="token-tile=96" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="stages=1" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="stages=15" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="ctas=0" 2>&1 | FileCheck %s --check-prefix=CTAS
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="promote-every=3" 2>&1 | FileCheck %s --check-prefix=PROMOTE
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="weight-prefetch=3" 2>&1 | FileCheck %s --check-prefix=PREFETCH
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="stages=14 token-tile=64 promote-every=0 weight-prefetch=8" | FileCheck %s --check-prefix=OK

// TILE: error: convert-nvfp4-to-sm90: token-tile must be 0 (choose), 32, 64 or 128, got 96
// STAGES: error: convert-nvfp4-to-sm90: stages must be at least 2 and fit 227 KiB of shared memory with 128-token tiles (at most 14), got {{1|15}}
// CTAS: error: convert-nvfp4-to-sm90: ctas must be positive, got 0
// PROMOTE: error: convert-nvfp4-to-sm90: promote-every must be even and non-negative, got 3
// PREFETCH: error: convert-nvfp4-to-sm90: weight-prefetch must be 0 (choose), 2, 4, 6 or 8, got 3
// OK: func.func @f
func.func @f() {
  return
}
