// nvfp4-fuse-matmul-epilogue: an nvfp4.swiglu reading the whole output of a
// matmul, a buffer nothing else uses, joins the matmul in nvfp4.fused (after
// nvfp4-fuse-quantize-matmul: into the op holding the matmul and its
// quantize); then an nvfp4.quantize with a given scale reading all of the
// result of a matmul or of its swiglu joins them (F6). The sm_90a pipeline
// runs this pass first (PIPE): a quantize between two matmuls becomes the
// first one's output quantize.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-fuse-matmul-epilogue | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --nvfp4-fuse-quantize-matmul --nvfp4-fuse-matmul-epilogue | FileCheck %s --check-prefix=BOTH
// RUN: nvfp4-opt %s --split-input-file --nvfp4-fuse-matmul-epilogue --nvfp4-fuse-quantize-matmul | FileCheck %s --check-prefix=PIPE

// CHECK-LABEL: func.func @dense(
// CHECK-NEXT:    nvfp4.fused {
// CHECK-NEXT:      %[[Y:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK-NEXT:      nvfp4.matmul %{{.*}} outs(%[[Y]] : memref<16x64xf32>)
// CHECK-NEXT:      nvfp4.swiglu %[[Y]] outs(%{{.*}} : memref<16x32xbf16>) {limit = 7.000000e+00 : f32}
// CHECK-NEXT:      memref.dealloc %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @dense(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %h: memref<16x32xbf16>) {
  %y = memref.alloc() : memref<16x64xf32>
  nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) {limit = 7.0 : f32} : memref<16x64xf32>
  memref.dealloc %y : memref<16x64xf32>
  return
}

// -----

// The activation quantize, the matmul and the swiglu: one fused op, its
// intermediates allocated and freed inside. Without the quantize fusion the
// quantize stays outside, and the deallocations of its outputs, which the
// matmul reads, move after the fused op.
// CHECK-LABEL: func.func @quantize_matmul_swiglu(
// CHECK:         nvfp4.quantize
// CHECK-NEXT:    %[[H:.*]] = memref.alloc() : memref<40x32xbf16>
// CHECK-NEXT:    nvfp4.fused {
// CHECK-NEXT:      memref.alloc() : memref<40x64xbf16>
// CHECK-NEXT:      nvfp4.grouped_matmul contiguous
// CHECK-NEXT:      nvfp4.swiglu
// CHECK-NEXT:      memref.dealloc
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %{{.*}} : memref<40x256xf4E2M1FN>
// CHECK-NEXT:    memref.dealloc %{{.*}} : memref<1x4x32x4x4xf8E4M3FN>
// CHECK-NEXT:    memref.dealloc %{{.*}} : memref<f32>
// CHECK-NEXT:    return %[[H]]
// BOTH-LABEL:  func.func @quantize_matmul_swiglu(
// BOTH-NEXT:     %[[H:.*]] = memref.alloc() : memref<40x32xbf16>
// BOTH-NEXT:     nvfp4.fused {
// BOTH-NEXT:       %[[Y:.*]] = memref.alloc() : memref<40x64xbf16>
// BOTH-NEXT:       %[[Q:.*]] = memref.alloc() : memref<40x256xf4E2M1FN>
// BOTH-NEXT:       %[[S:.*]] = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
// BOTH-NEXT:       %[[D:.*]] = memref.alloc() : memref<f32>
// BOTH-NEXT:       nvfp4.quantize nvfp4 %{{.*}} outs(%[[Q]], %[[S]], %[[D]] :
// BOTH-NEXT:       nvfp4.grouped_matmul contiguous a(%[[Q]] : {{.*}} outs(%[[Y]] : memref<40x64xbf16>)
// BOTH-NEXT:       nvfp4.swiglu %[[Y]] outs(%[[H]] : memref<40x32xbf16>)
// BOTH-NEXT:       memref.dealloc %[[Q]]
// BOTH-NEXT:       memref.dealloc %[[S]]
// BOTH-NEXT:       memref.dealloc %[[D]]
// BOTH-NEXT:       memref.dealloc %[[Y]]
// BOTH-NEXT:     }
// BOTH-NEXT:     return %[[H]]
func.func @quantize_matmul_swiglu(%x: memref<40x256xbf16>, %w: memref<4x64x256xf4E2M1FN>, %ws: memref<4x1x4x32x4x4xf8E4M3FN>, %off: memref<5xi32>) -> memref<40x32xbf16> {
  %q = memref.alloc() : memref<40x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<40x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<40x256xbf16>
  %y = memref.alloc() : memref<40x64xbf16>
  nvfp4.grouped_matmul contiguous a(%q : memref<40x256xf4E2M1FN>) a_scales(%s : memref<1x4x32x4x4xf8E4M3FN>) b(%w : memref<4x64x256xf4E2M1FN>) b_scales(%ws : memref<4x1x4x32x4x4xf8E4M3FN>) group_offsets(%off : memref<5xi32>) a_decode_scale(%d : memref<f32>) outs(%y : memref<40x64xbf16>)
  memref.dealloc %q : memref<40x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  %h = memref.alloc() : memref<40x32xbf16>
  nvfp4.swiglu %y outs(%h : memref<40x32xbf16>) : memref<40x64xbf16>
  memref.dealloc %y : memref<40x64xbf16>
  return %h : memref<40x32xbf16>
}

