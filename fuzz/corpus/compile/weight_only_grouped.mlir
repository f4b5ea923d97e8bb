func.func @main(%x: tensor<10x256xbf16>, %w: tensor<2x64x256xf4E2M1FN>, %ws: tensor<2x1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %wd: tensor<2xf32>, %off: tensor<3xi32>, %xm: tensor<2x8x256xf16>, %mm: tensor<2xi32>) -> (tensor<10x64xf32>, tensor<2x8x64xbf16>) {
  %y = nvfp4.grouped_matmul contiguous a(%x : tensor<10x256xbf16>) b(%w : tensor<2x64x256xf4E2M1FN>) b_scales(%ws : tensor<2x1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) b_decode_scale(%wd : tensor<2xf32>) -> tensor<10x64xf32>
  %z = nvfp4.grouped_matmul masked a(%xm : tensor<2x8x256xf16>) b(%w : tensor<2x64x256xf4E2M1FN>) b_scales(%ws : tensor<2x1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%mm : tensor<2xi32>) -> tensor<2x8x64xbf16>
  return %y, %z : tensor<10x64xf32>, tensor<2x8x64xbf16>
}
