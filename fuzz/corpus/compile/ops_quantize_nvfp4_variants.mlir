func.func @quantize_nvfp4_variants(%x: tensor<64x48xf32>, %amax: tensor<f32>, %y: tensor<4x16x32xf16>, %seed: i64) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x amax %amax : tensor<f32> {block = array<i64: 16, 16>, scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<64x48xf32> -> tensor<64x48xf4E2M1FN>, tensor<64x3xf8E4M3FN>, tensor<f32>
  %q2, %s2, %d2 = nvfp4.quantize nvfp4 %y seed %seed {rounding = #nvfp4.rounding<stochastic>, hadamard, scale_rule = #nvfp4.scale_rule<four_over_six>, error_metric = #nvfp4.error_metric<abs_max>} : tensor<4x16x32xf16> -> tensor<4x16x32xf4E2M1FN>, tensor<4x16x2xf8E4M3FN>, tensor<4xf32>
  return
}
