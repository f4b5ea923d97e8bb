func.func @matmul_mxfp4_buffers(%a: memref<128x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E8M0FNU>, %b: memref<64x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E8M0FNU>, %c: memref<128x64xf16>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<128x64xf16>) : memref<128x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>, memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E8M0FNU>
  return
}
