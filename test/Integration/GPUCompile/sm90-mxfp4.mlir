// MXFP4 on the sm_90a kernel with bf16-mma=true, down to PTX and through
// ptxas: weights of weight-only matmuls on bf16 activations (gpt-oss's
// experts, K = 2880: the last 128-K stage half full) and an MXFP4 x MXFP4
// matmul (its tokens dequantized to bf16 by the pre-pass: e2m1 times the
// E8M0 scale in f32, 2^-127 for e = 0, NaN for 255). One 512-byte E8M0
// scale unit per stage, each scale the bf16 pattern e << 7 (0x0040 for
// e = 0, 0x7FC0 for e = 255) times the exact e2m1, the MMA
// m64nNk16.f32.bf16.bf16 (bf16-mma is the default). With bf16-mma=false
// they run on the portable kernel (E8M0 scales exceed f16's range). Compile-only (CI);
// test/Integration/GPU/{weight-only,matmul,grouped}.test run them.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="bf16-mma=true format=isa" -o %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_1 -o %t.1.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.1.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_2 -o %t.2.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.2.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name w4a4_kernel -o %t.pre.ptx
// RUN: %ptxas -arch=sm_90a -O3 %t.pre.ptx -o %t.pre.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.0.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.1.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.2.ptx
// RUN: FileCheck %s --check-prefix=PRE < %t.pre.ptx
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="bf16-mma=false" | FileCheck %s --check-prefix=PORTABLE

// PTXAS: Compiling entry function 'nvfp4_sm90_gemm_{{[012]}}' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTX: shl.b16 {{.*}}, 7;
// PTX: selp.b16 {{.*}}, 0x0040,
// PTX: selp.b16 {{.*}}, 0x7FC0,
// PTX: mov.b32 {{.*}}, 2122350208;
// PTX: mul.rn.bf16x2
// PTX: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k16.f32.bf16.bf16
// PTX-NOT: k16.f32.f16.f16

// The pre-pass: E8M0 scales decoded in f32 (2^-127 for e = 0, NaN for 255),
// the products stored as bf16 pairs.
// PRE-DAG: 0f00400000
// PRE-DAG: 0f7FC00000
// PRE-DAG: cvt.rn.bf16x2.f32

// PORTABLE-NOT: nvfp4_sm90_gemm
// PORTABLE: gpu.binary @dense_kernel
// PORTABLE: gpu.binary @experts_kernel
// PORTABLE: gpu.binary @w4a4_kernel

func.func @dense(%x: tensor<8x2880xbf16>, %w: tensor<5760x2880xf4E2M1FN>,
                 %sw: tensor<45x23x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) -> tensor<8x5760xbf16> {
  %y = nvfp4.matmul %x, %w, %sw : tensor<8x2880xbf16>, tensor<5760x2880xf4E2M1FN>, tensor<45x23x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<8x5760xbf16>
  return %y : tensor<8x5760xbf16>
}

func.func @experts(%x: tensor<256x2880xbf16>, %w: tensor<8x5760x2880xf4E2M1FN>,
                   %sw: tensor<8x45x23x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>,
                   %off: tensor<9xi32>) -> tensor<256x5760xbf16> {
  %y = nvfp4.grouped_matmul contiguous a(%x : tensor<256x2880xbf16>) b(%w : tensor<8x5760x2880xf4E2M1FN>) b_scales(%sw : tensor<8x45x23x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<9xi32>) -> tensor<256x5760xbf16>
  return %y : tensor<256x5760xbf16>
}

func.func @w4a4(%a: tensor<256x2880xf4E2M1FN>, %sa: tensor<2x23x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>,
                %w: tensor<2880x2880xf4E2M1FN>, %sw: tensor<23x23x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>) -> tensor<256x2880xbf16> {
  %y = nvfp4.matmul %a, %sa, %w, %sw : tensor<256x2880xf4E2M1FN>, tensor<2x23x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, tensor<2880x2880xf4E2M1FN>, tensor<23x23x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<256x2880xbf16>
  return %y : tensor<256x2880xbf16>
}
