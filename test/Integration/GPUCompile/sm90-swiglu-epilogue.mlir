// A gate_up matmul and its nvfp4.swiglu through the sm_90a pipeline
// (nvfp4-fuse-matmul-epilogue): one GEMM kernel whose epilogue computes
// the activation (the wide-token kernel at M = 256, gpt-oss's parameters,
// through bf16; the narrow-token kernel at M = 8 after the quantize's own
// kernel, through f32), assembled by ptxas without spills; the exp and
// the reciprocal of the sigmoid are the spec's round-to-nearest fp32
// operations, no approximations. No swiglu kernel exists.
// Compile-only: runs in CI; what the kernels compute is checked on the GPU
// (the selfcheck's `fused` family, test/Integration/GPU).
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="format=isa" -o %t.isa.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX < %t.0.ptx
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemv_0 -o %t.1.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.1.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX < %t.1.ptx

// HOST-NOT:  swiglu
// HOST-LABEL: llvm.func @gate_up_swiglu
// The token pre-pass and the GEMM.
// HOST-COUNT-2: gpu.launch_func
// HOST-NOT:  gpu.launch_func
// HOST-LABEL: llvm.func @decode_gate_up_swiglu
// The quantize and the narrow-token GEMM.
// HOST-COUNT-2: gpu.launch_func
// HOST-NOT:  gpu.launch_func

// PTXAS: Compiling entry function 'nvfp4_sm90_{{gemm|gemv}}_0' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// PTX:       rcp.rn.f32
// PTX-NOT:   ex2.approx
// PTX-NOT:   rcp.approx
// PTX-NOT:   div.approx

func.func @gate_up_swiglu(%a: tensor<256x64xf4E2M1FN>, %sa: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                          %b: tensor<192x64xf4E2M1FN>, %sb: tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<256x96xbf16> {
  %c = nvfp4.matmul %a, %sa, %b, %sb : tensor<256x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<192x64xf4E2M1FN>, tensor<2x1x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<256x192xbf16>
  %h = nvfp4.swiglu %c {sigmoid_scale = 1.702 : f32, limit = 7.0 : f32, up_offset = 1.0 : f32} : tensor<256x192xbf16> -> tensor<256x96xbf16>
  return %h : tensor<256x96xbf16>
}

func.func @decode_gate_up_swiglu(%x: tensor<8x4096xbf16>, %w: tensor<3072x4096xf4E2M1FN>,
                                 %ws: tensor<24x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, %wd: tensor<f32>) -> tensor<8x1536xbf16> {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<8x4096xbf16> -> tensor<8x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %y = nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : tensor<f32>) b_decode_scale(%wd : tensor<f32>) : tensor<8x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<3072x4096xf4E2M1FN>, tensor<24x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<8x3072xf32>
  %h = nvfp4.swiglu %y : tensor<8x3072xf32> -> tensor<8x1536xbf16>
  return %h : tensor<8x1536xbf16>
}
