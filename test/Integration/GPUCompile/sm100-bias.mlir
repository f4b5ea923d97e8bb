// A matmul's bias on the sm_100a kernel (the same nvfp4k.store as sm_90a's):
// assembled by ptxas for sm_100a without spills, the bias read once per
// output column (a non-coherent 2-byte load of the bf16 value) and added in
// fp32 round-to-nearest after the TMEM load, before the rounding to bf16;
// the tcgen05 descriptors still decode. Compile-only: runs in CI; what it
// computes was checked under tcgen05 emulation on a Hopper GPU (never on
// Blackwell hardware).
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm100="format=isa" -o %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm100_gemm_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_100a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX < %t.0.ptx
// RUN: %PYTHON -m nvfp4_testing.ptx_decode %t.0.ptx | FileCheck %s --check-prefix=DECODE --implicit-check-not="violations=['"

// PTXAS: Compiling entry function 'nvfp4_sm100_gemm_0' for 'sm_100a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// The bias address is the kernel's last parameter.
// PTX:       .param .u64 nvfp4_sm100_gemm_0_param_5
// PTX:       ld.param.b64 %[[BIAS:rd[0-9]+]], [nvfp4_sm100_gemm_0_param_5];
// PTX:       tcgen05.ld.sync.aligned
// PTX:       ld.global.nc.b16 %[[B:rs[0-9]+]]
// PTX-NEXT:  add.rn.f32.bf16 %[[V:r[0-9]+]], %[[B]], %r{{[0-9]+}};
// PTX:       cvt.rn.bf16.f32 %{{rs[0-9]+}}, %[[V]];

// DECODE: kernel checks: OK

func.func @bias(%a: tensor<256x256xf4E2M1FN>, %sa: tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %b: tensor<256x256xf4E2M1FN>, %sb: tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %bias: tensor<256xbf16>) -> tensor<256x256xbf16> {
  %c = nvfp4.matmul %a, %sa, %b, %sb bias(%bias : tensor<256xbf16>) : tensor<256x256xf4E2M1FN>, tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<256x256xf4E2M1FN>, tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<256x256xbf16>
  return %c : tensor<256x256xbf16>
}
