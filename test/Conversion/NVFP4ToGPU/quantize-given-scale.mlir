// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu --canonicalize | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="fused-quantize-max-elements=0" --canonicalize | FileCheck %s

// A quantize with a calibrated scale (docs/spec.md 2.2, given scales) needs
// no amax: whatever the input's size (small ones would otherwise take the
// fused amax kernel of quantize-fused.mlir, large ones a zeroed device word
// and the amax kernel of quantize.mlir), it is one launch of the tile
// kernel, no gpu.alloc, no memset, no atomics, no shuffles, no workgroup
// memory. encode_scale: S_enc is the loaded value (it feeds the block
// scale's fl(S_enc * fl(1/6)) directly), S_dec = fl(1 / S_enc) is stored
// and encodes.
// CHECK-LABEL: func @given_encode
// CHECK-SAME: (%[[X:[^:]*]]: memref<16x32xbf16>, %[[E:[^:]*]]: memref<f32>, %[[Q:[^:]*]]: memref<16x16xi8>, %[[S:[^:]*]]: memref<16x2xi8>, %[[D:[^:]*]]: memref<f32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) {
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: atomic_rmw
// CHECK: %[[SENC:.*]] = memref.load %[[E]][] : memref<f32>
// CHECK-NEXT: %[[SDEC:.*]] = arith.divf %[[ONE]], %[[SENC]] : f32
// CHECK-NOT: arith.select
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][] : memref<f32>
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: atomic_rmw
// CHECK: arith.mulf %[[SENC]], %[[SIXTH]] : f32
// CHECK: arith.mulf %{{.*}}, %[[SDEC]] : f32
// CHECK: vector.store %{{.*}}, %[[Q]]
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK-NOT: gpu.dealloc
// CHECK: return
func.func @given_encode(%x: memref<16x32xbf16>, %e: memref<f32>, %q: memref<16x32xf4E2M1FN>, %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x encode_scale %e : memref<f32> outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<16x2xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}

// -----

// decode_scale per batch entry: entry b loads d[b], stores it unchanged as
// its decode scale (not fl(1/fl(1/d))) and derives S_enc = fl(1 / d[b]).
// Still one launch, with 16x16 tiles, stochastic rounding and Hadamard.
// CHECK-LABEL: func @given_decode_batched
// CHECK-SAME: (%[[X:[^:]*]]: memref<3x20x64xf16>, %[[DIN:[^:]*]]: memref<3xf32>, %[[SEED:[^:]*]]: i64, %[[Q:[^:]*]]: memref<3x20x32xi8>, %[[S:[^:]*]]: memref<3x20x4xi8>, %[[D:[^:]*]]: memref<3xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: atomic_rmw
// CHECK: %[[SDEC:.*]] = memref.load %[[DIN]][%[[B:.*]]] : memref<3xf32>
// CHECK-NEXT: %[[SENC:.*]] = arith.divf %[[ONE]], %[[SDEC]] : f32
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][%[[B]]] : memref<3xf32>
// CHECK: arith.mulf %[[SENC]], %[[SIXTH]] : f32
// CHECK: arith.mului_extended
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @given_decode_batched(%x: memref<3x20x64xf16>, %din: memref<3xf32>, %seed: i64, %q: memref<3x20x64xf4E2M1FN>, %s: memref<3x20x4xf8E4M3FN>, %d: memref<3xf32>) {
  nvfp4.quantize nvfp4 %x decode_scale %din : memref<3xf32> seed %seed outs(%q, %s, %d : memref<3x20x64xf4E2M1FN>, memref<3x20x4xf8E4M3FN>, memref<3xf32>) {block = array<i64: 16, 16>, rounding = #nvfp4.rounding<stochastic>, hadamard} : memref<3x20x64xf16>
  return
}

// -----

// No rows: no tile writes the decode scales, so one thread per batch entry
// stores the given scale's S_dec (here fl(1 / e[b])).
// CHECK-LABEL: func @given_encode_empty
// CHECK-SAME: (%[[X:[^:]*]]: memref<2x0x32xbf16>, %[[E:[^:]*]]: memref<2xf32>, %[[Q:[^:]*]]: memref<2x0x16xi8>, %[[S:[^:]*]]: memref<2x0x2xi8>, %[[D:[^:]*]]: memref<2xf32>)
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks
// CHECK: %[[SENC:.*]] = memref.load %[[E]][%[[B:.*]]] : memref<2xf32>
// CHECK-NEXT: %[[SDEC:.*]] = arith.divf %{{.*}}, %[[SENC]] : f32
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][%[[B]]] : memref<2xf32>
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @given_encode_empty(%x: memref<2x0x32xbf16>, %e: memref<2xf32>, %q: memref<2x0x32xf4E2M1FN>, %s: memref<2x0x2xf8E4M3FN>, %d: memref<2xf32>) {
  nvfp4.quantize nvfp4 %x encode_scale %e : memref<2xf32> outs(%q, %s, %d : memref<2x0x32xf4E2M1FN>, memref<2x0x2xf8E4M3FN>, memref<2xf32>) : memref<2x0x32xbf16>
  return
}
