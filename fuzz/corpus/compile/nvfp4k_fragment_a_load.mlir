gpu.module @kernels {
  gpu.func @nvfp4(%w: memref<2048xi32, #gpu.address_space<workgroup>>, %s: memref<256xi32, #gpu.address_space<workgroup>>, %j: index, %t: index, %n: index, %last: i1, %out: memref<2x4xi32>, %b: memref<1xi32>) kernel {
    %c0 = arith.constant 0 : index
    %codes, %bytes = nvfp4k.fragment_a.load %w, %s[%j, %t] rows(%n) tail(%last) {tail_chunks = 2 : i64} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    vector.store %codes, %out[%c0, %c0] : memref<2x4xi32>, vector<2x4xi32>
    memref.store %bytes, %b[%c0] : memref<1xi32>
    gpu.return
  }
}
