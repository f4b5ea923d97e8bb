// The experts of an MoE block in NVFP4, on tokens already sorted by expert
// (the router's permutation and the weighted combine are the caller's:
// nvfp4.nn.MoEExperts does them around this computation): expert g owns
// rows [offsets[g], offsets[g+1]) of x. The gate_up projection (weight
// rows interleaving gate and up rows), its SwiGLU, the quantization of the
// activation and the down projection, each with a per-expert bias:
//
//   h = swiglu(x W1_g^T + b1_g)        (the product rounded to bf16 first)
//   y = h W2_g^T + b2_g
//
// The weights are quantized already (16x16 blocks, swizzled scales, one
// decode scale per expert); the activations are quantized here with a
// per-tensor amax each. On sm_90a the pipeline groups each quantize with
// the GEMM reading it and the swiglu with the GEMM producing its input
// (nvfp4-fuse-quantize-matmul, nvfp4-fuse-matmul-epilogue): the swiglu and
// both biases run in the GEMM epilogues, and neither [S, 2I] nor its
// activation before quantization leaves a kernel except as the next
// GEMM's input. With a calibrated scale for the activation's quantize (an
// `encode_scale` operand: a checkpoint's input_global_scale) that
// quantize is gate_up's output quantize instead (docs/spec.md F6), which
// the GEMM's epilogue computes under the pipeline option
// quantize-in-epilogue (by default its own kernel runs after the GEMM).
//
//   nvfp4-runner --target=gpu --compile-only --dump-lowered docs/examples/moe_experts.mlir
//   (python/tests/test_activation.py runs it on the CPU against its ops)

func.func @main(%x: tensor<256x1024xbf16>,
                %w1: tensor<8x768x1024xf4E2M1FN>,
                %w1s: tensor<8x6x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %w1d: tensor<8xf32>, %b1: tensor<8x768xbf16>,
                %w2: tensor<8x1024x384xf4E2M1FN>,
                %w2s: tensor<8x8x6x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %w2d: tensor<8xf32>, %b2: tensor<8x1024xbf16>,
                %offsets: tensor<9xi32>) -> tensor<256x1024xbf16> {
  %xq, %xs, %xd = nvfp4.quantize nvfp4 %x
      : tensor<256x1024xbf16> -> tensor<256x1024xf4E2M1FN>,
        tensor<2x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %gu = nvfp4.grouped_matmul contiguous
      a(%xq : tensor<256x1024xf4E2M1FN>)
      a_scales(%xs : tensor<2x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%w1 : tensor<8x768x1024xf4E2M1FN>)
      b_scales(%w1s : tensor<8x6x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%offsets : tensor<9xi32>)
      a_decode_scale(%xd : tensor<f32>) b_decode_scale(%w1d : tensor<8xf32>)
      bias(%b1 : tensor<8x768xbf16>)
      -> tensor<256x768xbf16>
  %h = nvfp4.swiglu %gu : tensor<256x768xbf16> -> tensor<256x384xbf16>
  %hq, %hs, %hd = nvfp4.quantize nvfp4 %h
      : tensor<256x384xbf16> -> tensor<256x384xf4E2M1FN>,
        tensor<2x6x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %y = nvfp4.grouped_matmul contiguous
      a(%hq : tensor<256x384xf4E2M1FN>)
      a_scales(%hs : tensor<2x6x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%w2 : tensor<8x1024x384xf4E2M1FN>)
      b_scales(%w2s : tensor<8x8x6x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%offsets : tensor<9xi32>)
      a_decode_scale(%hd : tensor<f32>) b_decode_scale(%w2d : tensor<8xf32>)
      bias(%b2 : tensor<8x1024xbf16>)
      -> tensor<256x1024xbf16>
  return %y : tensor<256x1024xbf16>
}
