gpu.module @kernel {
  gpu.func @k(%slot: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %adesc: i64, %bdesc: i64, %sdesc: i64, %en: i1) kernel {
    %c256 = arith.constant 256 : i32
    %c128 = arith.constant 128 : i32
    %idesc = arith.constant 136316032 : i32
    nvvm.tcgen05.alloc %slot, %c256 : !llvm.ptr<3>, i32
    nvvm.tcgen05.relinquish_alloc_permit
    nvvm.tcgen05.fence <after>
    %t = llvm.load %slot : !llvm.ptr<3> -> i32
    %d = llvm.inttoptr %t : i32 to !llvm.ptr<6>
    %sfi = arith.addi %t, %c128 : i32
    %sf = llvm.inttoptr %sfi : i32 to !llvm.ptr<6>
    nvvm.tcgen05.cp %sf, %sdesc {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
    nvvm.tcgen05.mma.block_scale %d, %adesc, %bdesc, %idesc, %en, %sf, %sf {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    nvvm.tcgen05.commit %bar : !llvm.ptr<3>
    %v = nvvm.tcgen05.ld %d {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
    nvvm.tcgen05.wait <load>
    %x = vector.extract %v[0] : i32 from vector<32xi32>
    llvm.store %x, %slot : i32, !llvm.ptr<3>
    nvvm.tcgen05.dealloc %d, %c256 : !llvm.ptr<6>, i32
    gpu.return
  }
}
