// Constants of every narrow type, returned as they are, swizzled at compile
// time (the swizzle folds), and read by a dequantize.
func.func @main() -> (tensor<2x4xf4E2M1FN>, tensor<2x2xf8E4M3FN>, tensor<2x2xf8E8M0FNU>,
                      tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x32xf32>, tensor<2x64xf32>) {
  %f4 = arith.constant dense<[[0.5, -1.0, 6.0, 0.0], [1.5, 2.0, -6.0, 3.0]]> : tensor<2x4xf4E2M1FN>
  %e4m3 = arith.constant dense<[[1.0, 0.5], [2.0, 0.0]]> : tensor<2x2xf8E4M3FN>
  %e8m0 = arith.constant dense<[[1.0, 2.0], [0.5, 4.0]]> : tensor<2x2xf8E8M0FNU>
  %sw = nvfp4.swizzle_scales %e4m3 : tensor<2x2xf8E4M3FN> -> tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %codes = arith.constant dense<[[0.5, -1.0, 6.0, 0.0, 0.5, -1.0, 6.0, 0.0, 0.5, -1.0, 6.0, 0.0, 0.5, -1.0, 6.0, 0.0,
                                  1.5, 2.0, -6.0, 3.0, 1.5, 2.0, -6.0, 3.0, 1.5, 2.0, -6.0, 3.0, 1.5, 2.0, -6.0, 3.0],
                                 [1.5, 2.0, -6.0, 3.0, 1.5, 2.0, -6.0, 3.0, 1.5, 2.0, -6.0, 3.0, 1.5, 2.0, -6.0, 3.0,
                                  0.5, -1.0, 6.0, 0.0, 0.5, -1.0, 6.0, 0.0, 0.5, -1.0, 6.0, 0.0, 0.5, -1.0, 6.0, 0.0]]> : tensor<2x32xf4E2M1FN>
  %x = nvfp4.dequantize %codes, %e4m3 : tensor<2x32xf4E2M1FN>, tensor<2x2xf8E4M3FN> -> tensor<2x32xf32>
  %mx = arith.constant dense<1.5> : tensor<2x64xf4E2M1FN>
  %y = nvfp4.dequantize %mx, %e8m0 : tensor<2x64xf4E2M1FN>, tensor<2x2xf8E8M0FNU> -> tensor<2x64xf32>
  return %f4, %e4m3, %e8m0, %sw, %x, %y : tensor<2x4xf4E2M1FN>, tensor<2x2xf8E4M3FN>, tensor<2x2xf8E8M0FNU>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x32xf32>, tensor<2x64xf32>
}
