gpu.module @multicast_commit {
  gpu.func @k(%bar: !llvm.ptr<3>, %mask: i16) kernel {
    nvvm.tcgen05.commit %bar, multicast_mask = %mask : !llvm.ptr<3>, i16
    gpu.return
  }
}
