// The sm_100a pipeline down to PTX and cubins, verified without the chip:
// ptxas -arch=sm_100a assembles every GEMM kernel with no spills, and the
// independent decoder of python/nvfp4_testing/ptx_decode.py (written from the PTX
// ISA tables) reads back every instruction descriptor, shared-memory
// descriptor and TMEM address the compiler emitted and finds no violation.
// None of this has run on Blackwell hardware.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm100 | FileCheck %s
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm100="format=isa" -o %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm100_gemm_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_100a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %PYTHON -m nvfp4_testing.ptx_decode %t.0.ptx | FileCheck %s --check-prefix=DECODE0 --implicit-check-not="violations=['"
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm100_gemm_1 -o %t.1.ptx
// RUN: %ptxas -arch=sm_100a -O3 -v %t.1.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %PYTHON -m nvfp4_testing.ptx_decode %t.1.ptx | FileCheck %s --check-prefix=DECODE1 --implicit-check-not="violations=['"
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm100_gemm_2 -o %t.2.ptx
// RUN: %ptxas -arch=sm_100a -O3 -v %t.2.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %PYTHON -m nvfp4_testing.ptx_decode %t.2.ptx | FileCheck %s --check-prefix=DECODE2 --implicit-check-not="violations=['"
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm100_gemm_3 -o %t.3.ptx
// RUN: %ptxas -arch=sm_100a -O3 -v %t.3.ptx -o %t.3.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %PYTHON -m nvfp4_testing.ptx_decode %t.3.ptx | FileCheck %s --check-prefix=DECODE3 --implicit-check-not="violations=['"
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm100_gemm_4 -o %t.4.ptx
// RUN: %ptxas -arch=sm_100a -O3 -v %t.4.ptx -o %t.4.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %PYTHON -m nvfp4_testing.ptx_decode %t.4.ptx | FileCheck %s --check-prefix=DECODE4 --implicit-check-not="violations=['"
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm100_gemm_5 -o %t.5.ptx
// RUN: %ptxas -arch=sm_100a -O3 -v %t.5.ptx -o %t.5.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %PYTHON -m nvfp4_testing.ptx_decode %t.5.ptx | FileCheck %s --check-prefix=DECODE5 --implicit-check-not="violations=['"
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --prefix quantize -o %t.q.ptx
// RUN: FileCheck %s --check-prefix=QUANT < %t.q.ptx

// CHECK-LABEL: llvm.func @variants
// CHECK-COUNT-5: gpu.launch_func
// CHECK: gpu.binary @nvfp4_sm100_gemm_0 [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, {{.*}}bin = "\7FELF

// PTXAS: Compiling entry function 'nvfp4_sm100_gemm_{{[0-9]}}' for 'sm_100a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// Contiguous, 128-token tiles.
// DECODE0: tcgen05.alloc nCols=512 violations=[]
// DECODE0: tcgen05.cp .32x128b.warpx4 {{.*}} s_desc start = 0 mod 1024 LBO=0 SBO=128 version=1 swizzle=none violations=[]
// DECODE0: tcgen05.cp .32x128b.warpx4 {{.*}} s_desc start = 512 mod 1024 LBO=0 SBO=128 version=1 swizzle=none violations=[]
// DECODE0: tcgen05.mma kind::mxf4nvf4 block16 cta_group::1
// DECODE0-NEXT: idesc {{.*}} = 0x8200480: M=128 N=128 a=E2M1 b=E2M1 scale=UE4M3 sfa_id=0 sfb_id=0 K=64 {{.*}} violations=[]
// DECODE0-NEXT: a_desc {{.*}} LBO=16 SBO=1024 version=1 base_off=0 {{.*}} swizzle=128B violations=[]
// DECODE0-NEXT: b_desc {{.*}} LBO=16 SBO=1024 version=1 base_off=0 {{.*}} swizzle=128B violations=[]
// DECODE0: tcgen05.ld .32x32b.x32
// DECODE0: tcgen05.dealloc nCols=512 violations=[]
// DECODE0: kernel checks: OK
// Masked, 64-token tiles.
// DECODE1: idesc {{.*}} = 0x8100480: M=128 N=64 {{.*}} violations=[]
// DECODE1: kernel checks: OK
// Dense, 256-token tiles, K = 96.
// DECODE2: idesc {{.*}} = 0x8400480: M=128 N=256 {{.*}} violations=[]
// DECODE2: kernel checks: OK
// MXFP4: block32, scale ids 0 and 2.
// DECODE3: tcgen05.mma kind::mxf4 block32 cta_group::1
// DECODE3-NEXT: idesc {{.*}} = 0x8a00480: M=128 N=128 a=E2M1 b=E2M1 scale=UE8M0 sfa_id=0 sfb_id=0 {{.*}} violations=[]
// DECODE3: idesc {{.*}} = 0x48a004a0: M=128 N=128 a=E2M1 b=E2M1 scale=UE8M0 sfa_id=2 sfb_id=2 {{.*}} violations=[]
// DECODE3: kernel checks: OK
// Independent groups (one empty).
// DECODE4: idesc {{.*}} = 0x8100480: M=128 N=64 {{.*}} violations=[]
// DECODE4: kernel checks: OK

