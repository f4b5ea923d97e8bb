// nvfp4.fused holding a matmul and the nvfp4.swiglu of its output, on
// sm_90a: the GEMM kernel's epilogue computes the activation of each
// gate/up column pair (its stores carry #nvfp4k.swiglu, with the matmul's
// output type as the intermediate rounding) and writes the [M, N/2]
// result; the [M, N] intermediate is never allocated and no swiglu kernel
// runs. The narrow-token kernel (gemv) trades the pair's values between
// lanes 4 apart. A fused quantize the kernel does not take (by default at
// decode sizes) runs first, out of the fused op. Masked rows past
// masked_m hold the activation of 0 (a fill of the [G, maxM, N/2]
// output). On the CPU the body is inlined. What the fused kernels compute
// is checked on the GPU (the selfcheck's `fused` family: bit for bit
// against the unfused ops).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90 --canonicalize --cse | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90=gemv=off --canonicalize --cse | FileCheck %s --check-prefix=OFF
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: func.func @gemm(
// CHECK-NOT:     memref<256x192
// The f16 token pre-pass, then the GEMM; nothing after it.
// CHECK:         gpu.launch blocks
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// CHECK-NOT:     gpu.launch
// CHECK:         return
// CHECK:       gpu.module @nvfp4_sm90_gemm_0
// CHECK:         gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:         nvfp4k.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] bounds(%{{.*}}, %c192) alpha(%{{.*}}) {element = f32, row_stride = 192 : i64, swiglu = #nvfp4k.swiglu<intermediate = bf16, sigmoid_scale = 1.000000e+00 : f32, limit = 7.000000e+00 : f32, up_offset = 0.000000e+00 : f32>} : vector<2xf32>
// CPU-LABEL:   func.func @gemm(
// CPU-NOT:       nvfp4.
// CPU:           memref.alloc() : memref<256x192xbf16>
// CPU:           return
func.func @gemm(%a: memref<256x64xf4E2M1FN>, %sa: memref<2x1x32x4x4xf8E4M3FN>, %w: memref<192x64xf4E2M1FN>, %ws: memref<2x1x32x4x4xf8E4M3FN>, %h: memref<256x96xf32>) {
  nvfp4.fused {
    %y = memref.alloc() : memref<256x192xbf16>
    nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<256x192xbf16>) : memref<256x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>, memref<192x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>
    nvfp4.swiglu %y outs(%h : memref<256x96xf32>) {limit = 7.0 : f32} : memref<256x192xbf16>
    memref.dealloc %y : memref<256x192xbf16>
  }
  return
}

// -----

// CHECK-LABEL: func.func @quantize_hoisted(
// The quantize's own kernel (its codes, scales and decode scale), then the
// narrow-token GEMM on them; no [16, 64] intermediate, no swiglu kernel.
// CHECK-NOT:     memref<16x64xf32>
// CHECK:         %[[Q:.*]] = gpu.alloc () : memref<16x128xi8>
// CHECK:         gpu.launch blocks
// CHECK:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0
// CHECK-NOT:     gpu.launch
// CHECK:         gpu.dealloc %[[Q]]
// CHECK:       gpu.module @nvfp4_sm90_gemv_0
// Each lane of the pair computes one of two outputs (the even row's lane
// the even token's: its own gate, the traded up; the odd row's lane the
// odd token's): no lane idles.
// CHECK:         %[[OTHER_EVEN:.*]], %{{.*}} = gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:         %[[OTHER_ODD:.*]], %{{.*}} = gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:         arith.select %[[EVEN:.*]], %{{.*}}, %[[OTHER_ODD]] : f32
// CHECK:         arith.select %[[EVEN]], %[[OTHER_EVEN]], %{{.*}} : f32
// CHECK:         nvfp4k.store {{.*}} bounds(%c16, %c64) alpha(%{{.*}}) {element = bf16, row_stride = 64 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.000000e+00 : f32, up_offset = 0.000000e+00 : f32>} : vector<2xf32>
// OFF-LABEL:   func.func @quantize_hoisted(
// OFF-NOT:       memref<16x64xf32>
// OFF:           gpu.launch blocks
// OFF:           gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// OFF-NOT:       gpu.launch
// OFF:         gpu.module @nvfp4_sm90_gemm_0
// OFF:           nvfp4k.store {{.*}} {element = bf16, row_stride = 64 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.000000e+00 : f32, up_offset = 0.000000e+00 : f32>} : vector<2xf32>
// CPU-LABEL:   func.func @quantize_hoisted(
// CPU-NOT:       nvfp4.
// CPU:           return
func.func @quantize_hoisted(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %h: memref<16x32xbf16>) {
  nvfp4.fused {
    %y = memref.alloc() : memref<16x64xf32>
    %q = memref.alloc() : memref<16x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
    memref.dealloc %q : memref<16x256xf4E2M1FN>
    memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %d : memref<f32>
    memref.dealloc %y : memref<16x64xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @masked(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// Rows past masked_m: swiglu(0, 0) = 0 into the [2, 16, 32] output.
// CHECK:         gpu.launch blocks
// CHECK:           memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x16x32xf32>
// CHECK:       gpu.module @nvfp4_sm90_gemm_0
// CHECK:         nvfp4k.store {{.*}} {element = f32, row_stride = 64 : i64, swiglu = #nvfp4k.swiglu<intermediate = bf16, sigmoid_scale = 1.000000e+00 : f32, up_offset = 0.000000e+00 : f32>} : vector<2xf32>
func.func @masked(%a: memref<2x16x256xf4E2M1FN>, %sa: memref<2x1x4x32x4x4xf8E4M3FN>, %w: memref<2x64x256xf4E2M1FN>, %ws: memref<2x1x4x32x4x4xf8E4M3FN>, %mm: memref<2xi32>, %h: memref<2x16x32xf32>) {
  nvfp4.fused {
    %y = memref.alloc() : memref<2x16x64xbf16>
    nvfp4.grouped_matmul masked a(%a : memref<2x16x256xf4E2M1FN>) a_scales(%sa : memref<2x1x4x32x4x4xf8E4M3FN>) b(%w : memref<2x64x256xf4E2M1FN>) b_scales(%ws : memref<2x1x4x32x4x4xf8E4M3FN>) masked_m(%mm : memref<2xi32>) outs(%y : memref<2x16x64xbf16>)
    nvfp4.swiglu %y outs(%h : memref<2x16x32xf32>) : memref<2x16x64xbf16>
    memref.dealloc %y : memref<2x16x64xbf16>
  }
  return
}
