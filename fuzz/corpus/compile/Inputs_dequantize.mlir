func.func @main(%q: tensor<2x32xf4E2M1FN>, %s: tensor<2x2xf8E4M3FN>) -> tensor<2x32xf32> {
  %x = nvfp4.dequantize %q, %s : tensor<2x32xf4E2M1FN>, tensor<2x2xf8E4M3FN> -> tensor<2x32xf32>
  return %x : tensor<2x32xf32>
}
