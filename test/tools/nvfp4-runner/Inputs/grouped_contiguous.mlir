// Two groups over S = 8 rows of A (K = 32, N = 8); group g owns the rows
// [offsets[g], offsets[g+1]).
func.func @main(%a: tensor<8x32xf4E2M1FN>,
                %sa: tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %b: tensor<2x8x32xf4E2M1FN>,
                %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %offsets: tensor<3xi32>) -> tensor<8x8xf32> {
  %c = nvfp4.grouped_matmul contiguous
      a(%a : tensor<8x32xf4E2M1FN>)
      a_scales(%sa : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%b : tensor<2x8x32xf4E2M1FN>)
      b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%offsets : tensor<3xi32>)
      -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
