// nvfp4k.epilogue, nvfp4k.store_fp4 and nvfp4k.store_scale executed on
// the CPU (raw loads and
// stores of device addresses are plain ones here), values by hand:
// - epilogue: alpha fl(1/3) times (1, 3) is (0.33333334, 1), rounded to
//   bf16: (0.333984375, 1); outside the bounds: (0, 0); a swiglu with an
//   f32 accumulator (the intermediate's type, not the bf16 output's):
//   g = 30 + 1, u = 2 + 0.5, 31 * sigmoid(31) * 2.5 = 77.5.
// - a 2 x 32 matrix (two 16-blocks a row): codes of x = (6, -0.5) at enc 1
//   (7 and 9: byte 0x97 = 151) at row 0, column 0; of x = (3, 1) at enc 2
//   (7 and 4: 0x47 = 71) at row 1, column 16. Scales: 0x38 = 56 at row 0,
//   block 0, 0x30 = 48 at row 1 (the last), block 1 (the last), swizzled:
//   S[0,0] at 0, S[1,1] at 17; the last block column's scale zeroes its
//   row's padding columns 2, 3 (18, 19); the last row's of column 1 zeroes
//   rows 2-127 of column 1 and their columns 2, 3 (33, 34, 35, 509, 510,
//   511: row 127 is at 31*16 + 3*4); the rest keeps its poison 0xAA = 170.
//   Stores past the rows (or past the blocks) write nothing.
// REQUIRES: mlir-runner
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-vector-to-llvm --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils | FileCheck %s

// CHECK:      ( 0.333984, 1, 0, 0, 77.5 )
// CHECK-NEXT: ( 151, 170, 170, 170, 170, 170, 170, 170, 170, 170, 170, 170, 170, 170, 170, 170 )
// CHECK-NEXT: ( 170, 170, 170, 170, 170, 170, 170, 170, 71, 170, 170, 170, 170, 170, 170, 170 )
// CHECK-NEXT: ( 56, 170, 170, 170, 170, 48, 0, 0, 170, 0, 0, 0, 170, 0, 0, 0 )

memref.global "private" constant @acc0 : memref<2xf32> = dense<[1.0, 0.5]>

