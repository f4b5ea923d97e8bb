// The epilogue ops' lowering, executed on the CPU (raw loads and stores of
// device addresses are plain loads and stores here): nvfp4k.alpha is
// fl(fl(a_decode * b_decode) * alpha), each factor at its group's index when
// per group, element 0 otherwise, missing factors 1; nvfp4k.store writes
// round_out(fl(alpha * v) + fl(beta * acc)) (docs/spec.md 2.7) inside the
// bounds and nothing outside them. Expected values by hand: alpha of group
// 1 is fl(fl(2 * 3) * 2) = 12; 12 * 1 + 0.5 * 1 = 12.5; 12 * fl(1/3) +
// 0.5 * 3 = 5.5 after rounding to bf16; 12 + 0.5 * -2 = 11; 12 * fl(1/3)
// (4.0000005) + 0.5 * 2^-7 = 4.0044 rounds to bf16 4. Row 1 is outside
// (rows = 1): its poison (NaN) stays. Per row (row-scaled operands):
// a_decode[row 2] = 0.25, b_decode[column 1] = 2, alpha of group 0 1.5:
// fl(fl(0.25 * 2) * 1.5) = 0.75. A vector alpha scales each output by its
// own: (2, -1) * (1, 0.5) into row 1, columns 2-3, once rows = 2.
// REQUIRES: mlir-runner
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-vector-to-llvm --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// CHECK:      ( 1.5, 12, 0.5, 1, 0.75 )
// CHECK-NEXT: ( 12.5, 5.5, 11, 4, nan, nan, 2, -0.5 )

memref.global "private" constant @a_dec : memref<1xf32> = dense<[2.0]>
memref.global "private" constant @b_dec : memref<3xf32> = dense<[0.5, 3.0, 0.25]>
memref.global "private" constant @alphas : memref<3xf32> = dense<[1.5, 2.0, -1.0]>
memref.global "private" constant @acc0 : memref<8xbf16> = dense<[1.0, 3.0, -2.0, 0.0078125, 5.0, 6.0, 7.0, 8.0]>

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
  %ga = memref.get_global @a_dec : memref<1xf32>
  %gb = memref.get_global @b_dec : memref<3xf32>
  %gl = memref.get_global @alphas : memref<3xf32>
  %da = memref.cast %ga : memref<1xf32> to memref<?xf32>
  %db = memref.cast %gb : memref<3xf32> to memref<?xf32>
  %dl = memref.cast %gl : memref<3xf32> to memref<?xf32>
  %pa = func.call @addr(%da) : (memref<?xf32>) -> i64
  %pb = func.call @addr(%db) : (memref<?xf32>) -> i64
  %pl = func.call @addr(%dl) : (memref<?xf32>) -> i64
  %al0 = nvfp4k.alpha %c0 a_decode(%pa) b_decode(%pb) alpha(%pl) {b_decode_per_group} : f32
  %al1 = nvfp4k.alpha %c1 a_decode(%pa) b_decode(%pb) alpha(%pl) {b_decode_per_group} : f32
  %al2 = nvfp4k.alpha %c2 b_decode(%pb) : f32
  %al3 = nvfp4k.alpha %c2 : f32
  %al4 = nvfp4k.alpha %c0 a_decode(%pb) b_decode(%pl) alpha(%pl) row(%c2) column(%c1) {a_decode_per_row, b_decode_per_row} : f32
  %av = vector.from_elements %al0, %al1, %al2, %al3, %al4 : vector<5xf32>
  vector.print %av : vector<5xf32>

  // A 2 x 4 bf16 output, poisoned, and its accumulator.
  %out = memref.alloc() : memref<8xbf16>
  %nan = arith.constant 0x7FC1 : bf16
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %nan, %out[%i] : memref<8xbf16>
    %j = arith.addi %i, %c4 : index
    memref.store %nan, %out[%j] : memref<8xbf16>
  }
  %gacc = memref.get_global @acc0 : memref<8xbf16>
  %dout = memref.cast %out : memref<8xbf16> to memref<?xbf16>
  %dacc = memref.cast %gacc : memref<8xbf16> to memref<?xbf16>
  %po = func.call @addr16(%dout) : (memref<?xbf16>) -> i64
  %pc = func.call @addr16(%dacc) : (memref<?xbf16>) -> i64
  %v = arith.constant dense<[1.0, 0.333333343]> : vector<2xf32>
  %rows = arith.constant 1 : index
  %cols = arith.constant 4 : index
  // Row 0, columns 0-1 and 2-3: in bounds; row 1: outside (rows = 1).
  nvfp4k.store %v, %po[%c0, %c0] bounds(%rows, %cols) alpha(%al1) acc(%pc) {beta = 0.5 : f32, element = bf16, row_stride = 4 : i64} : vector<2xf32>
  nvfp4k.store %v, %po[%c0, %c2] bounds(%rows, %cols) alpha(%al1) acc(%pc) {beta = 0.5 : f32, element = bf16, row_stride = 4 : i64} : vector<2xf32>
  nvfp4k.store %v, %po[%c1, %c0] bounds(%rows, %cols) alpha(%al1) acc(%pc) {beta = 0.5 : f32, element = bf16, row_stride = 4 : i64} : vector<2xf32>
  %v2 = arith.constant dense<[1.0, 0.5]> : vector<2xf32>
  %alphas2 = arith.constant dense<[2.0, -1.0]> : vector<2xf32>
  nvfp4k.store %v2, %po[%c1, %c2] bounds(%c2, %cols) alpha(%alphas2 : vector<2xf32>) {element = bf16, row_stride = 4 : i64} : vector<2xf32>
  %r = vector.load %out[%c0] : memref<8xbf16>, vector<8xbf16>
  %rf = arith.extf %r : vector<8xbf16> to vector<8xf32>
  vector.print %rf : vector<8xf32>
  return
}
