func.func @main(%a: tensor<128x64xf4E2M1FN>, %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %b: tensor<64x64xf4E2M1FN>, %sb: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
    -> tensor<128x64xbf16> {
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<128x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<64x64xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<128x64xbf16>
  return %c : tensor<128x64xbf16>
}
