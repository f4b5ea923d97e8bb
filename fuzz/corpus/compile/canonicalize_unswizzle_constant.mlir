func.func @unswizzle_constant() -> tensor<2x2xf8E4M3FN> {
  %s = arith.constant dense<[[1.0, 0.5], [2.0, 0.0]]> : tensor<2x2xf8E4M3FN>
  %sw = nvfp4.swizzle_scales %s : tensor<2x2xf8E4M3FN> -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %c = arith.constant 0 : index
  %keep = tensor.extract %sw[%c, %c, %c, %c, %c] : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %un = nvfp4.unswizzle_scales %sw : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<2x2xf8E4M3FN>
  return %un : tensor<2x2xf8E4M3FN>
}