// -----

// Masked groups fuse; an op in between that writes other memory (a buffer
// the function allocated) does not stop it, and the matmul moves down to
// the swiglu.
// CHECK-LABEL: func.func @masked(
// CHECK:         memref.copy
// CHECK-NEXT:    nvfp4.fused {
// CHECK:           nvfp4.grouped_matmul masked
// CHECK-NEXT:      nvfp4.swiglu
// CHECK:         }
func.func @masked(%a: memref<2x16x256xf4E2M1FN>, %sa: memref<2x1x4x32x4x4xf8E4M3FN>, %w: memref<2x64x256xf4E2M1FN>, %ws: memref<2x1x4x32x4x4xf8E4M3FN>, %mm: memref<2xi32>, %h: memref<2x16x32xf32>, %u: memref<4xf32>) {
  %y = memref.alloc() : memref<2x16x64xbf16>
  %v = memref.alloc() : memref<4xf32>
  nvfp4.grouped_matmul masked a(%a : memref<2x16x256xf4E2M1FN>) a_scales(%sa : memref<2x1x4x32x4x4xf8E4M3FN>) b(%w : memref<2x64x256xf4E2M1FN>) b_scales(%ws : memref<2x1x4x32x4x4xf8E4M3FN>) masked_m(%mm : memref<2xi32>) outs(%y : memref<2x16x64xbf16>)
  memref.copy %u, %v : memref<4xf32> to memref<4xf32>
  nvfp4.swiglu %y outs(%h : memref<2x16x32xf32>) : memref<2x16x64xbf16>
  memref.dealloc %y : memref<2x16x64xbf16>
  memref.dealloc %v : memref<4xf32>
  return
}

// -----

// The matmul's output read by another op as well: nothing fuses.
// CHECK-LABEL: func.func @intermediate_escapes(
// CHECK-NOT:     nvfp4.fused
func.func @intermediate_escapes(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %h: memref<16x32xbf16>, %keep: memref<16x64xf32>) {
  %y = memref.alloc() : memref<16x64xf32>
  nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
  memref.copy %y, %keep : memref<16x64xf32> to memref<16x64xf32>
  memref.dealloc %y : memref<16x64xf32>
  return
}

// -----

// The matmul writes the caller's buffer (which the caller sees): nothing
// fuses.
// CHECK-LABEL: func.func @caller_buffer(
// CHECK-NOT:     nvfp4.fused
func.func @caller_buffer(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xf32>, %h: memref<16x32xbf16>) {
  nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
  return
}

// -----

// An op between the two writes what the matmul reads (its A): the matmul
// cannot move down to the swiglu; nothing fuses.
// CHECK-LABEL: func.func @operand_written_between(
// CHECK-NOT:     nvfp4.fused
func.func @operand_written_between(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %h: memref<16x32xbf16>, %other: memref<16x256xf4E2M1FN>) {
  %y = memref.alloc() : memref<16x64xf32>
  nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  memref.copy %other, %a : memref<16x256xf4E2M1FN> to memref<16x256xf4E2M1FN>
  nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
  memref.dealloc %y : memref<16x64xf32>
  return
}

// -----

