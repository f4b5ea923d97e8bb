// The sm_90a kernel with its K stages split between two consumer pairs
// (k-split: decode-sized token tiles on one CTA per SM, here 112 weight
// tiles of 32 stages): five warpgroups of 640 threads at the launch's 96
// registers and no setmaxnreg, assembled by ptxas without spills with the
// token sources of its narrow tiles: FP4 tokens converted in the kernel,
// and (tokens=in-kernel) the activations quantized in the kernel (the
// f16 pre-pass's tiles are wider), and on the bf16 MMA of a weight-only
// layer given 16-token tiles. The hand-over: pair 1 stores its sums and arrives on named
// barrier 2, pair 0 waits there and frees the buffer on barrier 3.
// Compile-only: runs in CI; what the split kernel computes is checked on
// the GPU (the decode selfcheck's configurations, test/Integration/GPU).
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="gemv=off format=isa" -o %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: FileCheck %s --check-prefix=PTX < %t.0.ptx
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="gemv=off format=isa tokens=in-kernel" -o %t.q.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.q.mlir --name nvfp4_sm90_gemm_1 -o %t.q.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.q.ptx -o %t.q.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: FileCheck %s --check-prefix=PTX < %t.q.ptx
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="gemv=off format=isa token-tile=16" -o %t.bf16.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.bf16.mlir --name nvfp4_sm90_gemm_2 -o %t.bf16.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.bf16.ptx -o %t.bf16.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.ptx
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="gemv=off format=isa k-split=1" -o %t.one.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.one.mlir --name nvfp4_sm90_gemm_0 -o %t.one.ptx
// RUN: FileCheck %s --check-prefix=ONE < %t.one.ptx
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="gemv=off format=isa stages=2" -o %t.two.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.two.mlir --name nvfp4_sm90_gemm_0 -o %t.two.ptx
// RUN: FileCheck %s --check-prefix=ONE < %t.two.ptx
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="gemv=off format=isa stages=3" -o %t.three.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.three.mlir --name nvfp4_sm90_gemm_0 -o %t.three.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.three.ptx

// PTXAS: Compiling entry function 'nvfp4_sm90_gemm_{{[0-2]}}' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// PTX:       .maxntid 640, 1, 1
// PTX-NOT:   setmaxnreg
// PTX:       wgmma.mma_async.sync.aligned.m64n{{8|16}}k16.f32.f16.f16
// PTX:       bar.sync 3, 512;
// PTX:       membar.cta;
// PTX-NEXT:  mov.b32 %r[[FULL:[0-9]+]], 2;
// PTX:       bar.arrive %r[[FULL]],
// PTX:       bar.sync 2, 512;
// PTX:       membar.cta;
// PTX-NEXT:  mov.b32 %r[[FREE:[0-9]+]], 3;
// PTX:       bar.arrive %r[[FREE]],
// PTX-NOT:   setmaxnreg

// The bf16 MMA (weight-only, bf16 activations) at a 16-token tile splits
// too, within the 96 registers.
// BF16:      .maxntid 640, 1, 1
// BF16:      wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16

// k-split=1: the kernel of one consumer pair, 384 threads; also what a
// two-stage ring gets (stages=2): a split pair waits for its stage still
// holding the one two before it, which shares the slot (the H200 hung on
// it, 2026-11-27); three stages split.
// ONE:       .maxntid 384, 1, 1
// ONE:       setmaxnreg.dec.sync.aligned.u32
// ONE-NOT:   bar.arrive

func.func @decode(%a: tensor<16x4096xf4E2M1FN>, %sa: tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %b: tensor<14336x4096xf4E2M1FN>, %sb: tensor<112x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<16x14336xbf16> {
  %d = nvfp4.matmul %a, %sa, %b, %sb : tensor<16x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<14336x4096xf4E2M1FN>, tensor<112x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<16x14336xbf16>
  return %d : tensor<16x14336xbf16>
}

// A linear layer: the quantize of its bf16 activations fused with the
// matmul (with tokens=in-kernel, in the GEMM's producer warpgroup).
func.func @linear(%x: tensor<4x4096xbf16>, %b: tensor<14336x4096xf4E2M1FN>, %sb: tensor<112x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<4x14336xbf16> {
  %q, %s, %dq = nvfp4.quantize nvfp4 %x : tensor<4x4096xbf16> -> tensor<4x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  %d = nvfp4.matmul %q, %s, %b, %sb a_decode_scale(%dq : tensor<f32>) : tensor<4x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<14336x4096xf4E2M1FN>, tensor<112x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<4x14336xbf16>
  return %d : tensor<4x14336xbf16>
}

// A weight-only layer: bf16 activations, the bf16 MMA (kernel 2).
func.func @weight_only(%x: tensor<8x4096xbf16>, %w: tensor<14336x4096xf4E2M1FN>,
                       %sw: tensor<112x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                       %d: tensor<f32>) -> tensor<8x14336xbf16> {
  %y = nvfp4.matmul %x, %w, %sw b_decode_scale(%d : tensor<f32>) : tensor<8x4096xbf16>, tensor<14336x4096xf4E2M1FN>, tensor<112x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<8x14336xbf16>
  return %y : tensor<8x14336xbf16>
}
