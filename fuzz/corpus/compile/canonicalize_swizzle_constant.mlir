func.func @swizzle_constant() -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> {
  %s = arith.constant dense<[[1.0, 0.5], [2.0, 0.0]]> : tensor<2x2xf8E4M3FN>
  %sw = nvfp4.swizzle_scales %s : tensor<2x2xf8E4M3FN> -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return %sw : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
}
