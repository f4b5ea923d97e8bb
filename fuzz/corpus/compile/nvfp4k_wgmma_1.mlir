!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma(%a: vector<4x8xf16>, %acc: vector<64xf32>, %desc: !desc, %w: index, %p: i1, %out: memref<64xf32>) kernel {
    %d = nvfp4k.wgmma.rs %acc, %a, %desc width(%w) scale_d(%p) {k_offset = 64 : i64, n = array<i64: 64, 128>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    %e = nvfp4k.wgmma.wait %d {pending = 0 : i64} : vector<64xf32>
    %c0 = arith.constant 0 : index
    vector.store %e, %out[%c0] : memref<64xf32>, vector<64xf32>
    gpu.return
  }
}
