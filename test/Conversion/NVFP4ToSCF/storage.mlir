// RUN: nvfp4-opt %s --convert-nvfp4-to-scf --split-input-file --verify-diagnostics | FileCheck %s

// Narrow memrefs become their byte storage everywhere; nvfp4 ops become loops.
// CHECK-LABEL: func @quantize
// CHECK-SAME: (%{{.*}}: memref<16x32xbf16>, %[[Q:.*]]: memref<16x16xi8>, %[[S:.*]]: memref<1x1x32x4x4xi8>, %[[D:.*]]: memref<f32>)
// CHECK-NOT: nvfp4.
// Zero the swizzled scales (padding), tensor amax, S_dec, then the blocks.
// CHECK: scf.for
// CHECK: vector.store %{{.*}}, %[[S]][{{.*}}] : memref<1x1x32x4x4xi8>, vector<4xi8>
// CHECK: vector.load %{{.*}} : memref<16x32xbf16>, vector<16xbf16>
// CHECK: memref.store %{{.*}}, %[[D]][] : memref<f32>
// CHECK: vector.store %{{.*}}, %[[Q]][{{.*}}] {alignment = 8 : i64} : memref<16x16xi8>, vector<8xi8>
// CHECK: memref.store %{{.*}}, %[[S]][{{.*}}] : memref<1x1x32x4x4xi8>
func.func @quantize(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<1x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// -----

// Allocations, copies and calls of narrow memrefs are rewritten too.
// CHECK: func.func private @callee(memref<4x8xi8>)
func.func private @callee(memref<4x16xf4E2M1FN>)
// CHECK-LABEL: func @storage_ops
// CHECK-SAME: (%[[ARG:.*]]: memref<4x8xi8>)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x8xi8>
// CHECK: memref.copy %[[ARG]], %[[A]] : memref<4x8xi8> to memref<4x8xi8>
// CHECK: call @callee(%[[A]]) : (memref<4x8xi8>) -> ()
// CHECK: memref.dealloc %[[A]] : memref<4x8xi8>
func.func @storage_ops(%arg: memref<4x16xf4E2M1FN>) {
  %a = memref.alloc() : memref<4x16xf4E2M1FN>
  memref.copy %arg, %a : memref<4x16xf4E2M1FN> to memref<4x16xf4E2M1FN>
  call @callee(%a) : (memref<4x16xf4E2M1FN>) -> ()
  memref.dealloc %a : memref<4x16xf4E2M1FN>
  return
}

// -----

// The tensor form must be bufferized first.
func.func @tensor_form(%x: tensor<16x32xbf16>) -> tensor<16x32xf4E2M1FN> {
  // expected-error @+1 {{failed to legalize operation 'nvfp4.quantize' that was explicitly marked illegal}}
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<16x32xbf16> -> tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>
  return %q : tensor<16x32xf4E2M1FN>
}

// -----

// Odd FP4 rows cannot be packed.
// expected-error @+1 {{failed to legalize operation 'func.func' that was explicitly marked illegal}}
func.func @odd(%arg: memref<3x5xf4E2M1FN>) {
  return
}
