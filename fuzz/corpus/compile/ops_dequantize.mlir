func.func @dequantize(%q: tensor<200x448xf4E2M1FN>, %s: tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %d: tensor<f32>,
                      %mq: tensor<3x8x64xf4E2M1FN>, %ms: tensor<3x8x2xf8E8M0FNU>,
                      %bq: memref<8x32xf4E2M1FN>, %bs: memref<8x2xf8E4M3FN>, %bo: memref<8x32xf16>) {
  %x = nvfp4.dequantize %q, %s decode_scale %d : tensor<f32> : tensor<200x448xf4E2M1FN>, tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x448xbf16>
  %y = nvfp4.dequantize %mq, %ms : tensor<3x8x64xf4E2M1FN>, tensor<3x8x2xf8E8M0FNU> -> tensor<3x8x64xf32>
  nvfp4.dequantize %bq, %bs outs(%bo : memref<8x32xf16>) : memref<8x32xf4E2M1FN>, memref<8x2xf8E4M3FN>
  return
}
