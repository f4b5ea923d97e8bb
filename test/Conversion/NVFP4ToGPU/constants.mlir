// RUN: nvfp4-opt %s --split-input-file --nvfp4-buffer-gpu-constants | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --nvfp4-buffer-gpu-constants --convert-nvfp4-to-gpu | FileCheck %s --check-prefix=GPU

// A constant a kernel reads gets a buffer of its own, filled from the global
// (a kernel cannot read the host global); one that is only copied out (a
// constant result) does not. convert-nvfp4-to-gpu then makes the buffer
// device memory and the global its bytes.
// CHECK-LABEL: func @read_constants
// CHECK-SAME: (%[[Q:.*]]: memref<2x32xf4E2M1FN>, %[[X:.*]]: memref<2x32xf32>, %[[S:.*]]: memref<2x2xf8E4M3FN>)
// CHECK: %[[G:.*]] = memref.get_global @scales : memref<2x2xf8E4M3FN>
// CHECK: %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x2xf8E4M3FN>
// CHECK: memref.copy %[[G]], %[[B]]
// CHECK: nvfp4.dequantize %[[Q]], %[[B]] outs(%[[X]] : memref<2x32xf32>)
// CHECK: %[[R:.*]] = memref.get_global @scales : memref<2x2xf8E4M3FN>
// CHECK-NEXT: memref.copy %[[R]], %[[S]]
// CHECK-NEXT: return

// GPU-LABEL: func @read_constants
// GPU-SAME: (%[[Q:.*]]: memref<2x16xi8>, %[[X:.*]]: memref<2x32xf32>, %[[S:.*]]: memref<2x2xi8>)
// GPU: %[[G:.*]] = memref.get_global @scales : memref<2x2xi8>
// GPU: %[[B:.*]] = gpu.alloc () : memref<2x2xi8>
// GPU: gpu.memcpy %[[B]], %[[G]] : memref<2x2xi8>, memref<2x2xi8>
// GPU: gpu.launch
// GPU: %[[R:.*]] = memref.get_global @scales : memref<2x2xi8>
// GPU: gpu.memcpy %[[S]], %[[R]] : memref<2x2xi8>, memref<2x2xi8>
memref.global "private" constant @scales : memref<2x2xf8E4M3FN> = dense<[[1.0, 0.5], [2.0, 4.0]]> {alignment = 64 : i64}
func.func @read_constants(%q: memref<2x32xf4E2M1FN>, %x: memref<2x32xf32>, %s: memref<2x2xf8E4M3FN>) {
  %g = memref.get_global @scales : memref<2x2xf8E4M3FN>
  nvfp4.dequantize %q, %g outs(%x : memref<2x32xf32>) : memref<2x32xf4E2M1FN>, memref<2x2xf8E4M3FN>
  %r = memref.get_global @scales : memref<2x2xf8E4M3FN>
  memref.copy %r, %s : memref<2x2xf8E4M3FN> to memref<2x2xf8E4M3FN>
  return
}

// -----

// Mutable globals are not constants: the pass leaves them alone.
// CHECK-LABEL: func @mutable_global
// CHECK-NOT: memref.alloc
// CHECK: return
memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func private @use(memref<4xf32>)
func.func @mutable_global() {
  %g = memref.get_global @state : memref<4xf32>
  call @use(%g) : (memref<4xf32>) -> ()
  return
}
