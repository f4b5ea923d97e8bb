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

// -----

// Constants of the narrow types (bufferized arith.constants) become the
// bytes they are stored as: f4E2M1FN codes two per byte, even element in the
// low nibble (0.5 -1 6 0 -> 0x1 0xA 0x7 0x0 -> 0xA1 0x07); E4M3 and UE8M0 bit
// patterns one per byte. Before, memref.get_global failed to legalize.
// CHECK-DAG: memref.global "private" constant @f4 : memref<2x2xi8> = dense<{{\[\[}}-95, 7], [67, 95]]> {alignment = 64 : i64}
// CHECK-DAG: memref.global "private" constant @e4m3 : memref<2x2xi8> = dense<{{\[\[}}56, 48], [64, 0]]>
// CHECK-DAG: memref.global "private" constant @e8m0 : memref<2x2xi8> = dense<{{\[\[}}127, -128], [126, -127]]>
// CHECK-DAG: memref.global "private" constant @f4_splat : memref<4x4xi8> = dense<17>
// CHECK-DAG: memref.global "private" constant @e4m3_splat : memref<1x1x32x4x4xi8> = dense<-72>
// CHECK-DAG: memref.global "private" @f4_uninitialized : memref<4x2xi8> = uninitialized
// CHECK-LABEL: func @globals
// CHECK-SAME: (%[[OUT:.*]]: memref<2x2xi8>)
// CHECK: %[[F4:.*]] = memref.get_global @f4 : memref<2x2xi8>
// CHECK: memref.copy %[[F4]], %[[OUT]] : memref<2x2xi8> to memref<2x2xi8>
// CHECK: memref.get_global @e4m3 : memref<2x2xi8>
// CHECK: memref.get_global @e8m0 : memref<2x2xi8>
// CHECK: memref.get_global @f4_splat : memref<4x4xi8>
// CHECK: memref.get_global @e4m3_splat : memref<1x1x32x4x4xi8>
// CHECK: memref.get_global @f4_uninitialized : memref<4x2xi8>
memref.global "private" constant @f4 : memref<2x4xf4E2M1FN> = dense<[[0.5, -1.0, 6.0, 0.0], [1.5, 2.0, -6.0, 3.0]]> {alignment = 64 : i64}
memref.global "private" constant @e4m3 : memref<2x2xf8E4M3FN> = dense<[[1.0, 0.5], [2.0, 0.0]]>
memref.global "private" constant @e8m0 : memref<2x2xf8E8M0FNU> = dense<[[1.0, 2.0], [0.5, 4.0]]>
memref.global "private" constant @f4_splat : memref<4x8xf4E2M1FN> = dense<0.5>
memref.global "private" constant @e4m3_splat : memref<1x1x32x4x4xf8E4M3FN> = dense<-1.0>
memref.global "private" @f4_uninitialized : memref<4x4xf4E2M1FN> = uninitialized
func.func private @use(memref<2x2xf8E4M3FN>, memref<2x2xf8E8M0FNU>, memref<4x8xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<4x4xf4E2M1FN>)
func.func @globals(%out: memref<2x4xf4E2M1FN>) {
  %f4 = memref.get_global @f4 : memref<2x4xf4E2M1FN>
  memref.copy %f4, %out : memref<2x4xf4E2M1FN> to memref<2x4xf4E2M1FN>
  %e4m3 = memref.get_global @e4m3 : memref<2x2xf8E4M3FN>
  %e8m0 = memref.get_global @e8m0 : memref<2x2xf8E8M0FNU>
  %f4_splat = memref.get_global @f4_splat : memref<4x8xf4E2M1FN>
  %e4m3_splat = memref.get_global @e4m3_splat : memref<1x1x32x4x4xf8E4M3FN>
  %uninit = memref.get_global @f4_uninitialized : memref<4x4xf4E2M1FN>
  call @use(%e4m3, %e8m0, %f4_splat, %e4m3_splat, %uninit) : (memref<2x2xf8E4M3FN>, memref<2x2xf8E8M0FNU>, memref<4x8xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<4x4xf4E2M1FN>) -> ()
  return
}

// -----

// A global of odd FP4 rows has no byte storage either.
// expected-error @+1 {{failed to legalize operation 'memref.global' that was explicitly marked illegal}}
memref.global "private" constant @odd : memref<3x5xf4E2M1FN> = dense<0.5>
