func.func @given(%x: memref<8x256xf16>, %sd: memref<f32>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<8x64xf16>) {
  nvfp4.fused {
    %q = memref.alloc() : memref<8x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x decode_scale %sd : memref<f32> outs(%q, %s, %d : memref<8x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<8x256xf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<8x64xf16>) : memref<8x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %q : memref<8x256xf4E2M1FN>
    memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %d : memref<f32>
  }
  return
}