func.func private @addr(%m: memref<?xf32>) -> i64 {
  %p = memref.extract_aligned_pointer_as_index %m : memref<?xf32> -> index
  %a = arith.index_cast %p : index to i64
  return %a : i64
}
func.func private @addr8(%m: memref<?xi8>) -> i64 {
  %p = memref.extract_aligned_pointer_as_index %m : memref<?xi8> -> index
  %a = arith.index_cast %p : index to i64
  return %a : i64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  %third = arith.constant 0.333333343 : f32
  %one = arith.constant 1.0 : f32
  %v = arith.constant dense<[1.0, 3.0]> : vector<2xf32>
  %e0 = nvfp4k.epilogue %v[%c0, %c0] bounds(%c1, %c2) alpha(%third) {element = bf16, row_stride = 2 : i64} : vector<2xf32> -> vector<2xf32>
  %e1 = nvfp4k.epilogue %v[%c1, %c0] bounds(%c1, %c2) alpha(%third) {element = bf16, row_stride = 2 : i64} : vector<2xf32> -> vector<2xf32>
  %ga = memref.get_global @acc0 : memref<2xf32>
  %da = memref.cast %ga : memref<2xf32> to memref<?xf32>
  %pa = func.call @addr(%da) : (memref<?xf32>) -> i64
  %w = arith.constant dense<[30.0, 2.0]> : vector<2xf32>
  %e2 = nvfp4k.epilogue %w[%c0, %c0] bounds(%c1, %c2) alpha(%one) acc(%pa) {element = bf16, row_stride = 2 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32> -> vector<1xf32>
  %a0 = vector.extract %e0[0] : f32 from vector<2xf32>
  %a1 = vector.extract %e0[1] : f32 from vector<2xf32>
  %b0 = vector.extract %e1[0] : f32 from vector<2xf32>
  %b1 = vector.extract %e1[1] : f32 from vector<2xf32>
  %s0 = vector.extract %e2[0] : f32 from vector<1xf32>
  %all = vector.from_elements %a0, %a1, %b0, %b1, %s0 : vector<5xf32>
  vector.print %all : vector<5xf32>

  %poison = arith.constant -86 : i8
  %codes = memref.alloc() : memref<32xi8>
  %scales = memref.alloc() : memref<512xi8>
  scf.for %i = %c0 to %c32 step %c1 {
    memref.store %poison, %codes[%i] : memref<32xi8>
  }
  scf.for %i = %c0 to %c512 step %c1 {
    memref.store %poison, %scales[%i] : memref<512xi8>
  }
  %dc = memref.cast %codes : memref<32xi8> to memref<?xi8>
  %pc = func.call @addr8(%dc) : (memref<?xi8>) -> i64
  %ds = memref.cast %scales : memref<512xi8> to memref<?xi8>
  %ps = func.call @addr8(%ds) : (memref<?xi8>) -> i64
  %x0 = arith.constant dense<[6.0, -0.5]> : vector<2xf32>
  nvfp4k.store_fp4 %x0, %pc[%c0, %c0] bounds(%c2, 32) encode(%one) : vector<2xf32>
  %x1 = arith.constant dense<[3.0, 1.0]> : vector<2xf32>
  %two = arith.constant 2.0 : f32
  nvfp4k.store_fp4 %x1, %pc[%c1, %c16] bounds(%c2, 32) encode(%two) : vector<2xf32>
  nvfp4k.store_fp4 %x1, %pc[%c2, %c0] bounds(%c2, 32) encode(%two) : vector<2xf32>
  %sf0 = arith.constant 56 : i32
  %sf1 = arith.constant 48 : i32
  nvfp4k.store_scale %sf0, %ps[%c0, %c0] bounds(%c2, 2) total_rows(%c2) {swizzled} : i32
  nvfp4k.store_scale %sf1, %ps[%c1, %c1] bounds(%c2, 2) total_rows(%c2) {swizzled} : i32
  nvfp4k.store_scale %sf1, %ps[%c2, %c0] bounds(%c2, 2) total_rows(%c2) {swizzled} : i32
  nvfp4k.store_scale %sf1, %ps[%c0, %c2] bounds(%c2, 2) total_rows(%c2) {swizzled} : i32
  %r0 = vector.load %codes[%c0] : memref<32xi8>, vector<16xi8>
  %r1 = vector.load %codes[%c16] : memref<32xi8>, vector<16xi8>
  %u0 = arith.extui %r0 : vector<16xi8> to vector<16xi32>
  %u1 = arith.extui %r1 : vector<16xi8> to vector<16xi32>
  vector.print %u0 : vector<16xi32>
  vector.print %u1 : vector<16xi32>
  // Scale bytes 0-3, 16-19, 32-35, 508-511.
  %c508 = arith.constant 508 : index
  %s0v = vector.load %scales[%c0] : memref<512xi8>, vector<4xi8>
  %s1v = vector.load %scales[%c16] : memref<512xi8>, vector<4xi8>
  %s2v = vector.load %scales[%c32] : memref<512xi8>, vector<4xi8>
  %s3v = vector.load %scales[%c508] : memref<512xi8>, vector<4xi8>
  %l0 = vector.shuffle %s0v, %s1v [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xi8>, vector<4xi8>
  %l1 = vector.shuffle %s2v, %s3v [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xi8>, vector<4xi8>
  %l = vector.shuffle %l0, %l1 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xi8>, vector<8xi8>
  %lu = arith.extui %l : vector<16xi8> to vector<16xi32>
  vector.print %lu : vector<16xi32>
  return
}
