// The sm_90a kernel under a cluster split (cluster=4: a decode layer of 32
// weight tiles, each tile's 32 K stages split between the 4 CTAs of a
// cluster, 128 CTAs): assembled by ptxas without spills; each CTA stores
// the shares of the other ranks' slices into their shared memory
// (mapa, st.shared::cluster, 16 bytes at a time), passes one cluster
// barrier (arrive with release, wait with acquire: the defaults) and sums
// its own slice; every thread arrives (relaxed) at the barrier's first
// phase at the start, which the stores wait for (every CTA runs); the
// producers and the split's second pair pass both phases.
// Compile-only: runs in CI; what the kernel computes is checked on the GPU
// (the decode selfcheck's cluster configurations, test/Integration/GPU).
// REQUIRES: ptxas
// RUN: env CUDA_ROOT=%cuda_root nvfp4-opt %s --nvfp4-lower-to-sm90="gemv=off format=isa cluster=4" -o %t.isa.mlir
// RUN: %PYTHON -m nvfp4_testing.gpu_binary %t.isa.mlir --name nvfp4_sm90_gemm_0 -o %t.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C75
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// PTXAS: Compiling entry function 'nvfp4_sm90_gemm_0' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// PTX:       .maxntid 640, 1, 1
// PTX:       barrier.cluster.arrive.relaxed;
// PTX:       mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// PTX:       mapa.shared::cluster.u64
// PTX:       wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16
// PTX:       barrier.cluster.wait;
// PTX:       st.shared::cluster.v4.b32
// PTX:       barrier.cluster.arrive;
// PTX-NEXT:  barrier.cluster.wait;
// PTX:       ld.shared.v4.b32
// PTX:       barrier.cluster.wait;
// PTX-NEXT:  barrier.cluster.arrive;

func.func @decode(%a: tensor<16x4096xf4E2M1FN>, %sa: tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>,
                  %b: tensor<4096x4096xf4E2M1FN>, %sb: tensor<32x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>) -> tensor<16x4096xbf16> {
  %d = nvfp4.matmul %a, %sa, %b, %sb : tensor<16x4096xf4E2M1FN>, tensor<1x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<4096x4096xf4E2M1FN>, tensor<32x64x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4> -> tensor<16x4096xbf16>
  return %d : tensor<16x4096xbf16>
}
