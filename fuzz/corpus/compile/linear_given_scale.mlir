func.func @main(%x: tensor<4x256xf32>, %scale: tensor<f32>, %seed: i64, %w: tensor<64x256xf4E2M1FN>, %ws: tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %wd: tensor<f32>) -> (tensor<4x64xbf16>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x decode_scale %scale : tensor<f32> seed %seed {rounding = #nvfp4.rounding<stochastic>} : tensor<4x256xf32> -> tensor<4x256xf4E2M1FN>, tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %y = nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : tensor<f32>) b_decode_scale(%wd : tensor<f32>) : tensor<4x256xf4E2M1FN>, tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x256xf4E2M1FN>, tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<4x64xbf16>
  return %y : tensor<4x64xbf16>
}
