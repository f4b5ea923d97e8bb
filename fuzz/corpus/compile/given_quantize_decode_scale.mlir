func.func @main(%x: tensor<2x20x64xf16>, %d: tensor<2xf32>, %seed: i64) -> (tensor<2x20x64xf4E2M1FN>, tensor<2x20x4xf8E4M3FN>, tensor<2xf32>) {
  %q, %s, %sd = nvfp4.quantize nvfp4 %x decode_scale %d : tensor<2xf32> seed %seed {block = array<i64: 16, 16>, rounding = #nvfp4.rounding<stochastic>, hadamard} : tensor<2x20x64xf16> -> tensor<2x20x64xf4E2M1FN>, tensor<2x20x4xf8E4M3FN>, tensor<2xf32>
  return %q, %s, %sd : tensor<2x20x64xf4E2M1FN>, tensor<2x20x4xf8E4M3FN>, tensor<2xf32>
}
