func.func @unswizzle_of_swizzle(%x: tensor<200x28xf8E4M3FN>) -> tensor<200x28xf8E4M3FN> {
  %sw = nvfp4.swizzle_scales %x : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %un = nvfp4.unswizzle_scales %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  return %un : tensor<200x28xf8E4M3FN>
}
