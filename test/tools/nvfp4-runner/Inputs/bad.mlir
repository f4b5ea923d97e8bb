func.func @main(%x: tensor<16x40xbf16>) -> tensor<16x40xf4E2M1FN> {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<16x40xbf16> -> tensor<16x40xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return %q : tensor<16x40xf4E2M1FN>
}
