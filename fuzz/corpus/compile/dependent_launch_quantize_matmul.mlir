func.func @main(%x: tensor<16x256xbf16>, %b: tensor<256x256xf4E2M1FN>, %sb: tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<16x256xbf16> {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<16x256xbf16> -> tensor<16x256xf4E2M1FN>, tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %c = nvfp4.matmul %q, %s, %b, %sb a_decode_scale(%d : tensor<f32>) : tensor<16x256xf4E2M1FN>, tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<256x256xf4E2M1FN>, tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<16x256xbf16>
  return %c : tensor<16x256xbf16>
}
