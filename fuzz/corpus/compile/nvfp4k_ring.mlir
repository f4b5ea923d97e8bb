gpu.module @k {
  gpu.func @ring(%i: index, %bytes: index) kernel {
    %smem = nvfp4k.shared_memory : memref<1024xi8, #gpu.address_space<workgroup>>
    %ring = nvfp4k.ring.create : !nvfp4k.ring<3, consumers = 8>
    nvfp4k.ring.wait_empty %ring[%i] : !nvfp4k.ring<3, consumers = 8>
    nvfp4k.ring.expect_tx %ring[%i], %bytes : !nvfp4k.ring<3, consumers = 8>
    nvfp4k.ring.wait_full %ring[%i] : !nvfp4k.ring<3, consumers = 8>
    nvfp4k.ring.release %ring[%i] : !nvfp4k.ring<3, consumers = 8>
    %s = nvfp4k.ring.stage %ring[%i] : !nvfp4k.ring<3, consumers = 8>
    %v = memref.view %smem[%s][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %z = arith.constant 0 : i8
    memref.store %z, %v[%c0] : memref<16xi8, #gpu.address_space<workgroup>>
    gpu.return
  }
}
