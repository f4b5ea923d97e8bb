gpu.module @k {
  gpu.func @dequant(%codes: vector<2x4294967296xi32>, %scales: vector<2xf8E4M3FN>, %out: memref<4x8xf16>) kernel {
    %c0 = arith.constant 0 : index
    gpu.return
  }
}
