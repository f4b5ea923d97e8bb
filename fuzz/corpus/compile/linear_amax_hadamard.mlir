func.func @main(%x: tensor<16x512xbf16>, %w: tensor<136x512xf4E2M1FN>, %ws: tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %wd: tensor<f32>) -> (tensor<16x136xf16>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x {hadamard, scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<16x512xbf16> -> tensor<16x512xf4E2M1FN>, tensor<1x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %y = nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : tensor<f32>) b_decode_scale(%wd : tensor<f32>) : tensor<16x512xf4E2M1FN>, tensor<1x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<136x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<16x136xf16>
  return %y : tensor<16x136xf16>
}
