// nvfp4k.store with a bias, executed on the CPU (raw loads and stores of
// device addresses are plain ones here): out = round_out(fl(fl(fl(alpha *
// v) + bias[column]) + fl(beta * acc))) (docs/spec.md 2.7), the bias read
// in its own type (bf16 here). Expected values by hand: alpha 2, values
// (1, 2), bias (0.5, -0.25): 2.5 and 3.75; with acc (2, 4) at beta 0.5:
// 3.5 and 5.75; the bias before a fused swiglu's activation: (30, 2) +
// (0.125, 1) = (30.125, 3), 30.125 * sigmoid(30.125) * 3 = 90.375 (the
// sigmoid is 1 in fp32).
// REQUIRES: mlir-runner
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-vector-to-llvm --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// CHECK: ( 2.5, 3.75, 3.5, 5.75, 90.375, nan )

memref.global "private" constant @bias0 : memref<6xbf16> = dense<[0.5, -0.25, 0.5, -0.25, 0.125, 1.0]>
memref.global "private" constant @acc0 : memref<6xf32> = dense<[0.0, 0.0, 2.0, 4.0, 0.0, 0.0]>

func.func private @addr(%m: memref<?xf32>) -> i64 {
  %p = memref.extract_aligned_pointer_as_index %m : memref<?xf32> -> index
  %a = arith.index_cast %p : index to i64
  return %a : i64
}
func.func private @addr16(%m: memref<?xbf16>) -> i64 {
  %p = memref.extract_aligned_pointer_as_index %m : memref<?xbf16> -> index
  %a = arith.index_cast %p : index to i64
  return %a : i64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %out = memref.alloc() : memref<6xf32>
  %nan = arith.constant 0x7FC00001 : f32
  scf.for %i = %c0 to %c6 step %c1 {
    memref.store %nan, %out[%i] : memref<6xf32>
  }
  %dout = memref.cast %out : memref<6xf32> to memref<?xf32>
  %po = func.call @addr(%dout) : (memref<?xf32>) -> i64
  %gb = memref.get_global @bias0 : memref<6xbf16>
  %db = memref.cast %gb : memref<6xbf16> to memref<?xbf16>
  %pb = func.call @addr16(%db) : (memref<?xbf16>) -> i64
  %ga = memref.get_global @acc0 : memref<6xf32>
  %da = memref.cast %ga : memref<6xf32> to memref<?xf32>
  %pa = func.call @addr(%da) : (memref<?xf32>) -> i64
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %v = arith.constant dense<[1.0, 2.0]> : vector<2xf32>
  // One row of 6: columns 0-1 with the bias, 2-3 with the bias and acc.
  nvfp4k.store %v, %po[%c0, %c0] bounds(%c1, %c6) alpha(%two) bias(%pb) {bias_element = bf16, element = f32, row_stride = 6 : i64} : vector<2xf32>
  nvfp4k.store %v, %po[%c0, %c2] bounds(%c1, %c6) alpha(%two) bias(%pb) acc(%pa) {beta = 0.5 : f32, bias_element = bf16, element = f32, row_stride = 6 : i64} : vector<2xf32>
  // Columns 4-5 into one swiglu output (index 2 of a row of 3 in a view
  // shifted by 2 elements: output 4).
  %w = arith.constant dense<[30.0, 2.0]> : vector<2xf32>
  %c8i = arith.constant 8 : i64
  %po2 = arith.addi %po, %c8i : i64
  nvfp4k.store %w, %po2[%c0, %c4] bounds(%c1, %c6) alpha(%one) bias(%pb) {bias_element = bf16, element = f32, row_stride = 6 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
  %r = vector.load %out[%c0] : memref<6xf32>, vector<6xf32>
  vector.print %r : vector<6xf32>
  return
}
