// Zero-size dimensions through every GPU pipeline down to cubins (ptxas
// runs). Before, each pipeline emitted a launch of zero blocks and NVVM
// rejected it ("'nvvm.read.ptx.sreg.nctaid.x' op invalid range attribute").
// Kernels are launched only where there is something to write: the decode
// scales of the empty quantizes (the one without rows or batch entries
// needs none) and the K = 0 matmul (beta * acc, on the portable kernel in
// every pipeline). python -m nvfp4_testing.selfcheck empty checks the values.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-gpu | FileCheck %s
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90 | FileCheck %s
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm100 | FileCheck %s

// CHECK: llvm.func @empty(
// CHECK-COUNT-4: gpu.launch_func {{.*}} @empty_kernel{{(_[0-9]+)?}}::@empty_kernel blocks in
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// CHECK-NOT: nvfp4_sm90_gemm
// CHECK-NOT: nvfp4_sm100_gemm
// CHECK: gpu.binary @empty_kernel {{.*}}bin = "\7FELF
func.func @empty(%x0: tensor<0x64xbf16>, %xk: tensor<16x0xf32>, %xb: tensor<0x16x32xf16>, %amax: tensor<2xf32>, %xr: tensor<2x0x32xbf16>,
                 %a0: tensor<0x64xf4E2M1FN>, %sa0: tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                 %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                 %ak: tensor<128x0xf4E2M1FN>, %sak: tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                 %bk: tensor<64x0xf4E2M1FN>, %sbk: tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                 %acc: tensor<128x64xf32>,
                 %gb: tensor<2x64x64xf4E2M1FN>, %gsb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %off: tensor<3xi32>,
                 %gam: tensor<2x0x64xf4E2M1FN>, %gsam: tensor<2x0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %mm: tensor<2xi32>)
    -> (tensor<0x64xf4E2M1FN>, tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>,
        tensor<16x0xf4E2M1FN>, tensor<16x0xf8E8M0FNU>,
        tensor<0x16x32xf4E2M1FN>, tensor<0x16x2xf8E4M3FN>, tensor<0xf32>,
        tensor<2x0x32xf4E2M1FN>, tensor<2x0x2xf8E4M3FN>, tensor<2xf32>,
        tensor<16x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>,
        tensor<0x64xbf16>, tensor<128x64xf32>, tensor<0x64xbf16>, tensor<2x0x64xf32>, tensor<0x64xf32>) {
  %q0, %s0, %d0 = nvfp4.quantize nvfp4 %x0 : tensor<0x64xbf16> -> tensor<0x64xf4E2M1FN>, tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %q1, %s1 = nvfp4.quantize mxfp4 %xk : tensor<16x0xf32> -> tensor<16x0xf4E2M1FN>, tensor<16x0xf8E8M0FNU>
  %q2, %s2, %d2 = nvfp4.quantize nvfp4 %xb : tensor<0x16x32xf16> -> tensor<0x16x32xf4E2M1FN>, tensor<0x16x2xf8E4M3FN>, tensor<0xf32>
  %q3, %s3, %d3 = nvfp4.quantize nvfp4 %xr amax %amax : tensor<2xf32> : tensor<2x0x32xbf16> -> tensor<2x0x32xf4E2M1FN>, tensor<2x0x2xf8E4M3FN>, tensor<2xf32>
  %q4, %s4, %d4 = nvfp4.quantize nvfp4 %xk : tensor<16x0xf32> -> tensor<16x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %x = nvfp4.dequantize %q0, %s0 decode_scale %d0 : tensor<f32> : tensor<0x64xf4E2M1FN>, tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<0x64xf32>
  %m0 = nvfp4.matmul %a0, %sa0, %b, %sb : tensor<0x64xf4E2M1FN>, tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<0x64xbf16>
  %k0 = nvfp4.matmul %ak, %sak, %bk, %sbk acc(%acc : tensor<128x64xf32>) {beta = 0.5 : f32} : tensor<128x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xf32>
  %gc = nvfp4.grouped_matmul contiguous a(%a0 : tensor<0x64xf4E2M1FN>) a_scales(%sa0 : tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%gb : tensor<2x64x64xf4E2M1FN>) b_scales(%gsb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) -> tensor<0x64xbf16>
  %gm = nvfp4.grouped_matmul masked a(%gam : tensor<2x0x64xf4E2M1FN>) a_scales(%gsam : tensor<2x0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%gb : tensor<2x64x64xf4E2M1FN>) b_scales(%gsb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%mm : tensor<2xi32>) -> tensor<2x0x64xf32>
  return %q0, %s0, %d0, %q1, %s1, %q2, %s2, %d2, %q3, %s3, %d3, %q4, %s4, %d4, %m0, %k0, %gc, %gm, %x
      : tensor<0x64xf4E2M1FN>, tensor<0x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>,
        tensor<16x0xf4E2M1FN>, tensor<16x0xf8E8M0FNU>,
        tensor<0x16x32xf4E2M1FN>, tensor<0x16x2xf8E4M3FN>, tensor<0xf32>,
        tensor<2x0x32xf4E2M1FN>, tensor<2x0x2xf8E4M3FN>, tensor<2xf32>,
        tensor<16x0xf4E2M1FN>, tensor<1x0x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>,
        tensor<0x64xbf16>, tensor<128x64xf32>, tensor<0x64xbf16>, tensor<2x0x64xf32>, tensor<0x64xf32>
}
