// RUN: nvfp4-opt %s --nvfp4-lower-to-cpu | FileCheck %s

// Narrow-float constants down to LLVM on the CPU pipeline: globals of their
// storage bytes (docs/spec.md section 1), the swizzle folded at compile time.
// Before, memref.get_global of these types failed to legalize.
// CHECK-DAG: llvm.mlir.global private constant @{{.*}}(dense<{{\[\[}}-95, 7], [67, 95]]> : tensor<2x2xi8>)
// CHECK-DAG: llvm.mlir.global private constant @{{.*}}(dense<{{\[\[}}127, -128], [126, -127]]> : tensor<2x2xi8>)
// CHECK-DAG: llvm.mlir.global private constant @{{.*}}(dense<"0x38300000000000000000000000000000400000{{0*}}"> : tensor<1x1x32x4x4xi8>)
// CHECK-DAG: llvm.mlir.global private constant @{{.*}}(dense<17> : tensor<4x8xi8>)
// CHECK: llvm.func @constants(
// CHECK-NOT: memref.get_global
func.func @constants() -> (tensor<2x4xf4E2M1FN>, tensor<2x2xf8E8M0FNU>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<4x16xf32>) {
  %f4 = arith.constant dense<[[0.5, -1.0, 6.0, 0.0], [1.5, 2.0, -6.0, 3.0]]> : tensor<2x4xf4E2M1FN>
  %e8m0 = arith.constant dense<[[1.0, 2.0], [0.5, 4.0]]> : tensor<2x2xf8E8M0FNU>
  %s = arith.constant dense<[[1.0, 0.5], [2.0, 0.0]]> : tensor<2x2xf8E4M3FN>
  %sw = nvfp4.swizzle_scales %s : tensor<2x2xf8E4M3FN> -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %q = arith.constant dense<0.5> : tensor<4x16xf4E2M1FN>
  %qs = arith.constant dense<2.0> : tensor<4x1xf8E4M3FN>
  %x = nvfp4.dequantize %q, %qs : tensor<4x16xf4E2M1FN>, tensor<4x1xf8E4M3FN> -> tensor<4x16xf32>
  return %f4, %e8m0, %sw, %x : tensor<2x4xf4E2M1FN>, tensor<2x2xf8E8M0FNU>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<4x16xf32>
}
