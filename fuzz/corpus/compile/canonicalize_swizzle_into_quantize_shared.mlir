func.func @swizzle_into_quantize_shared(%x: tensor<128x64xf32>) -> (tensor<128x2xf8E8M0FNU>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) {
  %q, %s = nvfp4.quantize mxfp4 %x : tensor<128x64xf32> -> tensor<128x64xf4E2M1FN>, tensor<128x2xf8E8M0FNU>
  %sw = nvfp4.swizzle_scales %s : tensor<128x2xf8E8M0FNU> -> tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
  return %s, %sw : tensor<128x2xf8E8M0FNU>, tensor<1x1x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>
}
