// The sm_90a kernel with the bf16 MMA (weight-only matmuls on bf16
// activations, bf16-mma=true) down to PTX and through ptxas: a dense layer
// at decode size and MoE experts, each kernel assembled with no spills and
// without ptxas serializing the wgmmas (C75xx). The fragments are
// mul.rn.bf16x2 by 2^126 (0x7E80 in both lanes) and by the scale, the MMA
// m64nNk16.f32.bf16.bf16. Compile-only (CI); test/Integration/GPU/weight-only.test runs it.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="bf16-mma=true format=isa" -o %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_1 -o %t.1.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.1.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: FileCheck %s --check-prefix=PTX < %t.0.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.1.ptx

// PTXAS: Compiling entry function 'nvfp4_sm90_gemm_{{[01]}}' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTX: mov.b32 {{.*}}, 2122350208;
// PTX: mul.rn.bf16x2
// PTX: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k16.f32.bf16.bf16
// PTX-NOT: k16.f32.f16.f16

func.func @dense(%x: tensor<8x4096xbf16>, %w: tensor<4096x4096xf4E2M1FN>,
                 %sw: tensor<32x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                 %d: tensor<f32>) -> tensor<8x4096xbf16> {
  %y = nvfp4.matmul %x, %w, %sw b_decode_scale(%d : tensor<f32>) : tensor<8x4096xbf16>, tensor<4096x4096xf4E2M1FN>, tensor<32x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<8x4096xbf16>
  return %y : tensor<8x4096xbf16>
}

func.func @experts(%x: tensor<256x2048xbf16>, %w: tensor<8x1536x2048xf4E2M1FN>,
                   %sw: tensor<8x12x32x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                   %off: tensor<9xi32>, %d: tensor<8xf32>) -> tensor<256x1536xbf16> {
  %y = nvfp4.grouped_matmul contiguous a(%x : tensor<256x2048xbf16>) b(%w : tensor<8x1536x2048xf4E2M1FN>) b_scales(%sw : tensor<8x12x32x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<9xi32>) b_decode_scale(%d : tensor<8xf32>) -> tensor<256x1536xbf16>
  return %y : tensor<256x1536xbf16>
}
