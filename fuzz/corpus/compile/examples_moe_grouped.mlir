// An MoE expert layer in NVFP4: 1024 tokens routed to 8 experts (contiguous
// rows; expert g owns rows [offsets[g], offsets[g+1])), activations quantized
// with 1x16 blocks, each expert's weight with 16x16 blocks, then
// C_g = X_g * W_g^T in bf16 with alpha_g = S_dec(X) * S_dec(W_g).
//
//   nvfp4-opt --canonicalize docs/examples/moe_grouped.mlir   # fuses the swizzles
//   python3 -m nvfp4.demo                                      # runs it (GPU or CPU)

func.func @main(%x: tensor<1024x2048xbf16>, %w: tensor<8x512x2048xbf16>,
                %offsets: tensor<9xi32>) -> tensor<1024x512xbf16> {
  %xq, %xs, %xd = nvfp4.quantize nvfp4 %x
      : tensor<1024x2048xbf16> -> tensor<1024x2048xf4E2M1FN>,
        tensor<1024x128xf8E4M3FN>, tensor<f32>
  %xsw = nvfp4.swizzle_scales %xs
      : tensor<1024x128xf8E4M3FN>
      -> tensor<8x32x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %wq, %ws, %wd = nvfp4.quantize nvfp4 %w {block = array<i64: 16, 16>}
      : tensor<8x512x2048xbf16> -> tensor<8x512x2048xf4E2M1FN>,
        tensor<8x512x128xf8E4M3FN>, tensor<8xf32>
  %wsw = nvfp4.swizzle_scales %ws
      : tensor<8x512x128xf8E4M3FN>
      -> tensor<8x4x32x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
  %c = nvfp4.grouped_matmul contiguous
      a(%xq : tensor<1024x2048xf4E2M1FN>)
      a_scales(%xsw : tensor<8x32x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%wq : tensor<8x512x2048xf4E2M1FN>)
      b_scales(%wsw : tensor<8x4x32x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%offsets : tensor<9xi32>)
      a_decode_scale(%xd : tensor<f32>) b_decode_scale(%wd : tensor<8xf32>)
      -> tensor<1024x512xbf16>
  return %c : tensor<1024x512xbf16>
}