// The matmul accumulates into its output (acc is the intermediate): it
// reads what it writes; nothing fuses.
// CHECK-LABEL: func.func @accumulates_in_place(
// CHECK-NOT:     nvfp4.fused
func.func @accumulates_in_place(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %h: memref<16x32xbf16>) {
  %y = memref.alloc() : memref<16x64xf32>
  nvfp4.matmul %a, %sa, %w, %ws acc(%y : memref<16x64xf32>) outs(%y : memref<16x64xf32>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  nvfp4.swiglu %y outs(%h : memref<16x32xbf16>) : memref<16x64xf32>
  memref.dealloc %y : memref<16x64xf32>
  return
}

// -----

// A matmul's bf16 result quantized with a calibrated encode scale: the
// quantize joins the matmul; its outputs are the region's.
// CHECK-LABEL: func.func @output_quantize(
// CHECK-NEXT:    nvfp4.fused {
// CHECK-NEXT:      %[[Y:.*]] = memref.alloc() : memref<16x64xbf16>
// CHECK-NEXT:      nvfp4.matmul %{{.*}} outs(%[[Y]] : memref<16x64xbf16>)
// CHECK-NEXT:      nvfp4.quantize nvfp4 %[[Y]] encode_scale
// CHECK-NEXT:      memref.dealloc %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @output_quantize(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %e: memref<f32>, %q: memref<16x64xf4E2M1FN>, %s: memref<1x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  %y = memref.alloc() : memref<16x64xbf16>
  nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  nvfp4.quantize nvfp4 %y encode_scale %e : memref<f32> outs(%q, %s, %d : memref<16x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x64xbf16>
  memref.dealloc %y : memref<16x64xbf16>
  return
}

// -----

// A quantize that computes its amax needs the whole result first: it stays
// (the quantize-matmul fusion may take it for the next matmul).
// CHECK-LABEL: func.func @output_amax_computed(
// CHECK-NOT:     nvfp4.fused
// CHECK:         return
func.func @output_amax_computed(%a: memref<16x256xf4E2M1FN>, %sa: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %q: memref<16x64xf4E2M1FN>, %s: memref<1x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  %y = memref.alloc() : memref<16x64xbf16>
  nvfp4.matmul %a, %sa, %w, %ws outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
  nvfp4.quantize nvfp4 %y outs(%q, %s, %d : memref<16x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x64xbf16>
  memref.dealloc %y : memref<16x64xbf16>
  return
}

// -----

// The MoE experts: quantize, gate_up, swiglu, quantize (calibrated),
// down. In the pipeline's order the second quantize is gate_up's output
// quantize and the first joins gate_up too: one fused op writes the codes
// and scales that the down matmul reads.
// PIPE-LABEL:  func.func @experts(
// PIPE:          nvfp4.fused {
// PIPE:            nvfp4.quantize nvfp4 %{{.*}} outs(
// PIPE-NEXT:       nvfp4.grouped_matmul contiguous
// PIPE-NEXT:       nvfp4.swiglu
// PIPE-NEXT:       nvfp4.quantize nvfp4 %{{.*}} decode_scale %{{.*}} outs(%[[HQ:[^,]*]], %[[HS:[^,]*]], %[[HD:[^ ]*]] :
// PIPE:          }
// PIPE-NEXT:     nvfp4.grouped_matmul contiguous a(%[[HQ]] : memref<40x32xf4E2M1FN>) a_scales(%[[HS]] : {{.*}} a_decode_scale(%[[HD]] : memref<f32>)
// (In the other order too here: the deallocation of the swiglu's result
// between the quantize and the down matmul keeps them apart.)
// BOTH-LABEL:  func.func @experts(
// BOTH:          nvfp4.fused {
// BOTH:            nvfp4.swiglu
// BOTH-NEXT:       nvfp4.quantize nvfp4 %{{.*}} decode_scale
// BOTH:          }
// BOTH-NEXT:     nvfp4.grouped_matmul contiguous
func.func @experts(%x: memref<40x256xbf16>, %w: memref<4x64x256xf4E2M1FN>, %ws: memref<4x1x4x32x4x4xf8E4M3FN>, %off: memref<5xi32>, %hdec: memref<f32>, %w2: memref<4x64x32xf4E2M1FN>, %ws2: memref<4x1x1x32x4x4xf8E4M3FN>, %out: memref<40x64xbf16>) {
  %q = memref.alloc() : memref<40x256xf4E2M1FN>
  %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
  %d = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<40x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<40x256xbf16>
  %y = memref.alloc() : memref<40x64xbf16>
  nvfp4.grouped_matmul contiguous a(%q : memref<40x256xf4E2M1FN>) a_scales(%s : memref<1x4x32x4x4xf8E4M3FN>) b(%w : memref<4x64x256xf4E2M1FN>) b_scales(%ws : memref<4x1x4x32x4x4xf8E4M3FN>) group_offsets(%off : memref<5xi32>) a_decode_scale(%d : memref<f32>) outs(%y : memref<40x64xbf16>)
  memref.dealloc %q : memref<40x256xf4E2M1FN>
  memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
  memref.dealloc %d : memref<f32>
  %h = memref.alloc() : memref<40x32xbf16>
  nvfp4.swiglu %y outs(%h : memref<40x32xbf16>) : memref<40x64xbf16>
  memref.dealloc %y : memref<40x64xbf16>
  %hq = memref.alloc() : memref<40x32xf4E2M1FN>
  %hs = memref.alloc() : memref<1x1x32x4x4xf8E4M3FN>
  %hd = memref.alloc() : memref<f32>
  nvfp4.quantize nvfp4 %h decode_scale %hdec : memref<f32> outs(%hq, %hs, %hd : memref<40x32xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<40x32xbf16>
  memref.dealloc %h : memref<40x32xbf16>
  nvfp4.grouped_matmul contiguous a(%hq : memref<40x32xf4E2M1FN>) a_scales(%hs : memref<1x1x32x4x4xf8E4M3FN>) b(%w2 : memref<4x64x32xf4E2M1FN>) b_scales(%ws2 : memref<4x1x1x32x4x4xf8E4M3FN>) group_offsets(%off : memref<5xi32>) a_decode_scale(%hd : memref<f32>) outs(%out : memref<40x64xbf16>)
  memref.dealloc %hq : memref<40x32xf4E2M1FN>
  memref.dealloc %hs : memref<1x1x32x4x4xf8E4M3FN>
  memref.dealloc %hd : memref<f32>
  return
}
