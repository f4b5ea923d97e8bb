func.func @quantize_buffers(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>, %s: memref<1x1x32x4x4xf8E4M3FN>, %d: memref<f32>) {
  nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x32xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x32xbf16>
  return
}
