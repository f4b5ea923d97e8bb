func.func @dequantize_of_unswizzle(%q: tensor<200x448xf4E2M1FN>, %sw: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<200x448xf32> {
  %s = nvfp4.unswizzle_scales %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  %x = nvfp4.dequantize %q, %s : tensor<200x448xf4E2M1FN>, tensor<200x28xf8E4M3FN> -> tensor<200x448xf32>
  return %x : tensor<200x448xf32>
}
