func.func @dead_ops(%x: tensor<16x32xbf16>, %y: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  %0:3 = nvfp4.quantize nvfp4 %x : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  nvfp4.quantize nvfp4 %y outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}
