gpu.module @k {
  gpu.func @dequant(%codes: vector<2x2xi32>, %scales: vector<2xf8E4M3FN>, %out: memref<4x8xf16>) kernel {
    %a = nvfp4k.dequant.fragment_a %codes, %scales : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xf16>
    %c0 = arith.constant 0 : index
    vector.store %a, %out[%c0, %c0] : memref<4x8xf16>, vector<4x8xf16>
    gpu.return
  }
}
