func.func @main(%a: memref<64x64xf4E2M1FN>, %sa: memref<1x1x32x4x4xf8E4M3FN>, %b: memref<96x64xf4E2M1FN>, %sb: memref<1x1x32x4x4xf8E4M3FN>, %c: memref<64x96xi8>) {
  nvfp4.matmul %a, %sa, %b, %sb outs(%c : memref<64x96xi8>) : memref<64x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>, memref<96x64xf4E2M1FN>, memref<1x1x32x4x4xf8E4M3FN>
  return
}
