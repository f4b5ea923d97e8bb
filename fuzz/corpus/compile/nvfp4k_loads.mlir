!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!ring = !nvfp4k.ring<4, consumers = 1>
gpu.module @k {
  gpu.func @loads(%map: !map, %src: i64, %i: index, %k: index, %row: index, %bytes: index) kernel {
    %ring = nvfp4k.ring.create : !ring
    %smem = nvfp4k.shared_memory : memref<32768xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %dst = memref.view %smem[%c0][] : memref<32768xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    nvfp4k.tma.load %map[%k, %row], %dst, %ring[%i] : !map, memref<128x64xf16, #gpu.address_space<workgroup>>, !ring
    %sc = memref.view %smem[%c16384][] : memref<32768xi8, #gpu.address_space<workgroup>> to memref<1024xi8, #gpu.address_space<workgroup>>
    nvfp4k.bulk.load %src, %sc, %bytes, %ring[%i] : memref<1024xi8, #gpu.address_space<workgroup>>, !ring
    nvfp4k.tcgen05.commit %ring[%i], <empty> : !ring
    nvfp4k.tcgen05.commit %ring[%i], <full> : !ring
    gpu.return
  }
}
