func.func @main(%q: memref<40x256xf4E2M1FN>, %s: memref<1x4x32x4x4xf8E4M3FN>, %w: memref<4x64x256xf4E2M1FN>, %ws: memref<4x1x4x32x4x4xf8E4M3FN>, %off: memref<5xi32>, %y: memref<40x64xf64>) {
  nvfp4.grouped_matmul contiguous a(%q : memref<40x256xf4E2M1FN>) a_scales(%s : memref<1x4x32x4x4xf8E4M3FN>) b(%w : memref<4x64x256xf4E2M1FN>) b_scales(%ws : memref<4x1x4x32x4x4xf8E4M3FN>) group_offsets(%off : memref<5xi32>) outs(%y : memref<40x64xf64>)
  return
}
