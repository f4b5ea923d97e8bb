// A matmul's bias on sm_90a: the kernel takes its address after the other
// epilogue arguments, and every nvfp4k.store adds bias[column] (read in its
// own type) before the rounding (docs/spec.md 2.7); contiguous groups
// offset it to the group's row. On the CPU the loop nest adds it to each
// product. What the kernels compute is checked on the GPU (the selfcheck's
// `fused` family: bit for bit the product to f32 plus the bias).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90 --canonicalize --cse | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: func.func @dense(
// CHECK:         %[[B:.*]] = memref.extract_aligned_pointer_as_index %arg4 : memref<192xbf16>
// CHECK:         %[[BA:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args({{.*}}, %[[BA]] : i64)
// CHECK:       gpu.func @nvfp4_sm90_gemm_0({{.*}}, %[[ARG:.*]]: i64) kernel
// CHECK:         nvfp4k.store {{.*}} bounds(%{{.*}}, %c192) alpha(%{{.*}}) bias(%[[ARG]]) {bias_element = bf16, element = bf16, row_stride = 192 : i64} : vector<2xf32>
// CPU-LABEL:   func.func @dense(
// CPU:           %[[BIAS:.*]] = arith.extf %{{.*}} : bf16 to f32
// CPU-NEXT:      %[[SUM:.*]] = arith.addf %{{.*}}, %[[BIAS]] : f32
// CPU-NEXT:      arith.truncf %[[SUM]] : f32 to bf16
func.func @dense(%a: memref<256x64xf4E2M1FN>, %sa: memref<2x1x32x4x4xf8E4M3FN>, %w: memref<192x64xf4E2M1FN>, %ws: memref<2x1x32x4x4xf8E4M3FN>, %bias: memref<192xbf16>, %y: memref<256x192xbf16>) {
  nvfp4.matmul %a, %sa, %w, %ws bias(%bias : memref<192xbf16>) outs(%y : memref<256x192xbf16>) : memref<256x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>, memref<192x64xf4E2M1FN>, memref<2x1x32x4x4xf8E4M3FN>
  return
}

// -----

// CHECK-LABEL: func.func @contiguous(
// CHECK:       gpu.func @nvfp4_sm90_gemm_0({{.*}}, %[[ARG:.*]]: i64) kernel
// Group g's row: bias + g * 64 * 4 bytes.
// CHECK:         %[[OFF:.*]] = arith.muli %{{.*}}, %c256 : index
// CHECK:         %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK:         %[[ROW:.*]] = arith.addi %[[ARG]], %[[OFF64]] : i64
// CHECK:         nvfp4k.store {{.*}} bias(%[[ROW]]) {bias_element = f32, element = f32, row_stride = 64 : i64}
func.func @contiguous(%a: memref<40x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %w: memref<2x64x64xf4E2M1FN>, %ws: memref<2x1x1x32x4x4xf8E4M3FN>, %off: memref<3xi32>, %bias: memref<2x64xf32>, %y: memref<40x64xf32>) {
  nvfp4.grouped_matmul contiguous a(%a : memref<40x64xf4E2M1FN>) a_scales(%sa : memref<1x1x32x4x4xf8E4M3FN>) b(%w : memref<2x64x64xf4E2M1FN>) b_scales(%ws : memref<2x1x1x32x4x4xf8E4M3FN>) group_offsets(%off : memref<3xi32>) bias(%bias : memref<2x64xf32>) outs(%y : memref<40x64xf32>)
  return
}
