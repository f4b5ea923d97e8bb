func.func @matmul(%a: tensor<200x448xf4E2M1FN>, %sa: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %b: tensor<96x448xf4E2M1FN>, %sb: tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %da: tensor<f32>, %db: tensor<f32>, %c: tensor<200x96xf32>) -> (tensor<200x96xbf16>, tensor<200x96xf32>) {
  %0 = nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : tensor<f32>) b_decode_scale(%db : tensor<f32>)
      : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<96x448xf4E2M1FN>, tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x96xbf16>
  %1 = nvfp4.matmul %a, %sa, %b, %sb alpha(%da : tensor<f32>) acc(%c : tensor<200x96xf32>) {beta = 0.5 : f32}
      : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<96x448xf4E2M1FN>, tensor<1x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x96xf32>
  return %0, %1 : tensor<200x96xbf16>, tensor<200x96xf32>
}
