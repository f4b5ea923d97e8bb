// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf --canonicalize | FileCheck %s

// nvfp4.swiglu on the CPU (docs/spec.md 2.10): one loop per output
// dimension, gate and up from columns 2n and 2n+1, the clamp as compares
// (NaN stays NaN), e^x by Cody-Waite reduction and the degree-7 Taylor
// polynomial (a NaN n converts as 0: fptosi of NaN is poison), sigmoid as one division, then g * sigmoid(g) * u.
// CHECK-LABEL: func @swiglu_limit
// CHECK-SAME: (%[[X:[^:]*]]: memref<3x8xbf16>, %[[O:[^:]*]]: memref<3x4xf32>)
// CHECK: scf.for %[[R:.*]] = %c0 to %c3
// CHECK-NEXT: scf.for %[[N:.*]] = %c0 to %c4
// CHECK-NEXT: %[[GC:.*]] = arith.muli %[[N]], %c2 : index
// CHECK-NEXT: %[[G16:.*]] = memref.load %[[X]][%[[R]], %[[GC]]]
// CHECK-NEXT: %[[G:.*]] = arith.extf %[[G16]] : bf16 to f32
// CHECK-NEXT: %[[UC:.*]] = arith.addi %[[GC]], %c1 : index
// CHECK-NEXT: %[[U16:.*]] = memref.load %[[X]][%[[R]], %[[UC]]]
// CHECK-NEXT: %[[U:.*]] = arith.extf %[[U16]] : bf16 to f32
// CHECK-NEXT: %[[GHI:.*]] = arith.cmpf ogt, %[[G]], %[[LIM:.*]] : f32
// CHECK-NEXT: %[[GL:.*]] = arith.select %[[GHI]], %[[LIM]], %[[G]] : f32
// CHECK-NEXT: %[[ULO:.*]] = arith.cmpf ogt, %[[NLIM:.*]], %[[U]] : f32
// CHECK-NEXT: %[[U1:.*]] = arith.select %[[ULO]], %[[NLIM]], %[[U]] : f32
// CHECK-NEXT: %[[UHI:.*]] = arith.cmpf ogt, %[[U]], %[[LIM]] : f32
// CHECK-NEXT: %[[UL:.*]] = arith.select %[[UHI]], %[[LIM]], %[[U1]] : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[GL]] : f32
// CHECK-NEXT: arith.minnumf %[[NEG]]
// CHECK-NEXT: arith.maxnumf
// CHECK-NEXT: arith.cmpf uno, %[[NEG]], %[[NEG]]
// CHECK-NEXT: %[[C:.*]] = arith.select
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[C]], %{{.*}} : f32
// CHECK-NEXT: %[[T1:.*]] = arith.addf %[[T]], %[[MAGIC:.*]] : f32
// CHECK-NEXT: %[[NF:.*]] = arith.subf %[[T1]], %[[MAGIC]] : f32
// CHECK-COUNT-7: arith.addf
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[NF]], %[[NF]] : f32
// CHECK-NEXT: %[[NS:.*]] = arith.select %[[NAN]], %{{.*}}, %[[NF]] : f32
// CHECK-NEXT: %[[NI:.*]] = arith.fptosi %[[NS]] : f32 to i32
// CHECK-NEXT: %[[H:.*]] = arith.shrsi %[[NI]], %c1_i32 : i32
// CHECK-NEXT: arith.subi %[[NI]], %[[H]] : i32
// CHECK: %[[E1:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[E:.*]] = arith.mulf %[[E1]], %{{.*}} : f32
// CHECK-NEXT: %[[DEN:.*]] = arith.addf %[[E]], %[[ONE:.*]] : f32
// CHECK-NEXT: %[[SIG:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT: %[[SILU:.*]] = arith.mulf %[[GL]], %[[SIG]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[SILU]], %[[UL]] : f32
// CHECK-NEXT: memref.store %[[Y]], %[[O]][%[[R]], %[[N]]] : memref<3x4xf32>
func.func @swiglu_limit(%x: memref<3x8xbf16>, %o: memref<3x4xf32>) {
  nvfp4.swiglu %x outs(%o : memref<3x4xf32>) {limit = 7.0 : f32} : memref<3x8xbf16>
  return
}

// -----

// gpt-oss's parameters: sigmoid(1.702 * g) and (u + 1); rank 3, a bf16
// result rounded once at the store.
// CHECK-LABEL: func @swiglu_gpt_oss
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK: %[[S:.*]] = arith.mulf %[[G:[0-9]+]], %cst{{.*}} : f32
// CHECK-NEXT: arith.negf %[[S]] : f32
// CHECK: %[[SIG:.*]] = arith.divf
// CHECK-NEXT: %[[SILU:.*]] = arith.mulf %[[G]], %[[SIG]] : f32
// CHECK-NEXT: %[[U1:.*]] = arith.addf %{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[SILU]], %[[U1]] : f32
// CHECK-NEXT: %[[B:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK-NEXT: memref.store %[[B]]
func.func @swiglu_gpt_oss(%x: memref<2x3x8xf32>, %o: memref<2x3x4xbf16>) {
  nvfp4.swiglu %x outs(%o : memref<2x3x4xbf16>) {sigmoid_scale = 1.702 : f32, limit = 7.0 : f32, up_offset = 1.0 : f32} : memref<2x3x8xf32>
  return
}
