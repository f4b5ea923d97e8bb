!desc = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @single(%a: vector<4x8xf16>, %acc: vector<16xf32>, %desc: !desc, %v: vector<4xi32>, %s: i32, %out: memref<16xf32>, %o2: memref<5xi32>) kernel {
    %d = nvfp4k.wgmma.rs %acc, %a, %desc {k_offset = 0 : i64, n = array<i64: 32>} : vector<16xf32>, vector<4x8xf16>, !desc -> vector<16xf32>
    nvfp4k.wgmma.wait {pending = 1 : i64}
    %r:2 = nvfp4k.wgmma.wait %v, %s {pending = 1 : i64} : vector<4xi32>, i32
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    vector.store %d, %out[%c0] : memref<16xf32>, vector<16xf32>
    vector.store %r#0, %o2[%c0] : memref<5xi32>, vector<4xi32>
    memref.store %r#1, %o2[%c4] : memref<5xi32>
    gpu.return
  }
}
