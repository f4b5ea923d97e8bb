gpu.module @pair {
  gpu.func @k(%slot: !llvm.ptr<3>) kernel {
    %c64 = arith.constant 64 : i32
    nvvm.tcgen05.alloc %slot, %c64 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
    gpu.return
  }
}
