!ring = !nvfp4k.ring<5, consumers = 8>
gpu.module @k {
  gpu.func @main(%r: !ring, %i: index) kernel {
    nvfp4k.ring.wait_full %r[%i] : !ring
    gpu.return
  }
}
