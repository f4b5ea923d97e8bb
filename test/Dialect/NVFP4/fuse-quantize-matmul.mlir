// nvfp4-fuse-quantize-matmul: an activation quantize whose outputs only a
// matmul reads moves into nvfp4.fused with it; everything else stays.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-fuse-quantize-matmul | FileCheck %s

// CHECK-LABEL: func.func @dense(
// CHECK-NEXT:    nvfp4.fused {
// CHECK-NEXT:      %[[Q:.*]] = memref.alloc() : memref<16x256xf4E2M1FN>
// CHECK-NEXT:      %[[S:.*]] = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
// CHECK-NEXT:      %[[D:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT:      nvfp4.quantize nvfp4 %{{.*}} outs(%[[Q]], %[[S]], %[[D]] :
// CHECK-NEXT:      nvfp4.matmul %[[Q]], %[[S]], %{{.*}}, %{{.*}} a_decode_scale(%[[D]] : memref<f32>)
// CHECK-NEXT:      memref.dealloc %[[Q]]
// CHECK-NEXT:      memref.dealloc %[[S]]
// CHECK-NEXT:      memref.dealloc %[[D]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @dense(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  %q = memref.alloc() : memref<16x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
  nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %q : memref<16x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  return
}

// -----

// A calibrated decode scale and stochastic rounding fuse; an unrelated op
// in between that writes other memory does not stop it.
// CHECK-LABEL: func.func @given_scale(
// CHECK:         memref.copy
// CHECK-NEXT:    nvfp4.fused {
// CHECK:           nvfp4.quantize nvfp4 %{{.*}} decode_scale %{{.*}} : memref<f32> seed %{{.*}} outs(
// CHECK:           nvfp4.matmul
// CHECK:         }
func.func @given_scale(%x: memref<16x256xbf16>, %sd: memref<f32>, %seed: i64, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>, %other: memref<16x64xbf16>) {
  %q = memref.alloc() : memref<16x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x decode_scale %sd : memref<f32> seed %seed outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) {rounding = #nvfp4.rounding<stochastic>} : memref<16x256xbf16>
  %t = memref.alloc() : memref<16x64xbf16>
  memref.copy %other, %t : memref<16x64xbf16> to memref<16x64xbf16>
  nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %t : memref<16x64xbf16>
  memref.dealloc %q : memref<16x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  return
}

// -----

// MoE experts: the contiguous grouped matmul.
// CHECK-LABEL: func.func @contiguous(
// CHECK-NEXT:    nvfp4.fused {
// CHECK:           nvfp4.quantize
// CHECK:           nvfp4.grouped_matmul contiguous
// CHECK:         }
func.func @contiguous(%x: memref<40x256xbf16>, %w: memref<4x64x256xf4E2M1FN>, %ws: memref<4x1x4x32x4x4xf8E4M3FN>, %off: memref<5xi32>, %y: memref<40x64xbf16>) {
  %q = memref.alloc() : memref<40x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<40x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<40x256xbf16>
  nvfp4.grouped_matmul contiguous a(%q : memref<40x256xf4E2M1FN>) a_scales(%s : memref<1x4x32x4x4xf8E4M3FN>) b(%w : memref<4x64x256xf4E2M1FN>) b_scales(%ws : memref<4x1x4x32x4x4xf8E4M3FN>) group_offsets(%off : memref<5xi32>) a_decode_scale(%d : memref<f32>) outs(%y : memref<40x64xbf16>)
  memref.dealloc %q : memref<40x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  return
}

// -----

// The decode scale read elsewhere (returned to the caller): nothing fuses.
// CHECK-LABEL: func.func @decode_scale_escapes(
// CHECK-NOT:     nvfp4.fused
func.func @decode_scale_escapes(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>, %dout: memref<f32>) {
  %q = memref.alloc() : memref<16x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
  nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  memref.copy %d, %dout : memref<f32> to memref<f32>
  memref.dealloc %q : memref<16x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  return
}

// -----

// Two matmuls read the codes: nothing fuses.
// CHECK-LABEL: func.func @two_consumers(
// CHECK-NOT:     nvfp4.fused
func.func @two_consumers(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>, %z: memref<16x64xbf16>) {
  %q = memref.alloc() : memref<16x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
  nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%z : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %q : memref<16x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  return
}

// -----

// Something between the two writes the quantize's input: the quantize
// cannot move past it.
// CHECK-LABEL: func.func @input_overwritten(
// CHECK-NOT:     nvfp4.fused
func.func @input_overwritten(%x: memref<16x256xbf16>, %x2: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  %q = memref.alloc() : memref<16x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
  memref.copy %x2, %x : memref<16x256xbf16> to memref<16x256xbf16>
  nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %q : memref<16x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  return
}

// -----

// Row-scaled activations (a decode scale per row) and 16x16 blocks are not
// what the fused kernels compute: left as they are.
// CHECK-LABEL: func.func @row_scaled(
// CHECK-NOT:     nvfp4.fused
func.func @row_scaled(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  %q = memref.alloc() : memref<16x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<16xf32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<16xf32>) : memref<16x256xbf16>
  nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<16xf32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %q : memref<16x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<16xf32>
  return
}

// CHECK-LABEL: func.func @tile_blocks(
// CHECK-NOT:     nvfp4.fused
func.func @tile_blocks(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  %q = memref.alloc() : memref<16x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) {block = array<i64: 16, 16>} : memref<16x256xbf16>
  nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %q : memref<16x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  return
}
