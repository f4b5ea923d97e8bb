// The pass rejects options outside what the kernel supports.
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm100="token-tile=96" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm100="ctas=0" 2>&1 | FileCheck %s --check-prefix=CTAS
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm100="ctas=4294967297" 2>&1 | FileCheck %s --check-prefix=CTAS
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm100="stages=1" 2>&1 | FileCheck %s --check-prefix=STAGES1
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm100="stages=5" 2>&1 | FileCheck %s --check-prefix=STAGES5
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm100="stages=4" | FileCheck %s --check-prefix=OK
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm100="token-tile=128 stages=6" | FileCheck %s --check-prefix=OK

// TILE: error: convert-nvfp4-to-sm100: token-tile must be 0 (choose), 64, 128 or 256, got 96
// CTAS: error: convert-nvfp4-to-sm100: ctas must be 1 to 65536, got {{0|4294967297}}
// STAGES1: error: convert-nvfp4-to-sm100: stages must be 0 (choose) or at least 2 and fit 227 KiB of shared memory and 512 TMEM columns with 256-token tiles, got 1
// 5 stages of 256-token tiles need 276 KB of shared memory.
// STAGES5: error: convert-nvfp4-to-sm100: stages must be 0 (choose) or at least 2 and fit 227 KiB of shared memory and 512 TMEM columns with 256-token tiles, got 5
// OK: func.func @f
func.func @f() {
  return
}
