func.func @grouped_contiguous(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                              %b: tensor<3x96x64xf4E2M1FN>, %sb: tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                              %off: tensor<4xi32>, %c: tensor<256x96xf32>) -> tensor<256x96xf32> {
  %r = nvfp4.grouped_matmul contiguous a(%a : tensor<256x64xf4E2M1FN>)
      a_scales(%sa : tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%b : tensor<3x96x64xf4E2M1FN>) b_scales(%sb : tensor<3x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%off : tensor<4xi32>) acc(%c : tensor<256x96xf32>) {beta = 2.0 : f32} -> tensor<256x96xf32>
  return %r : tensor<256x96xf32>
}
