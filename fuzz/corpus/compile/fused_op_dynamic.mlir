func.func @dynamic(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  nvfp4.fused {
    %q = memref.alloc() : memref<16x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %q : memref<16x256xf4E2M1FN>
    memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %d : memref<f32>
  }
  return
}
