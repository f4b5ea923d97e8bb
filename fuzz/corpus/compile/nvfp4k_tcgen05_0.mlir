!t = memref<128x128xui8, #gpu.address_space<workgroup>>
!s = memref<2048xi8, #gpu.address_space<workgroup>>
gpu.module @k {
  gpu.func @nvfp4(%acc: i32, %a: !t, %b: !t, %sa: !s, %sb: !s, %cols: i32, %ks: index, %shift: i32) kernel {
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %ks, %shift {b_scale_blocks = 1 : i64, n = 128 : i64, steps = 4 : i64, total_steps = 6 : i64, total_units = 6 : i64, units = 4 : i64} : !t, !t, !s, !s
    gpu.return
  }
}
