gpu.module @ld_shape {
  gpu.func @k(%t: !llvm.ptr<6>) kernel {
    %v = nvvm.tcgen05.ld %t {shape = #nvvm.tcgen05_ldst_shape<shape_16x64b>} : vector<2xi32>
    gpu.return
  }
}
