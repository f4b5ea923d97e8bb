func.func @swizzle(%s: tensor<200x28xf8E4M3FN>, %m: memref<4x3x2xf8E8M0FNU>, %o: memref<4x1x1x32x4x4xf8E8M0FNU>) -> tensor<200x28xf8E4M3FN> {
  %sw = nvfp4.swizzle_scales %s : tensor<200x28xf8E4M3FN> -> tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %un = nvfp4.unswizzle_scales %sw : tensor<2x7x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<200x28xf8E4M3FN>
  nvfp4.swizzle_scales %m outs(%o : memref<4x1x1x32x4x4xf8E8M0FNU>) : memref<4x3x2xf8E8M0FNU>
  return %un : tensor<200x28xf8E4M3FN>
}
