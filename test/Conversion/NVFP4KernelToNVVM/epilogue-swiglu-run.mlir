// nvfp4k.store with a fused swiglu, executed on the CPU (raw loads and
// stores of device addresses are plain ones here): each gate/up pair
// y = round_out(fl(alpha * v) + fl(beta * acc)) is rounded to the
// intermediate type and back, and its activation (docs/spec.md 2.10) is
// stored at column / 2 of a row of row_stride / 2 elements, inside the
// bounds only. Expected values by hand (sigmoid(t) is 1 in fp32 for
// t >= 17): gate 30.1 rounds to 30.125 in bf16, so 30.125 * 1 * 2 =
// 60.25; through f32 it stays 30.1 (2 x 30.1 = 60.2); a zero gate gives 0
// whatever the up value; alpha 2 and acc (beta 0.5) enter before the
// activation: fl(2 * 10) + 0.5 * 4 = 22 and fl(2 * 1) + 0.5 * 2 = 3:
// 22 * 3 = 66; limit 40 clamps up 100 to 40, up_offset 1 makes it 41:
// 30 * 41 = 1230 (output 7). Row 1 with rows = 1 and column 8 with
// columns = 8 are outside: outputs 4-6 keep their poison (NaN).
// REQUIRES: mlir-runner
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-vector-to-llvm --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// CHECK: ( 60.25, 0, 60.2, 66, nan, nan, nan, 1230 )

memref.global "private" constant @acc0 : memref<16xf32> = dense<[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]>

func.func private @addr(%m: memref<?xf32>) -> i64 {
  %p = memref.extract_aligned_pointer_as_index %m : memref<?xf32> -> index
  %a = arith.index_cast %p : index to i64
  return %a : i64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  // The output: 2 rows of 4 (the intermediate is 2 x 8), poisoned.
  %out = memref.alloc() : memref<8xf32>
  %nan = arith.constant 0x7FC00001 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %nan, %out[%i] : memref<8xf32>
  }
  %dout = memref.cast %out : memref<8xf32> to memref<?xf32>
  %po = func.call @addr(%dout) : (memref<?xf32>) -> i64
  %gacc = memref.get_global @acc0 : memref<16xf32>
  %dacc = memref.cast %gacc : memref<16xf32> to memref<?xf32>
  %pc = func.call @addr(%dacc) : (memref<?xf32>) -> i64
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %rows = arith.constant 1 : index
  // Columns 0-3 through bf16: outputs 0 and 1.
  %v = arith.constant dense<[30.1, 2.0, 0.0, 5.0]> : vector<4xf32>
  nvfp4k.store %v, %po[%c0, %c0] bounds(%rows, %c8) alpha(%one) {element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = bf16, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<4xf32>
  // Columns 4-5 through f32: output 2.
  %w = arith.constant dense<[30.1, 2.0]> : vector<2xf32>
  nvfp4k.store %w, %po[%c0, %c4] bounds(%rows, %c8) alpha(%one) {element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
  // Columns 6-7 with alpha and acc: output 3.
  %a = arith.constant dense<[10.0, 1.0]> : vector<2xf32>
  nvfp4k.store %a, %po[%c0, %c6] bounds(%rows, %c8) alpha(%two) acc(%pc) {beta = 0.5 : f32, element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
  // gpt-oss-like parameters (row 1, columns 6-7, with rows = 2: output 7),
  // then row 1 with rows = 1 and column 8: outside the bounds.
  %b = arith.constant dense<[30.0, 100.0]> : vector<2xf32>
  nvfp4k.store %b, %po[%c1, %c6] bounds(%c2, %c8) alpha(%one) {element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.702 : f32, limit = 40.0 : f32, up_offset = 1.0 : f32>} : vector<2xf32>
  nvfp4k.store %b, %po[%c1, %c0] bounds(%rows, %c8) alpha(%one) {element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
  nvfp4k.store %b, %po[%c0, %c8] bounds(%rows, %c8) alpha(%one) {element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
  %r = vector.load %out[%c0] : memref<8xf32>, vector<8xf32>
  vector.print %r : vector<8xf32>
  return
}
