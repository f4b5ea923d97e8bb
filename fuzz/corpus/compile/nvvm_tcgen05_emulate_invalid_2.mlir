gpu.module @fp8_kind {
  gpu.func @k(%d: !llvm.ptr<6>, %a: i64, %b: i64, %i: i32, %en: i1) kernel {
    nvvm.tcgen05.mma.block_scale %d, %a, %b, %i, %en, %d, %d {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    gpu.return
  }
}
