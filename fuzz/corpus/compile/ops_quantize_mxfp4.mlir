func.func @quantize_mxfp4(%x: tensor<2x100x64xbf16>) -> tensor<2x100x64xf4E2M1FN> {
  %q, %s = nvfp4.quantize mxfp4 %x {scale_rule = #nvfp4.scale_rule<floor>} : tensor<2x100x64xbf16> -> tensor<2x100x64xf4E2M1FN>, tensor<2x1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
  return %q : tensor<2x100x64xf4E2M1FN>
}
