func.func @experts_gate_up(%x: tensor<256x512xbf16>, %w: tensor<8x384x512xf4E2M1FN>,
                           %ws: tensor<8x3x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                           %wd: tensor<8xf32>, %off: tensor<9xi32>, %hs: tensor<f32>)
    -> (tensor<256x192xf4E2M1FN>, tensor<2x3x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %y = nvfp4.grouped_matmul contiguous a(%q : tensor<256x512xf4E2M1FN>) a_scales(%s : tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%w : tensor<8x384x512xf4E2M1FN>) b_scales(%ws : tensor<8x3x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<9xi32>) a_decode_scale(%d : tensor<f32>) b_decode_scale(%wd : tensor<8xf32>) -> tensor<256x384xbf16>
  %h = nvfp4.swiglu %y : tensor<256x384xbf16> -> tensor<256x192xbf16>
  %hq, %hsc, %hd = nvfp4.quantize nvfp4 %h encode_scale %hs : tensor<f32> : tensor<256x192xbf16> -> tensor<256x192xf4E2M1FN>, tensor<2x3x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return %hq, %hsc, %hd : tensor<256x192xf4E2M1FN>, tensor<2x3x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
}

func.func @dense(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                 %b: tensor<192x64xf4E2M1FN>, %sb: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %dd: tensor<f32>)
    -> (tensor<256x192xf4E2M1FN>, tensor<256x12xf8E4M3FN>, tensor<f32>) {
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<256x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<192x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<256x192xbf16>
  %q, %s, %d = nvfp4.quantize nvfp4 %c decode_scale %dd : tensor<f32> : tensor<256x192xbf16> -> tensor<256x192xf4E2M1FN>, tensor<256x12xf8E4M3FN>, tensor<f32>
  return %q, %s, %d : tensor<256x192xf4E2M1FN>, tensor<256x12xf8E4M3FN>, tensor<f32>
}
