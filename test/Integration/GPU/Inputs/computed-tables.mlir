// Grouped matmuls whose group tables come straight from the inputs; run with
// nvfp4-runner --unchecked-group-tables, out-of-contract tables reach the
// kernels, whose own clamping must keep them inside their operands.
func.func @contiguous(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %b: tensor<2x128x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %off: tensor<3xi32>) -> tensor<256x128xbf16> {
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<256x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x128x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<3xi32>) -> tensor<256x128xbf16>
  return %c : tensor<256x128xbf16>
}

func.func @masked(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %b: tensor<2x128x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %mm: tensor<2xi32>) -> tensor<2x128x128xbf16> {
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x128x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x128x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%mm : tensor<2xi32>) -> tensor<2x128x128xbf16>
  return %c : tensor<2x128x128xbf16>
}
