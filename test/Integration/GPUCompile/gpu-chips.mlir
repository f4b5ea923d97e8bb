// The portable pipeline down to cubins for chips past Hopper, ptxas
// included: the PTX version follows the chip (lib/Pipelines/GPUTarget.cpp).
// Before, each of these aborted in the NVPTX backend ("PTX version 8.0 does
// not support target ...").
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_100a" | FileCheck %s -DCHIP=sm_100a -DPTX=86
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_100" | FileCheck %s -DCHIP=sm_100 -DPTX=86
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_103a" | FileCheck %s -DCHIP=sm_103a -DPTX=88
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_120a" | FileCheck %s -DCHIP=sm_120a -DPTX=87
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-gpu="chip=sm_80" | FileCheck %s -DCHIP=sm_80 -DPTX=80

// CHECK: llvm.func @main(
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "[[CHIP]]", features = "+ptx[[PTX]]">, {{.*}}bin = "\7FELF
func.func @main(%x: tensor<128x64xbf16>, %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<128x64xbf16> {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<128x64xbf16> -> tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %c = nvfp4.matmul %q, %s, %b, %sb a_decode_scale(%d : tensor<f32>) : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return %c : tensor<128x64xbf16>
}
