func.func @main(%x: tensor<10x256xf32>, %w: tensor<2x64x256xf4E2M1FN>, %ws: tensor<2x1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %wd: tensor<2xf32>, %off: tensor<3xi32>) -> (tensor<10x64xf32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<10x256xf32> -> tensor<10x256xf4E2M1FN>, tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %y = nvfp4.grouped_matmul contiguous a(%q : tensor<10x256xf4E2M1FN>) a_scales(%s : tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%w : tensor<2x64x256xf4E2M1FN>) b_scales(%ws : tensor<2x1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) a_decode_scale(%d : tensor<f32>) b_decode_scale(%wd : tensor<2xf32>) -> tensor<10x64xf32>
  return %y : tensor<10x64xf32>
}
