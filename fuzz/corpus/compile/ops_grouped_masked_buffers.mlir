func.func @grouped_masked_buffers(%a: memref<2x64x32xf4E2M1FN>, %sa: memref<2x1x1x32x4x4xf8E4M3FN>,
                                  %b: memref<2x16x32xf4E2M1FN>, %sb: memref<2x1x1x32x4x4xf8E4M3FN>,
                                  %m: memref<2xi32>, %c: memref<2x64x16xf16>) {
  nvfp4.grouped_matmul masked a(%a : memref<2x64x32xf4E2M1FN>) a_scales(%sa : memref<2x1x1x32x4x4xf8E4M3FN>)
      b(%b : memref<2x16x32xf4E2M1FN>) b_scales(%sb : memref<2x1x1x32x4x4xf8E4M3FN>)
      masked_m(%m : memref<2xi32>) outs(%c : memref<2x64x16xf16>)
  return
}
