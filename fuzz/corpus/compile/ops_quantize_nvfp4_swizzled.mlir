func.func @quantize_nvfp4_swizzled(%x: tensor<200x448xbf16>) -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<200x448xbf16> -> tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return %s : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
}