// Row-scaled A and B (alpha per output from their decode scales).
// DECODE5: idesc {{.*}} = 0x8400480: M=128 N=256 {{.*}} violations=[]
// DECODE5: kernel checks: OK

// Quantize: round-to-nearest codes from the hardware conversion.
// QUANT: .target sm_100a
// QUANT: cvt.rn.satfinite.e2m1x2.f32
func.func @variants(%a: tensor<300x7168xf4E2M1FN>, %sa: tensor<3x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                    %b: tensor<4x512x7168xf4E2M1FN>, %sb: tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                    %off: tensor<5xi32>, %db: tensor<4xf32>,
                    %am: tensor<4x40x7168xf4E2M1FN>, %sam: tensor<4x1x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                    %mm: tensor<4xi32>, %acc: tensor<4x40x512xf16>,
                    %a0: tensor<2048x96xf4E2M1FN>, %sa0: tensor<16x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                    %b0: tensor<200x96xf4E2M1FN>, %sb0: tensor<2x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                    %xa: tensor<256x512xf4E2M1FN>, %xsa: tensor<2x4x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>,
                    %xb: tensor<384x512xf4E2M1FN>, %xsb: tensor<3x4x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>,
                    %ia0: tensor<100x512xf4E2M1FN>, %isa0: tensor<1x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                    %ia1: tensor<0x512xf4E2M1FN>, %isa1: tensor<0x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                    %ib: tensor<256x512xf4E2M1FN>, %isb: tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
    -> (tensor<300x512xbf16>, tensor<4x40x512xf16>, tensor<2048x200xf32>, tensor<256x384xbf16>, tensor<100x256xf32>, tensor<0x256xf32>) {
  // contiguous, 128-token tiles (75 rows per group)
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<300x7168xf4E2M1FN>) a_scales(%sa : tensor<3x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<4x512x7168xf4E2M1FN>) b_scales(%sb : tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<5xi32>) b_decode_scale(%db : tensor<4xf32>) -> tensor<300x512xbf16>
  // masked, 64-token tiles, accumulate
  %m = nvfp4.grouped_matmul masked a(%am : tensor<4x40x7168xf4E2M1FN>) a_scales(%sam : tensor<4x1x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<4x512x7168xf4E2M1FN>) b_scales(%sb : tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%mm : tensor<4xi32>) acc(%acc : tensor<4x40x512xf16>) {beta = 0.5 : f32} -> tensor<4x40x512xf16>
  // dense, 256-token tiles, K = 96 (one partial stage)
  %d = nvfp4.matmul %a0, %sa0, %b0, %sb0 : tensor<2048x96xf4E2M1FN>, tensor<16x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<200x96xf4E2M1FN>, tensor<2x2x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<2048x200xf32>
  // MXFP4
  %x = nvfp4.matmul %xa, %xsa, %xb, %xsb : tensor<256x512xf4E2M1FN>, tensor<2x4x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4>, tensor<384x512xf4E2M1FN>, tensor<3x4x32x4x4xf8E8M0FNU, #nvfp4.swizzled_128x4> -> tensor<256x384xbf16>
  // independent, an empty group
  %i:2 = nvfp4.grouped_matmul independent a(%ia0, %ia1 : tensor<100x512xf4E2M1FN>, tensor<0x512xf4E2M1FN>) a_scales(%isa0, %isa1 : tensor<1x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<0x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%ib, %ib : tensor<256x512xf4E2M1FN>, tensor<256x512xf4E2M1FN>) b_scales(%isb, %isb : tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<100x256xf32>, tensor<0x256xf32>
  return %c, %m, %d, %x, %i#0, %i#1 : tensor<300x512xbf16>, tensor<4x40x512xf16>, tensor<2048x200xf32>, tensor<256x384xbf16>, tensor<100x256xf32>, tensor<0x256xf32>
}

func.func @row_scaled(%a: tensor<2048x256xf4E2M1FN>, %sa: tensor<16x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %b: tensor<200x256xf4E2M1FN>, %sb: tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %da: tensor<2048xf32>, %db: tensor<200xf32>) -> tensor<2048x200xbf16> {
  %d = nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : tensor<2048xf32>) b_decode_scale(%db : tensor<200xf32>) : tensor<2048x256xf4E2M1FN>, tensor<16x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<200x256xf4E2M1FN>, tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<2048x200xbf16>
  return %d : tensor<2048x200xbf16>
}

func.func @quantize(%x: tensor<256x512xbf16>) -> (tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) {
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  // TransformerEngine's 4over6 after the bf16-rounded Hadamard transform.
  %q2, %s2, %d2 = nvfp4.quantize nvfp4 %x {hadamard, scale_rule = #nvfp4.scale_rule<four_over_six>} : tensor<256x512xbf16> -> tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<f32>
  return %q, %s, %q2, %s2 : tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<256x512xf4E2M1FN>, tensor<2x8x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>
}
