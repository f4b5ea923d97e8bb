// The narrow-token kernel (gemv: dense matmuls of at most 16 tokens),
// assembled by ptxas without spills for one token tile (M = 1, a fused
// activation quantize at M = 4) and two (M = 16), each with the warps
// auto chooses for its K: mma.sync m16n8k16 on exactly dequantized
// fragments, the warps' sums added through shared memory.
// Compile-only: runs in CI; what the kernel computes is checked on the GPU
// (the decode selfcheck's configurations, test/Integration/GPU).
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="format=isa" -o %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemv_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=ONE < %t.0.ptx
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemv_1 -o %t.1.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.1.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=TWO < %t.1.ptx
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemv_2 -o %t.2.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.2.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// PTXAS: Compiling entry function 'nvfp4_sm90_gemv_{{[0-2]}}' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// M = 1, K = 14336: 16 warps of 7 blocks each.
// ONE:       .maxntid 512, 1, 1
// ONE:       griddepcontrol.wait
// ONE:       ld.global.nc.v4
// ONE:       cvt.rn.f16x2.e4m3x2
// ONE:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// ONE-NOT:   wgmma
// ONE:       bar.sync 0;

// M = 16, K = 4096: two token tiles, 8 warps.
// TWO:       .maxntid 256, 1, 1
// TWO-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

func.func @one(%a: tensor<1x14336xf4E2M1FN>, %sa: tensor<1x224x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
               %b: tensor<4096x14336xf4E2M1FN>, %sb: tensor<32x224x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<1x4096xbf16> {
  %d = nvfp4.matmul %a, %sa, %b, %sb : tensor<1x14336xf4E2M1FN>, tensor<1x224x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<4096x14336xf4E2M1FN>, tensor<32x224x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<1x4096xbf16>
  return %d : tensor<1x4096xbf16>
}

func.func @two(%a: tensor<16x4096xf4E2M1FN>, %sa: tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
               %b: tensor<4096x4096xf4E2M1FN>, %sb: tensor<32x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<16x4096xbf16> {
  %d = nvfp4.matmul %a, %sa, %b, %sb : tensor<16x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<4096x4096xf4E2M1FN>, tensor<32x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<16x4096xbf16>
  return %d : tensor<16x4096xbf16>
}

// A linear layer: the activations' quantize fused into the token pre-pass.
func.func @linear(%x: tensor<4x4096xbf16>, %b: tensor<14336x4096xf4E2M1FN>, %sb: tensor<112x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<4x14336xbf16> {
  %q, %s, %dq = nvfp4.quantize nvfp4 %x : tensor<4x4096xbf16> -> tensor<4x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %d = nvfp4.matmul %q, %s, %b, %sb a_decode_scale(%dq : tensor<f32>) : tensor<4x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<14336x4096xf4E2M1FN>, tensor<112x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<4x14336xbf16>
  return %d : tensor<4x14336xbf16>
}
