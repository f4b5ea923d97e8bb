// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu --canonicalize | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="fused-quantize-max-elements=511" --canonicalize | FileCheck %s --check-prefix=BOUND

// An NVFP4 quantize reducing its own amax over a small batch entry: one
// kernel, grid (tile blocks, batch), 512 threads, one tile per thread.
// Every block reduces its entry's whole amax: each thread loads four
// chunks per step (indices clamped to the last chunk: re-reading it leaves
// the max as it is) and folds them with maxnumf, each warp shuffles, lane
// 0 of each of the 16 warps leaves the warp's fp32 bits in workgroup
// memory; after the barrier every thread takes their unsigned max (what
// the two-kernel path's atomics compute). The first thread of the first
// block stores the entry's S_dec; each thread quantizes its tile. No
// device word, no memset, no second launch.
// CHECK-LABEL: func @small_batched
// CHECK-SAME: %[[D:[^:]*]]: memref<2xf32>)
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks(%{{.*}}, %[[BY:[^,]*]], %{{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c2, %{{.*}} = %c1) threads(%[[TX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[W:.*]] : memref<16xi32, #gpu.address_space<workgroup>>) {
// CHECK: %[[ACC:.*]] = scf.for %[[C:.*]] = %[[TX]] to %c32 step %c2048 iter_args
// CHECK-NEXT: arith.minsi %[[C]], %c31 : index
// CHECK: vector.load %{{.*}}[%[[BY]], %{{.*}}, %{{.*}}]
// CHECK-COUNT-3: vector.load %{{.*}}[%[[BY]], %{{.*}}, %{{.*}}]
// CHECK: arith.maxnumf
// CHECK: gpu.shuffle xor %[[ACC]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK-NEXT: %[[WMAX:.*]] = arith.maxnumf
// CHECK: scf.if
// CHECK-NEXT: %[[WARP:.*]] = arith.divui %[[TX]], %c32 : index
// CHECK-NEXT: %[[WBITS:.*]] = arith.bitcast %[[WMAX]] : f32 to i32
// CHECK-NEXT: memref.store %[[WBITS]], %[[W]][%[[WARP]]]
// CHECK: gpu.barrier
// CHECK-NEXT: %[[P0:.*]] = memref.load %[[W]][%c0]
// CHECK-NEXT: %[[P1:.*]] = memref.load %[[W]][%c1]
// CHECK-NEXT: arith.maxui %[[P0]], %[[P1]] : i32
// CHECK-COUNT-14: arith.maxui
// CHECK-NEXT: %[[AMAX:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[AMAX]] : f32
// CHECK: %[[SDEC:.*]] = arith.divf
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][%[[BY]]] : memref<2xf32>
// CHECK: scf.if
// CHECK: vector.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return

// BOUND-LABEL: func @small_batched
// BOUND: gpu.alloc
// BOUND: call @nvfp4KeptZero
// BOUND-COUNT-2: gpu.launch blocks
func.func @small_batched(%x: memref<2x16x32xbf16>, %q: memref<2x16x32xf4E2M1FN>, %s: memref<2x16x2xf8E4M3FN>, %d: memref<2xf32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<2x16x32xf4E2M1FN>, memref<2x16x2xf8E4M3FN>, memref<2xf32>) : memref<2x16x32xbf16>
  return
}

// -----

// At the bound (128 x 256 = 32K elements): four blocks of 512 tiles, each
// block reducing the entry's amax (a tile block's first tile is
// block * 512 + thread). Past it (128 x 272): the grid-wide amax kernel
// first, then the quantize kernel.
// CHECK-LABEL: func @bound
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c512,
// CHECK: gpu.barrier
// CHECK: %[[T:.*]] = arith.muli %[[BX]], %c512 : index
// CHECK-NEXT: arith.addi %[[T]], %[[TX]] : index
// CHECK: gpu.alloc () : memref<1xi32>
// CHECK-NEXT: gpu.alloc () : memref<33xi32>
// CHECK: call @nvfp4KeptZero
// CHECK-COUNT-2: gpu.launch blocks
// BOUND-LABEL: func @bound
// BOUND: call @nvfp4KeptZero
// BOUND-NOT: gpu.memset
func.func @bound(%x: memref<128x256xbf16>, %q: memref<128x256xf4E2M1FN>, %s: memref<128x16xf8E4M3FN>, %d: memref<f32>,
                 %y: memref<128x272xbf16>, %qy: memref<128x272xf4E2M1FN>, %sy: memref<128x17xf8E4M3FN>, %dy: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<128x256xf4E2M1FN>, memref<128x16xf8E4M3FN>, memref<f32>) : memref<128x256xbf16>
  nvfp4.quantize nvfp4 %y outs(%qy, %sy, %dy : memref<128x272xf4E2M1FN>, memref<128x17xf8E4M3FN>, memref<f32>) : memref<128x272xbf16>
  return
}
