// An MoE expert layer in NVFP4: tokens routed to 4 experts (contiguous rows,
// group g owns rows [offsets[g], offsets[g+1])), each expert's weight
// quantized with 16x16 blocks, C_g = X_g * W_g^T in bf16.
//
//   nvfp4-opt --canonicalize docs/examples/moe_grouped.mlir
//
// Canonicalization folds the swizzles into the quantizes (one pass over the
// scales instead of two).

func.func @moe(%x: tensor<512x1024xbf16>, %w: tensor<4x256x1024xbf16>,
               %offsets: tensor<5xi32>) -> tensor<512x256xbf16> {
  %xq, %xs, %xd = nvfp4.quantize nvfp4 %x
      : tensor<512x1024xbf16> -> tensor<512x1024xf4E2M1FN>,
        tensor<512x64xf8E4M3FN>, tensor<f32>
  %xsw = nvfp4.swizzle_scales %xs
      : tensor<512x64xf8E4M3FN>
      -> tensor<4x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %wq, %ws, %wd = nvfp4.quantize nvfp4 %w {block = array<i64: 16, 16>}
      : tensor<4x256x1024xbf16> -> tensor<4x256x1024xf4E2M1FN>,
        tensor<4x256x64xf8E4M3FN>, tensor<4xf32>
  %wsw = nvfp4.swizzle_scales %ws
      : tensor<4x256x64xf8E4M3FN>
      -> tensor<4x2x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %c = nvfp4.grouped_matmul contiguous
      a(%xq : tensor<512x1024xf4E2M1FN>)
      a_scales(%xsw : tensor<4x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%wq : tensor<4x256x1024xf4E2M1FN>)
      b_scales(%wsw : tensor<4x2x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%offsets : tensor<5xi32>)
      a_decode_scale(%xd : tensor<f32>) b_decode_scale(%wd : tensor<4xf32>)
      -> tensor<512x256xbf16>
  return %c : tensor<512x256xbf16>
}
