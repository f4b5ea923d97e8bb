// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90 | FileCheck %s --check-prefix=CHIP
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm100 | FileCheck %s --check-prefix=CHIP

// Zero-size dimensions: nothing is launched where there is nothing to write
// (a grid of zero blocks is not a launch CUDA or NVVM accept: before, the
// amax reduction of an empty quantize was one, and NVVM rejected its grid
// size range). What there is to write is written: the decode scale of an
// empty tensor (amax 0, no reduction: S_dec = 1), in one thread per batch
// entry.
// CHECK-LABEL: func @quantize_no_rows
// CHECK-SAME: %[[D:[^:]*]]: memref<f32>)
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch
// CHECK-NOT: memref.load
// CHECK: memref.store %{{.*}}, %[[D]][] : memref<f32>
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @quantize_no_rows(%x: memref<0x64xbf16>, %q: memref<0x64xf4E2M1FN>, %s: memref<0x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<0x64xf4E2M1FN>, memref<0x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<0x64xbf16>
  return
}

// -----

// K = 0 with a caller amax per batch entry: S_dec from that amax.
// CHECK-LABEL: func @quantize_no_columns
// CHECK-SAME: %[[AMAX:[^:]*]]: memref<3xf32>, %{{[^:]*}}: memref<3x16x0xi8>, %{{[^:]*}}: memref<3x16x0xi8>, %[[D:[^:]*]]: memref<3xf32>)
// CHECK: gpu.launch
// CHECK: memref.load %[[AMAX]][%{{.*}}] : memref<3xf32>
// CHECK: memref.store %{{.*}}, %[[D]][%{{.*}}] : memref<3xf32>
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @quantize_no_columns(%x: memref<3x16x0xf32>, %amax: memref<3xf32>, %q: memref<3x16x0xf4E2M1FN>, %s: memref<3x16x0xf8E4M3FN>, %d: memref<3xf32>) {
  nvfp4.quantize nvfp4 %x amax %amax : memref<3xf32> outs(%q, %s, %d : memref<3x16x0xf4E2M1FN>, memref<3x16x0xf8E4M3FN>, memref<3xf32>) : memref<3x16x0xf32>
  return
}

// -----

// No batch entry, MXFP4 without rows, and ops with empty results: nothing.
// CHECK-LABEL: func @nothing_to_write
// CHECK-NOT: gpu.launch
// CHECK-NOT: gpu.alloc
// CHECK: return
// CHIP-LABEL: func @nothing_to_write
// CHIP-NOT: gpu.launch
// CHIP-NOT: gpu.alloc
// CHIP: return
func.func @nothing_to_write(%x: memref<0x16x32xbf16>, %q: memref<0x16x32xf4E2M1FN>, %s: memref<0x16x2xf8E4M3FN>, %d: memref<0xf32>,
                            %y: memref<0x64xf32>, %qm: memref<0x64xf4E2M1FN>, %sm: memref<0x2xf8E8M0FNU>,
                            %dq: memref<0x64xbf16>, %sw: memref<0x1x1x32x4x4xf8E4M3FN>, %un: memref<5x0xf8E4M3FN>, %swc: memref<1x0x32x4x4xf8E4M3FN>,
                            %a0: memref<0x64xf4E2M1FN>, %sa0: memref<0x1x32x4x4xf8E4M3FN>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E4M3FN>, %c0: memref<0x64xbf16>,
                            %a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %cn: memref<128x0xbf16>,
                            %bn: memref<0x64xf4E2M1FN>, %sbn: memref<0x1x32x4x4xf8E4M3FN>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<0x16x32xf4E2M1FN>, memref<0x16x2xf8E4M3FN>, memref<0xf32>) : memref<0x16x32xbf16>
  nvfp4.quantize mxfp4 %y outs(%qm, %sm : memref<0x64xf4E2M1FN>, memref<0x2xf8E8M0FNU>) : memref<0x64xf32>
  nvfp4.dequantize %qm, %sm outs(%dq : memref<0x64xbf16>) : memref<0x64xf4E2M1FN>, memref<0x2xf8E8M0FNU>
  nvfp4.swizzle_scales %s outs(%sw : memref<0x1x1x32x4x4xf8E4M3FN>) : memref<0x16x2xf8E4M3FN>
  nvfp4.unswizzle_scales %swc outs(%un : memref<5x0xf8E4M3FN>) : memref<1x0x32x4x4xf8E4M3FN>
  nvfp4.matmul %a0, %sa0, %b, %sb outs(%c0 : memref<0x64xbf16>) : memref<0x64xf4E2M1FN>, memref<0x1x32x4x4xf8E4M3FN>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  nvfp4.matmul %a, %sa, %bn, %sbn outs(%cn : memref<128x0xbf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<0x64xf4E2M1FN>, memref<0x1x32x4x4xf8E4M3FN>
  return
}

// -----

// K = 0: the output is beta * acc. The chip GEMMs leave it to the portable
// kernel (one thread per output element, an empty dot product).
// CHECK-LABEL: func @matmul_no_k
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
// CHIP-LABEL: func @matmul_no_k
// CHIP-NOT: gpu.launch_func
// CHIP: gpu.launch
// CHIP-NOT: gpu.launch
// CHIP: return
// CHIP-NOT: gpu.module
func.func @matmul_no_k(%a: memref<128x0xf4E2M1FN>, %sa: memref<1x0x32x4x4xf8E4M3FN>, %b: memref<64x0xf4E2M1FN>, %sb: memref<1x0x32x4x4xf8E4M3FN>, %acc: memref<128x64xf32>, %c: memref<128x64xf32>) {
  nvfp4.matmul %a, %sa, %b, %sb acc(%acc : memref<128x64xf32>) outs(%c : memref<128x64xf32>) {beta = 0.5 : f32} : memref<128x0xf4E2M1FN>, memref<1x0x32x4x4xf8E4M3FN>, memref<64x0xf4E2M1FN>, memref<1x0x32x4x4xf8E4M3FN>
  return
}

// -----

// Grouped: no token row in any group (contiguous S = 0, masked maxM = 0).
// CHIP-LABEL: func @grouped_no_rows
// CHIP-NOT: gpu.launch
// CHIP: return
// CHIP-NOT: gpu.module
func.func @grouped_no_rows(%a: memref<0x128xf4E2M1FN>, %sa: memref<0x2x32x4x4xf8E4M3FN>, %b: memref<2x64x128xf4E2M1FN>, %sb: memref<2x1x2x32x4x4xf8E4M3FN>, %off: memref<3xi32>, %c: memref<0x64xbf16>,
                           %am: memref<2x0x128xf4E2M1FN>, %sam: memref<2x0x2x32x4x4xf8E4M3FN>, %mm: memref<2xi32>, %cm: memref<2x0x64xf32>) {
  nvfp4.grouped_matmul contiguous a(%a : memref<0x128xf4E2M1FN>) a_scales(%sa : memref<0x2x32x4x4xf8E4M3FN>) b(%b : memref<2x64x128xf4E2M1FN>) b_scales(%sb : memref<2x1x2x32x4x4xf8E4M3FN>) group_offsets(%off : memref<3xi32>) outs(%c : memref<0x64xbf16>)
  nvfp4.grouped_matmul masked a(%am : memref<2x0x128xf4E2M1FN>) a_scales(%sam : memref<2x0x2x32x4x4xf8E4M3FN>) b(%b : memref<2x64x128xf4E2M1FN>) b_scales(%sb : memref<2x1x2x32x4x4xf8E4M3FN>) masked_m(%mm : memref<2xi32>) outs(%cm : memref<2x0x64xf32>)
  return
}
