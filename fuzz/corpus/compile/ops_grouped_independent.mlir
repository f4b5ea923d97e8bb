func.func @grouped_independent(%a0: tensor<80x256xf4E2M1FN>, %sa0: tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                               %b0: tensor<64x256xf4E2M1FN>, %sb0: tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                               %a1: tensor<176x128xf4E2M1FN>, %sa1: tensor<2x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                               %b1: tensor<32x128xf4E2M1FN>, %sb1: tensor<1x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                               %da: tensor<2xf32>, %db: tensor<f32>, %alpha: tensor<2xf32>) {
  %c:2 = nvfp4.grouped_matmul independent
      a(%a0, %a1 : tensor<80x256xf4E2M1FN>, tensor<176x128xf4E2M1FN>)
      a_scales(%sa0, %sa1 : tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%b0, %b1 : tensor<64x256xf4E2M1FN>, tensor<32x128xf4E2M1FN>)
      b_scales(%sb0, %sb1 : tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<1x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      a_decode_scale(%da : tensor<2xf32>) b_decode_scale(%db : tensor<f32>) alpha(%alpha : tensor<2xf32>)
      -> tensor<80x64xbf16>, tensor<176x32xbf16>
  return
}
