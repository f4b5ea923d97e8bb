// Stochastic-rounding quantize for sm_100a. By default it keeps the exact
// emulation (bit-exact with python/nvfp4/reference.py: no cvt.rs); with
// hardware-stochastic=true each four values go through one
// cvt.rs.satfinite.e2m1x4.f32 fed the Philox word the emulation would use,
// and ptxas -arch=sm_100a assembles it. The hardware's use of the random
// bits is not specified to the bit, so that mode is opt-in and is not
// compared with the reference; it has not run on Blackwell hardware.
// REQUIRES: ptxas
// RUN: nvfp4-opt %s --nvfp4-bufferize --convert-nvfp4-to-sm100="hardware-stochastic=true" | FileCheck %s --check-prefix=IR
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm100="format=isa hardware-stochastic=true" -o %t.rs.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.rs.mlir --name sr_kernel_0 -o %t.rs.ptx
// RUN: FileCheck %s --check-prefix=RS < %t.rs.ptx
// RUN: %ptxas -arch=sm_100a -O3 %t.rs.ptx -o %t.rs.cubin
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm100="format=isa" -o %t.exact.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.exact.mlir --name sr_kernel_0 -o %t.exact.ptx
// RUN: FileCheck %s --check-prefix=EXACT < %t.exact.ptx
// RUN: %ptxas -arch=sm_100a -O3 %t.exact.ptx -o %t.exact.cubin

// IR-LABEL: func.func @sr
// IR: gpu.launch
// IR-COUNT-4: nvvm.convert.f32x4.to.f4x4 {{.*}} : vector<4xf32> -> i16(f4E2M1FN)
// IR-NOT: nvvm.convert.f32x4.to.f4x4

// RS: .target sm_100a
// RS: .entry sr_kernel
// RS-COUNT-4: cvt.rs.satfinite.e2m1x4.f32
// RS-NOT: cvt.rs.satfinite

// The exact default: neither conversion (round-to-nearest's cvt.rn is for
// nearest_even only).
// EXACT: .target sm_100a
// EXACT: .entry sr_kernel
// EXACT-NOT: cvt.rs.satfinite
// EXACT-NOT: cvt.rn.satfinite.e2m1x2

func.func @sr(%x: tensor<256x512xbf16>, %seed: i64) -> (tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x seed %seed {rounding = #nvfp4.rounding<stochastic>} : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return %q, %s, %d : tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
}
