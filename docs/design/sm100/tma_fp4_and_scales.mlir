// tma_fp4_and_scales.mlir -- compile-only sm_100a prototype (MLIR/LLVM 22.1.8, ptxas 13.0).
// Generated/verified by docs/design/sm100/build.sh.
//
// Command:
//   mlir-opt tma_fp4_and_scales.mlir --convert-nvvm-to-llvm --gpu-module-to-binary=format=isa -o tma_fp4_and_scales.isa.mlir
//   python3 extract_ptx.py tma_fp4_and_scales.isa.mlir tma_fp4_and_scales.ptx
//   ptxas -arch=sm_100a -v tma_fp4_and_scales.ptx -o tma_fp4_and_scales.cubin
// ptxas said:
//   ptxas info    : 0 bytes gmem
//   ptxas info    : Compiling entry function 'tma_fp4_stage' for 'sm_100a'
//   ptxas info    : Function properties for tma_fp4_stage
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 6 registers, used 1 barriers
// ---- end of generated header ----
// TMA of packed FP4 with 128B swizzle + 1-D bulk copies of 512-B scale units.
//
// Host side (not expressible in nvgpu, see nvgpu_tma_*.mlir / README): one
// cuTensorMapEncodeTiled per operand with
//   dataType CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B (= 13, packed nibbles, no gaps)
//   rank 2, globalDim {K, rows} (FP4 elements), globalStrides {K/2} (bytes)
//   boxDim {256, 128 or BN} (256 FP4 = 128 B = one SW128 row), elementStrides {1,1}
//   CU_TENSOR_MAP_SWIZZLE_128B, interleave NONE, OOB fill NONE.
// The map is passed by value as a 128-B, 64-aligned __grid_constant__ kernel
// parameter: {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64, nvvm.grid_constant}
// -> `.param .align 64 .b8 p[128]` + cvta.param in PTX.
//
// Device side: nvvm.cp.async.bulk.tensor.shared.cluster.global in tile mode
// (no im2col), coordinates {k_elem, row}; the destination is shared::cta
// (isCTAOnly = true, !llvm.ptr<3>) or shared::cluster (!llvm.ptr<7>).
// Scales: nvvm.cp.async.bulk.shared.cluster.global, 2048 B = 4 contiguous
// 512-B units (128 rows x K=256 for block16).  One mbarrier per stage with
// arrive.expect_tx = A + B + SFA + SFB bytes.
module attributes {gpu.container_module} {
gpu.module @tma [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.mlir.global external @smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
  llvm.func @tma_fp4_stage(%tmA: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
                           %tmB: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
                           %sfa: !llvm.ptr<1>, %sfb: !llvm.ptr<1>, %kb: i32, %m0: i32, %n0: i32, %K: i32)
      attributes {nvvm.kernel, nvvm.reqntid = array<i32: 32, 1, 1>} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c256 = llvm.mlir.constant(256 : i32) : i32
    %c128 = llvm.mlir.constant(128 : i32) : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    %c512 = llvm.mlir.constant(512 : i64) : i64
    %c1023 = llvm.mlir.constant(1023 : i32) : i32
    %cm1024 = llvm.mlir.constant(-1024 : i32) : i32
    // 1024-B aligned base (SW128 atoms must sit on 1024-B boundaries)
    %g = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %graw = llvm.ptrtoint %g : !llvm.ptr<3> to i32
    %t0 = llvm.add %graw, %c1023 : i32
    %base = llvm.and %t0, %cm1024 : i32
    // stage layout: A 16384 B @0, B 32768 B @16384, SFA 2048 B @49152, SFB 4096 B @51200, mbar @55296
    %oB = llvm.mlir.constant(16384 : i32) : i32
    %oSFA = llvm.mlir.constant(49152 : i32) : i32
    %oSFB = llvm.mlir.constant(51200 : i32) : i32
    %oSFB1 = llvm.mlir.constant(53248 : i32) : i32
    %oBar = llvm.mlir.constant(55296 : i32) : i32
    %aA = llvm.inttoptr %base : i32 to !llvm.ptr<3>
    %bi = llvm.add %base, %oB : i32
    %aB = llvm.inttoptr %bi : i32 to !llvm.ptr<3>
    %sai = llvm.add %base, %oSFA : i32
    %aSFA = llvm.inttoptr %sai : i32 to !llvm.ptr<3>
    %sbi = llvm.add %base, %oSFB : i32
    %aSFB = llvm.inttoptr %sbi : i32 to !llvm.ptr<3>
    %sbi1 = llvm.add %base, %oSFB1 : i32
    %aSFB1 = llvm.inttoptr %sbi1 : i32 to !llvm.ptr<3>
    %mi = llvm.add %base, %oBar : i32
    %mbar = llvm.inttoptr %mi : i32 to !llvm.ptr<3>
    %p = nvvm.elect.sync -> i1
    llvm.cond_br %p, ^init, ^synced
  ^init:
    nvvm.mbarrier.init %mbar, %c1 : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    llvm.br ^synced
  ^synced:
    nvvm.barrier0
    %p2 = nvvm.elect.sync -> i1
    llvm.cond_br %p2, ^issue, ^wait
  ^issue:
    // 16384 (A: 128 x 128 B) + 32768 (B: 256 x 128 B) + 2048 (SFA) + 4096 (SFB)
    %tx = llvm.mlir.constant(55296 : i32) : i32
    nvvm.mbarrier.arrive.expect_tx %mbar, %tx : !llvm.ptr<3>, i32
    %kx = llvm.mul %kb, %c256 : i32      // FP4-element coordinate (16U4_ALIGN8B map)
    nvvm.cp.async.bulk.tensor.shared.cluster.global %aA, %tmA, %mbar, box[%kx, %m0] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
    // same copy for B, spelled with a shared::cluster destination
    %aBc = llvm.addrspacecast %aB : !llvm.ptr<3> to !llvm.ptr<7>
    nvvm.cp.async.bulk.tensor.shared.cluster.global %aBc, %tmB, %mbar, box[%kx, %n0] : !llvm.ptr<7>, !llvm.ptr
    // scale units: unit index = (row / 128) * (K / 64) + kb * 4, 512 B each, 4 per stage
    %upr = llvm.udiv %K, %c64 : i32
    %c4i = llvm.mlir.constant(4 : i32) : i32
    %k4 = llvm.mul %kb, %c4i : i32
    %rbA = llvm.udiv %m0, %c128 : i32
    %uA0 = llvm.mul %rbA, %upr : i32
    %uA = llvm.add %uA0, %k4 : i32
    %uA64 = llvm.zext %uA : i32 to i64
    %offA = llvm.mul %uA64, %c512 : i64
    %srcA = llvm.getelementptr %sfa[%offA] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    %n2048 = llvm.mlir.constant(2048 : i32) : i32
    nvvm.cp.async.bulk.shared.cluster.global %aSFA, %srcA, %mbar, %n2048 : !llvm.ptr<3>, !llvm.ptr<1>
    %rbB = llvm.udiv %n0, %c128 : i32
    %uB0 = llvm.mul %rbB, %upr : i32
    %uB = llvm.add %uB0, %k4 : i32
    %uB64 = llvm.zext %uB : i32 to i64
    %offB = llvm.mul %uB64, %c512 : i64
    %srcB = llvm.getelementptr %sfb[%offB] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    nvvm.cp.async.bulk.shared.cluster.global %aSFB, %srcB, %mbar, %n2048 : !llvm.ptr<3>, !llvm.ptr<1>
    %uB1 = llvm.add %uB, %upr : i32       // next 128 rows of B
    %uB164 = llvm.zext %uB1 : i32 to i64
    %offB1 = llvm.mul %uB164, %c512 : i64
    %srcB1 = llvm.getelementptr %sfb[%offB1] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
    nvvm.cp.async.bulk.shared.cluster.global %aSFB1, %srcB1, %mbar, %n2048 : !llvm.ptr<3>, !llvm.ptr<1>
    llvm.br ^wait
  ^wait:
    %ticks = llvm.mlir.constant(10000000 : i32) : i32
    nvvm.mbarrier.try_wait.parity %mbar, %c0, %ticks : !llvm.ptr<3>, i32, i32
    llvm.return
  }
}
}
