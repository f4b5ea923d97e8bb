func.func @swizzle_of_unswizzle_kept(%y: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> {
  %un = nvfp4.unswizzle_scales %y : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  %sw = nvfp4.swizzle_scales %un : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
}
