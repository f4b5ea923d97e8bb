// The widest token tile the sm_90a kernel is built for (the TMA box and the
// widest wgmma N), chosen by the pass: the width whose persistent waves
// times tile cost ((1 + T/128) / 2 of a 128-wide tile) is least, of 128
// and 64, with the GPU's 132 CTAs.
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90 | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="ctas=4" | FileCheck %s --check-prefix=FEW

// 8 contiguous groups of about 128 rows, N = 4096 (32 weight tiles): 128
// wide fills the GPU in 2 waves of 2.0, 64 wide in 4 of 1.5.
// CHECK-LABEL: func.func @wide_n(
// CHECK:         nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<128x64xf16
// CHECK:         gpu.func @nvfp4_sm90_gemm_0
// CHECK:           nvfp4k.wgmma.rs {{.*}} n = array<i64: 32, 64, 96, 128>
// FEW-LABEL: func.func @wide_n(
// FEW:         tensor = memref<128x64xf16
func.func @wide_n(%a: memref<1024x64xf4E2M1FN>, %sa: memref<8x1x32x4x4xf8E4M3FN>,
                  %b: memref<8x4096x64xf4E2M1FN>, %sb: memref<8x32x1x32x4x4xf8E4M3FN>,
                  %off: memref<9xi32>, %c: memref<1024x4096xbf16>) {
  nvfp4.grouped_matmul contiguous a(%a : memref<1024x64xf4E2M1FN>) a_scales(%sa : memref<8x1x32x4x4xf8E4M3FN>) b(%b : memref<8x4096x64xf4E2M1FN>) b_scales(%sb : memref<8x32x1x32x4x4xf8E4M3FN>) group_offsets(%off : memref<9xi32>) outs(%c : memref<1024x4096xbf16>)
  return
}

// -----

// The same tokens against N = 512 (4 weight tiles): 128-wide tiles would
// be 32, one wave on a quarter of the GPU; 64-wide ones are 64 (one wave,
// each cheaper). 32 is never the default.
// CHECK-LABEL: func.func @narrow_n(
// CHECK:         nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<64x64xf16
// CHECK:         gpu.func @nvfp4_sm90_gemm_0
// CHECK:           nvfp4k.wgmma.rs {{.*}} n = array<i64: 32, 64>}
// With 4 CTAs every width takes many waves: the widest wins.
// FEW-LABEL: func.func @narrow_n(
// FEW:         tensor = memref<128x64xf16
func.func @narrow_n(%a: memref<1024x64xf4E2M1FN>, %sa: memref<8x1x32x4x4xf8E4M3FN>,
                    %b: memref<8x512x64xf4E2M1FN>, %sb: memref<8x4x1x32x4x4xf8E4M3FN>,
                    %off: memref<9xi32>, %c: memref<1024x512xbf16>) {
  nvfp4.grouped_matmul contiguous a(%a : memref<1024x64xf4E2M1FN>) a_scales(%sa : memref<8x1x32x4x4xf8E4M3FN>) b(%b : memref<8x512x64xf4E2M1FN>) b_scales(%sb : memref<8x4x1x32x4x4xf8E4M3FN>) group_offsets(%off : memref<9xi32>) outs(%c : memref<1024x512xbf16>)
  return
}
