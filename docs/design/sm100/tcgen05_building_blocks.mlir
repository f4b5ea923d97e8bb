// tcgen05_building_blocks.mlir -- compile-only sm_100a prototype (MLIR/LLVM 22.1.8, ptxas 13.0).
// Generated/verified by docs/design/sm100/build.sh.
//
// Command:
//   mlir-opt tcgen05_building_blocks.mlir --convert-nvvm-to-llvm --gpu-module-to-binary=format=isa -o tcgen05_building_blocks.isa.mlir
//   python3 extract_ptx.py tcgen05_building_blocks.isa.mlir tcgen05_building_blocks.ptx
//   ptxas -arch=sm_100a -v tcgen05_building_blocks.ptx -o tcgen05_building_blocks.cubin
// ptxas said:
//   ptxas info    : 0 bytes gmem
//   ptxas info    : Compiling entry function 'tcgen05_building_blocks' for 'sm_100a'
//   ptxas info    : Function properties for tcgen05_building_blocks
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 38 registers, used 1 barriers
// ---- end of generated header ----
// tcgen05 building blocks for one NVFP4 (and one MXFP4) K=64 step, written
// directly in the NVVM dialect of MLIR 22.1.8:
//   nvvm.tcgen05.alloc / relinquish_alloc_permit / dealloc   (one warp)
//   nvvm.tcgen05.mma_smem_desc   (NB: masks each field to 14 bits, does NOT >> 4)
//   nvvm.tcgen05.cp 32x128b.warpx4 (scale units smem -> TMEM)
//   nvvm.tcgen05.mma.block_scale kind mxf4nvf4 block16 and kind mxf4 block32
//   nvvm.tcgen05.commit -> mbarrier, nvvm.mbarrier.try_wait.parity
//   nvvm.tcgen05.fence before/after, nvvm.tcgen05.ld 32x32b.x32 + tcgen05.wait<load>
// Shared addresses are absolute constants so that every descriptor in the PTX
// is a compile-time constant the decoder (python/nvfp4/ptx_decode.py) can read
// back in full.  A real kernel adds the (1024-aligned) dynamic-smem base; see
// nvfp4_gemm_128x*.mlir.  Do not launch this as is (address 0 of the shared
// window is not guaranteed to be yours).
module attributes {gpu.container_module} {
gpu.module @tcgen05_blocks [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.mlir.global external @smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

  // One NVFP4 K=64 step and one MXFP4 K=64 step with compile-time-constant
  // descriptors, so the PTX shows every field (decode with nvfp4.ptx_decode).
  llvm.func @tcgen05_building_blocks(%out: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c4 = llvm.mlir.constant(4 : i32) : i32
    %c32 = llvm.mlir.constant(32 : i32) : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %warp = llvm.udiv %tid, %c32 : i32
    %is_w0 = llvm.icmp "eq" %warp, %c0 : i32
    // shared-memory layout (byte offsets, smem is .align 1024):
    //   0x0000 A  128 x 128 B (SW128 K-major)   0x4000 B 256 x 128 B
    //   0xC000 SFA 512 B   0xC200 SFB 2 x 512 B   0xC600 mbarrier   0xC608 TMEM slot
    %slot = llvm.mlir.constant(50696 : i32) : i32
    %slotp = llvm.inttoptr %slot : i32 to !llvm.ptr<3>
    %mbar = llvm.mlir.constant(50688 : i32) : i32
    %mbarp = llvm.inttoptr %mbar : i32 to !llvm.ptr<3>
    %ncols = llvm.mlir.constant(512 : i32) : i32
    llvm.cond_br %is_w0, ^alloc, ^after_alloc
  ^alloc:
    nvvm.tcgen05.alloc %slotp, %ncols : !llvm.ptr<3>, i32
    nvvm.tcgen05.relinquish_alloc_permit
    llvm.br ^after_alloc
  ^after_alloc:
    %is_t0 = llvm.icmp "eq" %tid, %c0 : i32
    llvm.cond_br %is_t0, ^init, ^after_init
  ^init:
    nvvm.mbarrier.init %mbarp, %c1 : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    llvm.br ^after_init
  ^after_init:
    nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
    nvvm.barrier0
    nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
    %tbase = llvm.load %slotp : !llvm.ptr<3> -> i32
    llvm.cond_br %is_t0, ^mma, ^epilogue
  ^mma:
    // descriptors: nvvm.tcgen05.mma_smem_desc does NOT shift: fields are (bytes >> 4)
    %a_start = llvm.mlir.constant(0 : i32) : i32        // 0x0000 >> 4
    %b_start = llvm.mlir.constant(1024 : i32) : i32     // 0x4000 >> 4
    %lbo = llvm.mlir.constant(1 : i32) : i32            // 16 B ("assumed 1" for swizzled K-major)
    %sbo = llvm.mlir.constant(64 : i32) : i32           // 1024 B = 8 rows x 128 B
    %sbo_sf = llvm.mlir.constant(8 : i32) : i32         // 128 B = 8 rows x 16 B
    %lbo0 = llvm.mlir.constant(0 : i32) : i32
    %base0 = llvm.mlir.constant(0 : i8) : i8
    %rel = llvm.mlir.constant(false) : i1
    %sw128 = llvm.mlir.constant(2 : i8) : i8
    %swnone = llvm.mlir.constant(0 : i8) : i8
    %adesc = nvvm.tcgen05.mma_smem_desc (%a_start, %lbo, %sbo, %base0, %rel, %sw128) : (i32, i32, i32, i8, i1, i8) -> i64
    %bdesc = nvvm.tcgen05.mma_smem_desc (%b_start, %lbo, %sbo, %base0, %rel, %sw128) : (i32, i32, i32, i8, i1, i8) -> i64
    %sfa_start = llvm.mlir.constant(3072 : i32) : i32   // 0xC000 >> 4
    %sfb0_start = llvm.mlir.constant(3104 : i32) : i32  // 0xC200 >> 4
    %sfb1_start = llvm.mlir.constant(3136 : i32) : i32  // 0xC400 >> 4
    %sfa_desc = nvvm.tcgen05.mma_smem_desc (%sfa_start, %lbo0, %sbo_sf, %base0, %rel, %swnone) : (i32, i32, i32, i8, i1, i8) -> i64
    %sfb0_desc = nvvm.tcgen05.mma_smem_desc (%sfb0_start, %lbo0, %sbo_sf, %base0, %rel, %swnone) : (i32, i32, i32, i8, i1, i8) -> i64
    %sfb1_desc = nvvm.tcgen05.mma_smem_desc (%sfb1_start, %lbo0, %sbo_sf, %base0, %rel, %swnone) : (i32, i32, i32, i8, i1, i8) -> i64
    // TMEM: accumulator columns [0,256), SFA at 256 (4 cols), SFB at 260 (8 cols)
    %tacc = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
    %c256 = llvm.mlir.constant(256 : i32) : i32
    %c260 = llvm.mlir.constant(260 : i32) : i32
    %c264 = llvm.mlir.constant(264 : i32) : i32
    %tsfa_i = llvm.add %tbase, %c256 : i32
    %tsfb_i = llvm.add %tbase, %c260 : i32
    %tsfb1_i = llvm.add %tbase, %c264 : i32
    %tsfa = llvm.inttoptr %tsfa_i : i32 to !llvm.ptr<6>
    %tsfb = llvm.inttoptr %tsfb_i : i32 to !llvm.ptr<6>
    %tsfb1 = llvm.inttoptr %tsfb1_i : i32 to !llvm.ptr<6>
    nvvm.tcgen05.cp %tsfa, %sfa_desc {shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}
    nvvm.tcgen05.cp %tsfb, %sfb0_desc {shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}
    nvvm.tcgen05.cp %tsfb1, %sfb1_desc {shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}
    // NVFP4: idesc 0x08400480 = E2M1 x E2M1, UE4M3 scales, N=256, M=128, SF ids 0
    %idesc_nv = llvm.mlir.constant(138413184 : i32) : i32
    %false = llvm.mlir.constant(false) : i1
    %true = llvm.mlir.constant(true) : i1
    nvvm.tcgen05.mma.block_scale %tacc, %adesc, %bdesc, %idesc_nv, %false, %tsfa, %tsfb {kind = #nvvm.block_scale_kind<mxf4nvf4>, ctaGroup = #nvvm.cta_group<cta_1>, blockScale = #nvvm.tcgen05_mma_block_scale<block16>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    // next K=64 step inside the same 128-B swizzle atom: start address + 32 B = +2 encoded
    %two = llvm.mlir.constant(2 : i64) : i64
    %adesc1 = llvm.add %adesc, %two : i64
    %bdesc1 = llvm.add %bdesc, %two : i64
    // MXFP4 (same operands reinterpreted): kind::mxf4 block32, UE8M0 (bit 23), SF id 2
    // (second half word of the TMEM scale word): idesc 0x48C004A0
    %idesc_mx = llvm.mlir.constant(1220543648 : i32) : i32
    nvvm.tcgen05.mma.block_scale %tacc, %adesc1, %bdesc1, %idesc_mx, %true, %tsfa, %tsfb {kind = #nvvm.block_scale_kind<mxf4>, ctaGroup = #nvvm.cta_group<cta_1>, blockScale = #nvvm.tcgen05_mma_block_scale<block32>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    nvvm.tcgen05.commit %mbarp : !llvm.ptr<3>
    llvm.br ^epilogue
  ^epilogue:
    // all 4 warps: wait for the commit, then read their 32-lane quarter
    %ticks = llvm.mlir.constant(10000000 : i32) : i32
    nvvm.mbarrier.try_wait.parity %mbarp, %c0, %ticks : !llvm.ptr<3>, i32, i32
    nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %q = llvm.and %warp, %c3 : i32
    %lane0 = llvm.mul %q, %c32 : i32
    %lanebits = llvm.shl %lane0, %c16 : i32
    %taddr_i = llvm.add %tbase, %lanebits : i32
    %taddr = llvm.inttoptr %taddr_i : i32 to !llvm.ptr<6>
    %v = nvvm.tcgen05.ld %taddr {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
    nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
    %v0 = llvm.extractelement %v[%c0 : i32] : vector<32xi32>
    %tid64 = llvm.zext %tid : i32 to i64
    %p = llvm.getelementptr %out[%tid64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
    llvm.store %v0, %p : i32, !llvm.ptr<1>
    nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
    nvvm.barrier0
    llvm.cond_br %is_w0, ^free, ^done
  ^free:
    nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
    %tfree = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
    nvvm.tcgen05.dealloc %tfree, %ncols : !llvm.ptr<6>, i32
    llvm.br ^done
  ^done:
    llvm.return
  }
}
}
