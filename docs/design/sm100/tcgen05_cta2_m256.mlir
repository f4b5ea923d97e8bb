// tcgen05_cta2_m256.mlir -- compile-only sm_100a prototype (MLIR/LLVM 22.1.8, ptxas 13.0).
// Generated/verified by docs/design/sm100/build.sh.
//
// Command:
//   mlir-opt tcgen05_cta2_m256.mlir --convert-nvvm-to-llvm --gpu-module-to-binary=format=isa -o tcgen05_cta2_m256.isa.mlir
//   python3 extract_ptx.py tcgen05_cta2_m256.isa.mlir tcgen05_cta2_m256.ptx
//   ptxas -arch=sm_100a -v tcgen05_cta2_m256.ptx -o tcgen05_cta2_m256.cubin
// ptxas said:
//   ptxas info    : 0 bytes gmem
//   ptxas info    : Compiling entry function 'tcgen05_cta2_m256' for 'sm_100a'
//   ptxas info    : Function properties for tcgen05_cta2_m256
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 15 registers, used 0 barriers
// ---- end of generated header ----
// cta_group::2 (CTA pair, M=256 N=256, idesc 0x10400480) spellings: every
// tcgen05 op of a kernel carries the same `group = #nvvm.cta_group<cta_2>`
// (PTX: all tcgen05 instructions of a kernel use the same .cta_group);
// nvvm.cluster_dim gives .explicitcluster/.reqnctapercluster 2,1,1.
// commit multicasts to both CTAs' mbarriers with a 16-bit CTA mask.
module attributes {gpu.container_module} {
gpu.module @cta2 [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.func @tcgen05_cta2_m256(%slot: !llvm.ptr<3>, %mbar: !llvm.ptr<3>, %adesc: i64, %bdesc: i64, %sfdesc: i64) attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %n = llvm.mlir.constant(512 : i32) : i32
    nvvm.tcgen05.alloc %slot, %n {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
    nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
    %t = llvm.load %slot : !llvm.ptr<3> -> i32
    %tp = llvm.inttoptr %t : i32 to !llvm.ptr<6>
    nvvm.tcgen05.cp %tp, %sfdesc {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}
    %idesc = llvm.mlir.constant(272630912 : i32) : i32
    %en = llvm.mlir.constant(false) : i1
    nvvm.tcgen05.mma.block_scale %tp, %adesc, %bdesc, %idesc, %en, %tp, %tp {kind = #nvvm.block_scale_kind<mxf4nvf4>, ctaGroup = #nvvm.cta_group<cta_2>, blockScale = #nvvm.tcgen05_mma_block_scale<block16>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    %mask = llvm.mlir.constant(3 : i16) : i16
    nvvm.tcgen05.commit %mbar, multicast_mask = %mask {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
    nvvm.tcgen05.dealloc %tp, %n {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
    llvm.return
  }
}
}
