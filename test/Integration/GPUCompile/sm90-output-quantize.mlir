// The MoE experts' gate_up matmul, its swiglu and the quantize of the
// activation with a calibrated scale (the down projection's FP4 tokens),
// through the sm_90a pipeline with quantize-in-epilogue: one GEMM kernel whose epilogue writes the E2M1 codes, the swizzled E4M3 block scales
// and the decode scale, assembled by ptxas without spills; the block
// amaxes meet through shared memory behind named barriers 4 and 5 (one per
// consumer warpgroup). No quantize or swiglu kernel exists, and no
// [M, N] or [M, N/2] intermediate is allocated. A dense matmul with the
// same output quantize (no swiglu) likewise.
// Compile-only: runs in CI; what the kernel computes is checked on the GPU
// (the selfcheck's `fused` family, test/Integration/GPU).
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="format=isa quantize-in-epilogue=1" -o %t.isa.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX < %t.0.ptx
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_1 -o %t.1.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.1.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX < %t.1.ptx

// HOST-LABEL: llvm.func @experts_gate_up
// The activations' quantize (its amax, then its codes) and the GEMM on the
// FP4 tokens; nothing after it.
// HOST-COUNT-3: gpu.launch_func
// HOST-NOT:  gpu.launch_func
// HOST-LABEL: llvm.func @dense
// The token pre-pass and the GEMM.
// HOST-COUNT-2: gpu.launch_func
// HOST-NOT:  gpu.launch_func

// PTXAS: Compiling entry function 'nvfp4_sm90_gemm_{{[01]}}' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// PTX:       bar.sync
// PTX:       shfl.sync.bfly.b32 {{.*}}, 8, 31
// PTX:       shfl.sync.bfly.b32 {{.*}}, 16, 31
// PTX:       st.global.b8

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
