// The sm_90a pipeline down to PTX and through ptxas: every GEMM kernel
// assembles with no spills, without ptxas serializing the wgmmas or
// waiting for them on its own (its C75xx diagnostics: the accumulators are
// read only through nvfp4k.wgmma.wait). Compile-only: runs in CI.
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90 | FileCheck %s
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="format=isa" -o %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_0 -o %t.0.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.0.ptx -o %t.0.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_1 -o %t.1.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.1.ptx -o %t.1.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_2 -o %t.2.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.2.ptx -o %t.2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_3 -o %t.3.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.3.ptx -o %t.3.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: FileCheck %s --check-prefix=PTX < %t.1.ptx

// CHECK-LABEL: llvm.func @moe
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @nvfp4_sm90_gemm_1::@nvfp4_sm90_gemm_1
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @nvfp4_sm90_gemm_2::@nvfp4_sm90_gemm_2
// CHECK: gpu.binary @nvfp4_sm90_gemm_0 [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}bin = "\7FELF
// CHECK: gpu.binary @nvfp4_sm90_gemm_1
// CHECK: gpu.binary @nvfp4_sm90_gemm_2

// PTXAS: Compiling entry function 'nvfp4_sm90_gemm_{{[0-3]}}' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// A kernel: TMA of the tokens and the weight bytes and a bulk copy of the
// scales into the ring, shared loads of the fragments' codes and scales,
// e4m3 -> f16 conversions, the register-A wgmma of each tile width (the
// first k16 step with the scale-d predicate of the fp32 promotion, the
// others with the step's descriptor offset added to its low word), the
// waits (0 with the accumulators tied through them), the shuffle epilogue.
// PTX: .extern .shared .align 1024 .b8 nvfp4_sm90_gemm_1_smem[];
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX-DAG: ld.shared.v4.b32
// PTX-DAG: ld.shared.v2.b32
// PTX-DAG: prmt.b32
// PTX-DAG: cvt.rn.f16x2.e4m3x2
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{.*}}, p, 1, 1, 0;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16 {{.*}}, p, 1, 1, 0;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0;
// PTX-DAG: add.u32 lo, lo, 2;
// PTX-DAG: add.u32 lo, lo, 1030;
// PTX-DAG: wgmma.commit_group.sync.aligned;
// PTX-DAG: wgmma.wait_group.sync.aligned 1;
// PTX-DAG: wgmma.wait_group.sync.aligned 0;
// PTX-DAG: setp.ne.b32 p, %r{{[0-9]+}}, 0;
// PTX-DAG: shfl.sync.bfly.b32
func.func @moe(%a: tensor<300x7168xf4E2M1FN>, %sa: tensor<3x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
               %b: tensor<4x512x7168xf4E2M1FN>, %sb: tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
               %off: tensor<5xi32>, %db: tensor<4xf32>,
               %am: tensor<4x640x7168xf4E2M1FN>, %sam: tensor<4x5x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
               %mm: tensor<4xi32>,
               %b0: tensor<256x7168xf4E2M1FN>, %sb0: tensor<2x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>)
    -> (tensor<300x512xbf16>, tensor<4x640x512xf16>, tensor<300x256xf32>) {
  %c = nvfp4.grouped_matmul contiguous a(%a : tensor<300x7168xf4E2M1FN>) a_scales(%sa : tensor<3x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<4x512x7168xf4E2M1FN>) b_scales(%sb : tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) group_offsets(%off : tensor<5xi32>) b_decode_scale(%db : tensor<4xf32>) -> tensor<300x512xbf16>
  %m = nvfp4.grouped_matmul masked a(%am : tensor<4x640x7168xf4E2M1FN>) a_scales(%sam : tensor<4x5x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%b : tensor<4x512x7168xf4E2M1FN>) b_scales(%sb : tensor<4x4x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%mm : tensor<4xi32>) -> tensor<4x640x512xf16>
  %d = nvfp4.matmul %a, %sa, %b0, %sb0 : tensor<300x7168xf4E2M1FN>, tensor<3x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<256x7168xf4E2M1FN>, tensor<2x112x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<300x256xf32>
  return %c, %m, %d : tensor<300x512xbf16>, tensor<4x640x512xf16>, tensor<300x256xf32>
}

// Row-scaled A and B: the epilogue's alpha per stored pair (kernel 3).
func.func @row_scaled(%a: tensor<2048x256xf4E2M1FN>, %sa: tensor<16x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %b: tensor<200x256xf4E2M1FN>, %sb: tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                      %da: tensor<2048xf32>, %db: tensor<200xf32>) -> tensor<2048x200xbf16> {
  %d = nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : tensor<2048xf32>) b_decode_scale(%db : tensor<200xf32>) : tensor<2048x256xf4E2M1FN>, tensor<16x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<200x256xf4E2M1FN>, tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<2048x200xbf16>
  return %d : tensor<2048x200xbf16>
}
