func.func @main(%ids: tensor<6x2xi32>, %x: tensor<6x32xbf16>, %w: tensor<6x2xbf16>,
                %b: tensor<4x32x32xf4E2M1FN>,
                %bs: tensor<4x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %bd: tensor<4xf32>) -> tensor<6x32xf32> {
  %p, %r, %o = nvfp4.moe_route %ids : tensor<6x2xi32> -> tensor<12xi32>, tensor<6x2xi32>, tensor<5xi32>
  %xs = nvfp4.moe_dispatch %x, %p : tensor<6x32xbf16>, tensor<12xi32> -> tensor<12x32xbf16>
  %q, %s, %d = nvfp4.quantize nvfp4 %xs : tensor<12x32xbf16> -> tensor<12x32xf4E2M1FN>, tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %y = nvfp4.grouped_matmul contiguous a(%q : tensor<12x32xf4E2M1FN>) a_scales(%s : tensor<1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<4x32x32xf4E2M1FN>) b_scales(%bs : tensor<4x1x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%o : tensor<5xi32>) a_decode_scale(%d : tensor<f32>) b_decode_scale(%bd : tensor<4xf32>) -> tensor<12x32xbf16>
  %out = nvfp4.moe_combine %y, %r, %w {product_type = bf16} : tensor<12x32xbf16>, tensor<6x2xi32>, tensor<6x2xbf16> -> tensor<6x32xf32>
  return %out : tensor<6x32xf32>
}
