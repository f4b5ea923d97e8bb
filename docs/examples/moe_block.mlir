// A whole mixture-of-experts block in NVFP4, from the router's choice to
// the block's output: 16 tokens, each routed to 2 of 8 experts (top-k ids
// and weights from the router), hidden size 1024, expert width 384.
//
//   pairs  = the (token, slot) pairs sorted by expert   (nvfp4.moe_route)
//   x      = each pair's token row, in that order       (nvfp4.moe_dispatch)
//   h      = swiglu(x W1_e^T)  per expert e's rows      (quantize, grouped
//   y      = h W2_e^T                                     matmuls, swiglu)
//   out[t] = sum over t's slots s of weights[t, s] * y[row of (t, s)]
//                                                        (nvfp4.moe_combine)
//
// An expert index outside [0, 8) (transformers' masked slot) drops its
// pair; moe_combine adds nothing for it, nor for a zero weight. The
// weights are quantized already (16x16 blocks, swizzled scales, one decode
// scale per expert); the activations are quantized here with a per-tensor
// amax each. On sm_90a the pipeline fuses each quantize with the GEMM
// reading it and the swiglu into gate_up's epilogue (as in
// moe_experts.mlir); the routing ops are small kernels of their own
// (a counting sort, a row gather, a weighted row sum).
//
//   nvfp4-runner --target=gpu --compile-only --dump-lowered docs/examples/moe_block.mlir
//   (python/tests/test_moe.py runs it on the CPU against its ops)

func.func @main(%hidden: tensor<16x1024xbf16>, %ids: tensor<16x2xi32>,
                %weights: tensor<16x2xbf16>,
                %w1: tensor<8x768x1024xf4E2M1FN>,
                %w1s: tensor<8x6x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %w1d: tensor<8xf32>,
                %w2: tensor<8x1024x384xf4E2M1FN>,
                %w2s: tensor<8x8x6x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                %w2d: tensor<8xf32>) -> tensor<16x1024xbf16> {
  %pairs, %rows, %offsets = nvfp4.moe_route %ids
      : tensor<16x2xi32> -> tensor<32xi32>, tensor<16x2xi32>, tensor<9xi32>
  %x = nvfp4.moe_dispatch %hidden, %pairs
      : tensor<16x1024xbf16>, tensor<32xi32> -> tensor<32x1024xbf16>
  %xq, %xs, %xd = nvfp4.quantize nvfp4 %x
      : tensor<32x1024xbf16> -> tensor<32x1024xf4E2M1FN>,
        tensor<1x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %gu = nvfp4.grouped_matmul contiguous
      a(%xq : tensor<32x1024xf4E2M1FN>)
      a_scales(%xs : tensor<1x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%w1 : tensor<8x768x1024xf4E2M1FN>)
      b_scales(%w1s : tensor<8x6x16x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%offsets : tensor<9xi32>)
      a_decode_scale(%xd : tensor<f32>) b_decode_scale(%w1d : tensor<8xf32>)
      -> tensor<32x768xbf16>
  %h = nvfp4.swiglu %gu : tensor<32x768xbf16> -> tensor<32x384xbf16>
  %hq, %hs, %hd = nvfp4.quantize nvfp4 %h
      : tensor<32x384xbf16> -> tensor<32x384xf4E2M1FN>,
        tensor<1x6x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %y = nvfp4.grouped_matmul contiguous
      a(%hq : tensor<32x384xf4E2M1FN>)
      a_scales(%hs : tensor<1x6x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      b(%w2 : tensor<8x1024x384xf4E2M1FN>)
      b_scales(%w2s : tensor<8x8x6x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
      group_offsets(%offsets : tensor<9xi32>)
      a_decode_scale(%hd : tensor<f32>) b_decode_scale(%w2d : tensor<8xf32>)
      -> tensor<32x1024xbf16>
  %out = nvfp4.moe_combine %y, %rows, %weights
      : tensor<32x1024xbf16>, tensor<16x2xi32>, tensor<16x2xbf16>
      -> tensor<16x1024xbf16>
  return %out : tensor<16x1024xbf16>
}
