// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu --canonicalize | FileCheck %s

// nvfp4.swiglu on the GPU: one thread per output (3 x 4 = 12), one vector
// load of the adjacent gate/up pair, the numerics of the CPU lowering
// (shared builders: test/Conversion/NVFP4ToSCF/swiglu.mlir), one store.
// CHECK-LABEL: func @swiglu
// CHECK-SAME: (%[[X:[^:]*]]: memref<3x8xbf16>, %[[O:[^:]*]]: memref<3x4xf32>)
// CHECK: gpu.launch blocks
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %c12 : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[N:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK-NEXT: %[[R:.*]] = arith.divui %{{.*}}, %c4 : index
// CHECK-NEXT: %[[C:.*]] = arith.muli %[[N]], %c2 : index
// CHECK-NEXT: %[[P:.*]] = vector.load %[[X]][%[[R]], %[[C]]] : memref<3x8xbf16>, vector<2xbf16>
// CHECK-DAG: vector.extract %[[P]][1] : bf16 from vector<2xbf16>
// CHECK-DAG: vector.extract %[[P]][0] : bf16 from vector<2xbf16>
// CHECK: arith.divf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: memref.store %[[Y]], %[[O]][%[[R]], %[[N]]] : memref<3x4xf32>
func.func @swiglu(%x: memref<3x8xbf16>, %o: memref<3x4xf32>) {
  nvfp4.swiglu %x outs(%o : memref<3x4xf32>) {limit = 7.0 : f32} : memref<3x8xbf16>
  return
}

// -----

// An empty output launches nothing.
// CHECK-LABEL: func @swiglu_empty
// CHECK-NOT: gpu.launch
func.func @swiglu_empty(%x: memref<0x8xbf16>, %o: memref<0x4xbf16>) {
  nvfp4.swiglu %x outs(%o : memref<0x4xbf16>) : memref<0x8xbf16>
  return
}
