// Two groups of at most maxM = 8 rows (K = 32, N = 8); group g owns its
// first masked_m[g] rows.
func.func @main(%a: tensor<2x8x32xf4E2M1FN>,
                %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %b: tensor<2x8x32xf4E2M1FN>,
                %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %masked_m: tensor<2xi32>) -> tensor<2x8x8xf32> {
  %c = nvfp4.grouped_matmul masked
      a(%a : tensor<2x8x32xf4E2M1FN>)
      a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%b : tensor<2x8x32xf4E2M1FN>)
      b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      masked_m(%masked_m : tensor<2xi32>)
      -> tensor<2x8x8xf32>
  return %c : tensor<2x8x8xf32>
}
