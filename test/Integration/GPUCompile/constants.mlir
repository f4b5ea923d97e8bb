// Constants of the narrow types on every GPU pipeline, down to cubins
// (ptxas runs): the globals hold the bytes of docs/spec.md section 1, and the
// constants kernels read are copied into device buffers first (a kernel
// cannot read a host global); a constant that is only returned is copied
// straight into its out-param. Before, every pipeline failed with "failed to
// legalize operation 'memref.get_global'".
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-gpu | FileCheck %s --check-prefixes=CHECK,GPU
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90 | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm100 | FileCheck %s --check-prefixes=CHECK,SM100

// Weights 0.5 everywhere (code 1: 0x11 per byte), scales 1.0 (0x38), swizzled
// at compile time: rows 64..127 of the 128-row tile are zero padding.
// CHECK-DAG: llvm.mlir.global private constant @[[SW:.*]](dense<"0x38383838383838380000000000000000{{.*}}"> : tensor<1x1x32x4x4xi8>)
// CHECK-DAG: llvm.mlir.global private constant @[[W:.*]](dense<17> : tensor<64x32xi8>)
// CHECK-DAG: llvm.mlir.global private constant @[[Q:.*]](dense<{{\[\[}}-110, 7, {{.*}}]]> : tensor<2x16xi8>)
// CHECK-DAG: llvm.mlir.global private constant @[[S:.*]](dense<{{\[\[}}64, 48], [56, 72]]> : tensor<2x2xi8>)
// CHECK: llvm.func @main(
// Four constants read by kernels: four device buffers filled from the host,
// then one copy of the returned constant into its out-param.
// CHECK-COUNT-4: llvm.call @mgpuMemcpy
// GPU: gpu.launch_func {{.*}} @main_kernel
// SM90: gpu.launch_func {{.*}} @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// SM100: gpu.launch_func {{.*}} @nvfp4_sm100_gemm_0::@nvfp4_sm100_gemm_0
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuMemcpy
// CHECK: gpu.binary @{{.*}}bin = "\7FELF
func.func @main(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
    -> (tensor<128x64xbf16>, tensor<2x32xf32>, tensor<2x2xf8E4M3FN>) {
  %b = arith.constant dense<0.5> : tensor<64x64xf4E2M1FN>
  %s = arith.constant dense<1.0> : tensor<64x4xf8E4M3FN>
  %sb = nvfp4.swizzle_scales %s : tensor<64x4xf8E4M3FN> -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  %q = arith.constant dense<[[1.0, -0.5, 6.0, 0.0, 1.0, -0.5, 6.0, 0.0, 1.0, -0.5, 6.0, 0.0, 1.0, -0.5, 6.0, 0.0, 1.0, -0.5, 6.0, 0.0, 1.0, -0.5, 6.0, 0.0, 1.0, -0.5, 6.0, 0.0, 1.0, -0.5, 6.0, 0.0], [2.0, 3.0, 4.0, -6.0, 2.0, 3.0, 4.0, -6.0, 2.0, 3.0, 4.0, -6.0, 2.0, 3.0, 4.0, -6.0, 2.0, 3.0, 4.0, -6.0, 2.0, 3.0, 4.0, -6.0, 2.0, 3.0, 4.0, -6.0, 2.0, 3.0, 4.0, -6.0]]> : tensor<2x32xf4E2M1FN>
  %qs = arith.constant dense<[[2.0, 0.5], [1.0, 4.0]]> : tensor<2x2xf8E4M3FN>
  %x = nvfp4.dequantize %q, %qs : tensor<2x32xf4E2M1FN>, tensor<2x2xf8E4M3FN> -> tensor<2x32xf32>
  return %c, %x, %qs : tensor<128x64xbf16>, tensor<2x32xf32>, tensor<2x2xf8E4M3FN>
}
