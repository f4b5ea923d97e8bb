// nvfp4.fused with an output quantize (a given scale, F6) on sm_90a. By
// default (DEFAULT) the quantize runs as its own kernel after the GEMM
// (quantize-in-epilogue says why). With quantize-in-epilogue the GEMM
// kernel's epilogue computes each result (nvfp4k.epilogue: rounded to
// the quantize's input type), reduces the amax of each 16-column block
// across the lanes (shuffles xor 8, 16) and the warps holding it (shared
// memory, one named barrier per consumer warpgroup), computes each block's
// scale once (nvfp4k.store_scale) and writes the E2M1 codes
// (nvfp4k.store_fp4) with its enc_b; the [M, N] result is never
// allocated and no quantize kernel runs. After a swiglu, a pair of results
// meets in one lane (xor 8) and the block spans four warps. A decode-size
// matmul (the narrow-token kernel) runs the quantize's own kernel after it.
// On the CPU the body is inlined. What the fused kernel computes is
// checked on the GPU (the selfcheck's `fused` family: bit for bit against
// the unfused ops).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90=quantize-in-epilogue=1 --canonicalize --cse | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90 --canonicalize --cse | FileCheck %s --check-prefix=DEFAULT
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: func.func @gemm(
// CHECK-NOT:     memref<256x192
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// CHECK-NOT:     gpu.launch
// CHECK:         return
// CHECK:       gpu.module @nvfp4_sm90_gemm_0
// The decode scale, once (block 0, thread 0).
// CHECK:         arith.cmpi eq, %block_id_x, %c0 : index
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK:         nvfp4k.epilogue {{.*}} {element = bf16, row_stride = 192 : i64} : vector<2xf32> -> vector<2xf32>
// CHECK:         gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:         nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK:         nvfp4k.store_scale {{.*}} bounds(%{{.*}}, 12) total_rows(%c256) {swizzled} : i32
// CHECK:         nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK:         nvfp4k.store_fp4 {{.*}} bounds(%{{.*}}, 192) encode(%{{.*}}) : vector<2xf32>
// DEFAULT-LABEL: func.func @gemm(
// The bf16 result, the GEMM, then the quantize's kernel.
// DEFAULT:         memref<256x192xbf16>
// DEFAULT:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// DEFAULT:         gpu.launch blocks
// DEFAULT:       gpu.module @nvfp4_sm90_gemm_0
// DEFAULT-NOT:     nvfp4k.store_fp4
// CPU-LABEL:   func.func @gemm(
// CPU-NOT:       nvfp4.
// CPU:           memref.alloc() : memref<256x192xbf16>
// CPU:           return
func.func @gemm(%a: memref<256x64xf4E2M1FN>, %sa: memref<2x1x32x4x4xf8E4M3FN>, %w: memref<192x64xf4E2M1FN>, %ws: memref<2x1x32x4x4xf8E4M3FN>, %e: memref<f32>, %q: memref<256x192xf4E2M1FN>, %s: memref<2x3x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.fused {
    %y = memref.alloc() : memref<256x192xbf16>
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<256x192xbf16>) : memref<256x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>, memref<192x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>
    nvfp4.quantize nvfp4 %y encode_scale %e : memref<f32> outs(%q, %s, %d : memref<256x192xf4E2M1FN>, memref<2x3x32x4x4xf8E4M3FN>, memref<f32>) : memref<256x192xbf16>
    memref.dealloc %y : memref<256x192xbf16>
  }
  return
}

// -----

// CHECK-LABEL: func.func @swiglu(
// CHECK-NOT:     memref<256x64xf32>
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// CHECK-NOT:     gpu.launch
// CHECK:       gpu.module @nvfp4_sm90_gemm_0
// CHECK:         nvfp4k.epilogue {{.*}} {element = bf16, row_stride = 64 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, {{.*}}>} : vector<2xf32> -> vector<1xf32>
// CHECK:         gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NOT:     {swizzled}
// CHECK:         nvfp4k.store_scale {{.*}} bounds(%{{.*}}, 2) total_rows(%c256) : i32
// CHECK:         nvfp4k.store_fp4 {{.*}} bounds(%{{.*}}, 32) encode(%{{.*}}) : vector<2xf32>
func.func @swiglu(%a: memref<256x64xf4E2M1FN>, %sa: memref<2x1x32x4x4xf8E4M3FN>, %w: memref<64x64xf4E2M1FN>, %ws: memref<1x1x32x4x4xf8E4M3FN>, %dd: memref<f32>, %q: memref<256x32xf4E2M1FN>, %s: memref<256x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.fused {
    %y = memref.alloc() : memref<256x64xf32>
    %h = memref.alloc() : memref<256x32xbf16>
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<256x64xf32>) : memref<256x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
    nvfp4.swiglu %y outs(%h : memref<256x32xbf16>) : memref<256x64xf32>
    nvfp4.quantize nvfp4 %h decode_scale %dd : memref<f32> outs(%q, %s, %d : memref<256x32xf4E2M1FN>, memref<256x2xf8E4M3FN>, memref<f32>) : memref<256x32xbf16>
    memref.dealloc %y : memref<256x64xf32>
    memref.dealloc %h : memref<256x32xbf16>
  }
  return
}

// -----

// CHECK-LABEL: func.func @decode(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0
// CHECK:         gpu.launch blocks
// CHECK:         return
// CHECK:       gpu.module @nvfp4_sm90_gemv_0
// CHECK-NOT:     nvfp4k.store_fp4
// CHECK:         nvfp4k.store
func.func @decode(%a: memref<4x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %w: memref<192x64xf4E2M1FN>, %ws: memref<2x1x32x4x4xf8E4M3FN>, %e: memref<f32>, %q: memref<4x192xf4E2M1FN>, %s: memref<1x3x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.fused {
    %y = memref.alloc() : memref<4x192xbf16>
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<4x192xbf16>) : memref<4x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<192x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>
    nvfp4.quantize nvfp4 %y encode_scale %e : memref<f32> outs(%q, %s, %d : memref<4x192xf4E2M1FN>, memref<1x3x32x4x4xf8E4M3FN>, memref<f32>) : memref<4x192xbf16>
    memref.dealloc %y : memref<4x192xbf16>
  }
  return
}
