// Grouped matmuls whose group tables are computed inside the program
// (table + bias), so the runner's input check cannot see them: only the
// kernels' own clamping keeps out-of-contract tables inside the operands.
func.func @contiguous(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %b: tensor<2x128x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %off: tensor<3xi32>, %bias: tensor<3xi32>) -> tensor<256x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ox0 = tensor.extract %off[%c0] : tensor<3xi32>
  %oy0 = tensor.extract %bias[%c0] : tensor<3xi32>
  %o0 = arith.addi %ox0, %oy0 : i32
  %ox1 = tensor.extract %off[%c1] : tensor<3xi32>
  %oy1 = tensor.extract %bias[%c1] : tensor<3xi32>
  %o1 = arith.addi %ox1, %oy1 : i32
  %ox2 = tensor.extract %off[%c2] : tensor<3xi32>
  %oy2 = tensor.extract %bias[%c2] : tensor<3xi32>
  %o2 = arith.addi %ox2, %oy2 : i32
  %o = tensor.from_elements %o0, %o1, %o2 : tensor<3xi32>
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<256x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x128x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%o : tensor<3xi32>) -> tensor<256x128xbf16>
  return %c : tensor<256x128xbf16>
}

func.func @masked(%a: tensor<2x128x64xf4E2M1FN>, %sa: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %b: tensor<2x128x64xf4E2M1FN>, %sb: tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %mm: tensor<2xi32>, %bias: tensor<2xi32>) -> tensor<2x128x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %mx0 = tensor.extract %mm[%c0] : tensor<2xi32>
  %my0 = tensor.extract %bias[%c0] : tensor<2xi32>
  %m0 = arith.addi %mx0, %my0 : i32
  %mx1 = tensor.extract %mm[%c1] : tensor<2xi32>
  %my1 = tensor.extract %bias[%c1] : tensor<2xi32>
  %m1 = arith.addi %mx1, %my1 : i32
  %m = tensor.from_elements %m0, %m1 : tensor<2xi32>
  %c = nvfp4.grouped_matmul masked a(%a : tensor<2x128x64xf4E2M1FN>) a_scales(%sa : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<2x128x64xf4E2M1FN>) b_scales(%sb : tensor<2x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%m : tensor<2xi32>) -> tensor<2x128x128xbf16>
  return %c : tensor<2x128x128xbf16>
}
