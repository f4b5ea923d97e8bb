// RUN: nvfp4-opt %s -canonicalize -split-input-file | FileCheck %s

// unswizzle(swizzle(x)) -> x: the padding added by swizzle is dropped again.
// CHECK-LABEL: func @unswizzle_of_swizzle
// CHECK-SAME: (%[[X:.*]]: tensor<200x28xf8E4M3FN>)
// CHECK-NOT: nvfp4.
// CHECK: return %[[X]]
func.func @unswizzle_of_swizzle(%x: tensor<200x28xf8E4M3FN>) -> tensor<200x28xf8E4M3FN> {
  %sw = nvfp4.swizzle_scales %x : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %un = nvfp4.unswizzle_scales %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  return %un : tensor<200x28xf8E4M3FN>
}

// -----

// swizzle(unswizzle(y)) is NOT y: swizzle writes zeros where y's padding may
// hold anything.
// CHECK-LABEL: func @swizzle_of_unswizzle_kept
// CHECK: nvfp4.unswizzle_scales
// CHECK: nvfp4.swizzle_scales
func.func @swizzle_of_unswizzle_kept(%y: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> {
  %un = nvfp4.unswizzle_scales %y : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  %sw = nvfp4.swizzle_scales %un : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
}

// -----

// Unswizzling a swizzled matrix with another logical shape is not an identity.
// CHECK-LABEL: func @unswizzle_other_shape_kept
// CHECK: nvfp4.swizzle_scales
// CHECK: nvfp4.unswizzle_scales
func.func @unswizzle_other_shape_kept(%x: tensor<200x28xf8E4M3FN>) -> tensor<250x25xf8E4M3FN> {
  %sw = nvfp4.swizzle_scales %x : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %un = nvfp4.unswizzle_scales %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<250x25xf8E4M3FN>
  return %un : tensor<250x25xf8E4M3FN>
}

// -----

// Constant scales are swizzled at compile time: bytes (E4M3) S[0,0] = 1.0
// (0x38) at offset 0, S[0,1] = 0.5 (0x30) at offset 1, S[1,0] = 2.0 (0x40)
// at offset 16, every other of the 512 bytes zero.
// CHECK-LABEL: func @swizzle_constant
// CHECK: %[[C:.*]] = arith.constant dense<"0x3830{{(0{28})}}40{{((0{198}){5})}}"> : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
// CHECK-NOT: nvfp4.swizzle_scales
// CHECK: return %[[C]]
func.func @swizzle_constant() -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> {
  %s = arith.constant dense<[[1.0, 0.5], [2.0, 0.0]]> : tensor<2x2xf8E4M3FN>
  %sw = nvfp4.swizzle_scales %s : tensor<2x2xf8E4M3FN> -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return %sw : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
}

// -----

// ... and unswizzled back.
// CHECK-LABEL: func @unswizzle_constant
// CHECK: %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 5.000000e-01], [2.000000e+00, 0.000000e+00]]> : tensor<2x2xf8E4M3FN>
// CHECK: return %[[C]]
func.func @unswizzle_constant() -> tensor<2x2xf8E4M3FN> {
  %s = arith.constant dense<[[1.0, 0.5], [2.0, 0.0]]> : tensor<2x2xf8E4M3FN>
  %sw = nvfp4.swizzle_scales %s : tensor<2x2xf8E4M3FN> -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %c = arith.constant 0 : index
  %keep = tensor.extract %sw[%c, %c, %c, %c, %c] : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %un = nvfp4.unswizzle_scales %sw : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<2x2xf8E4M3FN>
  return %un : tensor<2x2xf8E4M3FN>
}

// -----

// A swizzle of quantize's row-major scales becomes a quantize that writes
// swizzled scales directly.
// CHECK-LABEL: func @swizzle_into_quantize
// CHECK: %[[Q:.*]]:3 = nvfp4.quantize nvfp4 %{{.*}} {hadamard} : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
// CHECK-NOT: nvfp4.swizzle_scales
// CHECK: return %[[Q]]#0, %[[Q]]#1, %[[Q]]#2
func.func @swizzle_into_quantize(%x: tensor<200x448xbf16>) -> (tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x {hadamard} : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>, tensor<200x28xf8E4M3FN>, tensor<f32>
  %sw = nvfp4.swizzle_scales %s : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return %q, %sw, %d : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
}

// -----

// Not when the row-major scales are used elsewhere too.
// CHECK-LABEL: func @swizzle_into_quantize_shared
// CHECK: nvfp4.quantize mxfp4 %{{.*}} -> tensor<128x64xf4E2M1FN>, tensor<128x2xf8E8M0FNU>
// CHECK: nvfp4.swizzle_scales
func.func @swizzle_into_quantize_shared(%x: tensor<128x64xf32>) -> (tensor<128x2xf8E8M0FNU>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) {
  %q, %s = nvfp4.quantize mxfp4 %x : tensor<128x64xf32> -> tensor<128x64xf4E2M1FN>, tensor<128x2xf8E8M0FNU>
  %sw = nvfp4.swizzle_scales %s : tensor<128x2xf8E8M0FNU> -> tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
  return %s, %sw : tensor<128x2xf8E8M0FNU>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
}

// -----

// dequantize reads either layout: no need to unswizzle first.
// CHECK-LABEL: func @dequantize_of_unswizzle
// CHECK-SAME: (%[[Q:.*]]: tensor<200x448xf4E2M1FN>, %[[SW:.*]]: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
// CHECK-NEXT: %[[R:.*]] = nvfp4.dequantize %[[Q]], %[[SW]] : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x448xf32>
// CHECK-NEXT: return %[[R]]
func.func @dequantize_of_unswizzle(%q: tensor<200x448xf4E2M1FN>, %sw: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<200x448xf32> {
  %s = nvfp4.unswizzle_scales %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  %x = nvfp4.dequantize %q, %s : tensor<200x448xf4E2M1FN>, tensor<200x28xf8E4M3FN> -> tensor<200x448xf32>
  return %x : tensor<200x448xf32>
}

// -----

// Tensor-form ops have no side effects: unused ones are erased; bufferized
// ones write memory and stay.
// CHECK-LABEL: func @dead_ops
// CHECK-NOT: nvfp4.quantize nvfp4 %{{.*}} : tensor
// CHECK: nvfp4.quantize nvfp4 %{{.*}} outs
func.func @dead_ops(%x: tensor<16x32xbf16>, %y: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  %0:3 = nvfp4.quantize nvfp4 %x : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  nvfp4.quantize nvfp4 %y outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}
