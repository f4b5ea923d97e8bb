func.func @swizzle_into_quantize(%x: tensor<200x448xbf16>) -> (tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x {hadamard} : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>, tensor<200x28xf8E4M3FN>, tensor<f32>
  %sw = nvfp4.swizzle_scales %s : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  return %q, %sw, %d : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
}
