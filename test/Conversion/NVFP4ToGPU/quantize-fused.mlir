// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu --canonicalize | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="fused-quantize-max-elements=511" --canonicalize | FileCheck %s --check-prefix=BOUND

// An NVFP4 quantize reducing its own amax over a small batch entry: one
// kernel, a block of 1024 threads per entry (512 for 4/6, whose candidates
// need up to 128 registers). Each thread loads four chunks
// per step (indices clamped to the last chunk: re-reading it leaves the
// max as it is) and folds them with maxnumf, each warp shuffles, lane 0 of each of the 32 warps leaves
// the warp's fp32 bits in workgroup memory; after the barrier every thread
// takes their unsigned max (what the two-kernel path's atomics compute),
// thread 0 stores the entry's S_dec, and the block walks the entry's tiles.
// No device word, no memset, no second launch.
// CHECK-LABEL: func @small_batched
// CHECK-SAME: %[[D:[^:]*]]: memref<2xf32>)
// CHECK-NOT: gpu.alloc
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c1024, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[W:.*]] : memref<32xi32, #gpu.address_space<workgroup>>) {
// CHECK: %[[ACC:.*]] = scf.for %[[C:.*]] = %[[TX]] to %c32 step %c4096 iter_args
// CHECK-NEXT: arith.minsi %[[C]], %c31 : index
// CHECK: vector.load %{{.*}}[%[[BX]], %{{.*}}, %{{.*}}]
// CHECK-COUNT-3: vector.load %{{.*}}[%[[BX]], %{{.*}}, %{{.*}}]
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
// CHECK-COUNT-30: arith.maxui
// CHECK-NEXT: %[[AMAX:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[AMAX]] : f32
// CHECK: %[[SDEC:.*]] = arith.divf
// CHECK-NEXT: %[[T0:.*]] = arith.cmpi eq, %[[TX]], %c0 : index
// CHECK-NEXT: scf.if %[[T0]] {
// CHECK-NEXT: memref.store %[[SDEC]], %[[D]][%[[BX]]] : memref<2xf32>
// CHECK: scf.for %{{.*}} = %[[TX]] to %c32 step %c1024 {
// CHECK: vector.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return

// BOUND-LABEL: func @small_batched
// BOUND: gpu.alloc
// BOUND-NEXT: gpu.memset
// BOUND-COUNT-2: gpu.launch blocks
func.func @small_batched(%x: memref<2x16x32xbf16>, %q: memref<2x16x32xf4E2M1FN>, %s: memref<2x16x2xf8E4M3FN>, %d: memref<2xf32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<2x16x32xf4E2M1FN>, memref<2x16x2xf8E4M3FN>, memref<2xf32>) : memref<2x16x32xbf16>
  return
}

// -----

// Past the bound (256 x 512 elements): the grid-wide amax kernel first.
// CHECK-LABEL: func @large
// CHECK: gpu.alloc () : memref<1xi32>
// CHECK-NEXT: gpu.memset
// CHECK-COUNT-2: gpu.launch blocks
// BOUND-LABEL: func @large
// BOUND: gpu.memset
func.func @large(%x: memref<256x512xbf16>, %q: memref<256x512xf4E2M1FN>, %s: memref<256x32xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<256x512xf4E2M1FN>, memref<256x32xf8E4M3FN>, memref<f32>) : memref<256x512xbf16>
  return
}

// -----

// 4/6: 512 threads, and at most two tiles each: 64 x 256 (1024 tiles) in
// one kernel, 128 x 256 (2048 tiles) as two.
// CHECK-LABEL: func @four_over_six
// CHECK-NOT: gpu.memset
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}}) threads({{.*}}) in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%{{.*}} : memref<16xi32, #gpu.address_space<workgroup>>)
// CHECK: gpu.memset
// CHECK-COUNT-2: gpu.launch blocks
func.func @four_over_six(%x: memref<64x256xbf16>, %q: memref<64x256xf4E2M1FN>, %s: memref<64x16xf8E4M3FN>, %d: memref<f32>,
                         %y: memref<128x256xbf16>, %qy: memref<128x256xf4E2M1FN>, %sy: memref<128x16xf8E4M3FN>, %dy: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<64x256xf4E2M1FN>, memref<64x16xf8E4M3FN>, memref<f32>) {scale_rule = #nvfp4.scale_rule<four_over_six>} : memref<64x256xbf16>
  nvfp4.quantize nvfp4 %y outs(%qy, %sy, %dy : memref<128x256xf4E2M1FN>, memref<128x16xf8E4M3FN>, memref<f32>) {scale_rule = #nvfp4.scale_rule<four_over_six>} : memref<128x256xbf16>
  return
}
