func.func @main(%x: tensor<5x256xbf16>, %w: tensor<64x256xf4E2M1FN>, %ws: tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %wd: tensor<f32>, %x2: tensor<3x128xf16>, %m: tensor<64x128xf4E2M1FN>, %ms: tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) -> (tensor<5x64xbf16>, tensor<3x64xf32>) {
  %y = nvfp4.matmul %x, %w, %ws b_decode_scale(%wd : tensor<f32>) : tensor<5x256xbf16>, tensor<64x256xf4E2M1FN>, tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<5x64xbf16>
  %z = nvfp4.matmul %x2, %m, %ms : tensor<3x128xf16>, tensor<64x128xf4E2M1FN>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<3x64xf32>
  return %y, %z : tensor<5x64xbf16>, tensor<3x64xf32>
}
