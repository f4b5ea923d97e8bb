// nvfp4-emulate-tcgen05: every tcgen05 op of a gpu.module becomes a call of
// the module's emulation function (or, for ld/st/fence/wait, plain memory
// operations), with tensor memory, the allocator state and the queue of
// issued, uncommitted ops as global arrays sized by max-ctas; the E2M1
// conversion becomes the contract's rounding. What the functions compute
// runs on the H200 (test/Integration/GPU/emulate-tcgen05.test).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-emulate-tcgen05="max-ctas=2" | FileCheck %s

// CHECK-LABEL: gpu.module @kernel
// 2 CTAs x 128 lanes x 512 columns; 2 x 256 rows x 20 words; 2 x 8 state
// words; 2 x 64 records x 12 words.
// CHECK-DAG: llvm.mlir.global internal @__nvfp4_emu_tmem() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<131072 x i32>
// CHECK-DAG: llvm.mlir.global internal @__nvfp4_emu_scratch() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<10240 x i32>
// CHECK-DAG: llvm.mlir.global internal @__nvfp4_emu_state() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<16 x i32>
// CHECK-DAG: llvm.mlir.global internal @__nvfp4_emu_queue() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<1536 x i32>
// CHECK: gpu.func @k(%[[SLOT:.*]]: !llvm.ptr<3>, %[[BAR:.*]]: !llvm.ptr<3>, %[[ADESC:.*]]: i64, %[[BDESC:.*]]: i64, %[[SDESC:.*]]: i64, %[[EN:.*]]: i1)
// The entry count first (overlapping launches of the kernel trap).
// CHECK-NEXT: llvm.call @__nvfp4_emu_enter()
// CHECK-NOT: nvvm.tcgen05
// CHECK: llvm.call @__nvfp4_emu_tcgen05_alloc(%[[SLOT]], %c256_i32)
// CHECK: llvm.call @__nvfp4_emu_tcgen05_relinquish()
// CHECK: nvvm.memory.barrier <cta>
// CHECK: %[[T:.*]] = llvm.load %[[SLOT]] : !llvm.ptr<3> -> i32
// The scale copy: 32 rows of 16 bytes, multicast warpx4 (3).
// CHECK: %[[SF:.*]] = arith.addi %[[T]], %c128_i32
// CHECK: llvm.call @__nvfp4_emu_tcgen05_cp(%[[SF]], %[[SDESC]], %c32_i32, %c1_i32, %c3_i32)
// The MMA: D, descriptors, idesc, enable-input-d, SFA, SFB, kind mxf4nvf4.
// CHECK: llvm.call @__nvfp4_emu_tcgen05_mma_block_scale_block16(%[[T]], %[[ADESC]], %[[BDESC]], %c136316032_i32, %[[EN]], %[[SF]], %[[SF]], %c1_i32{{.*}})
// Commit: the queued ops run, then the fence and the arrive (below).
// CHECK: llvm.call @__nvfp4_emu_tcgen05_commit(%[[BAR]])
// The accumulator load: warp quarter and allocation checks, then a load of
// 32 consecutive columns of this thread's lane.
// CHECK: gpu.printf
// CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<32xi32>
// CHECK: vector.extract %[[V]][0]
// CHECK: llvm.call @__nvfp4_emu_tcgen05_dealloc(%[[T]], %c256_i32)
// The exit check before the return.
// CHECK: llvm.call @__nvfp4_emu_exit()
// CHECK-NEXT: gpu.return

// alloc: lane 0 takes a run (a compare-and-swap retried while the run is
// free); then the warp fills it with all-ones (NaN), 4 columns a store, the
// ISA leaving new tensor memory undefined.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_alloc(
// CHECK: scf.while
// CHECK: llvm.cmpxchg
// CHECK: nvvm.bar.warp.sync
// CHECK: %[[POISON:.*]] = arith.constant dense<-1> : vector<4xi32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: llvm.store %[[POISON]], %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_relinquish(

// Issuing cp and mma only records them: take the queue (compare-and-swap of
// the issuing thread), append kind + operands (i64 as two words). Nothing
// is read from shared memory or tensor memory yet.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_cp(
// CHECK: llvm.cmpxchg
// CHECK: llvm.mlir.addressof @__nvfp4_emu_queue
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: @__nvfp4_emu_tmem
// CHECK: llvm.return
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_mma_block_scale_block16(
// CHECK: llvm.cmpxchg
// CHECK: llvm.mlir.addressof @__nvfp4_emu_queue
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: @__nvfp4_emu_tmem
// CHECK: llvm.return

// The commit of the issuing thread executes the records in order, frees the
// queue, then fences and arrives.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_commit(
// CHECK-SAME:    %[[MBAR:.*]]: !llvm.ptr<3>)
// CHECK: scf.for
// CHECK: llvm.call @__nvfp4_emu_exec_cp(
// CHECK: llvm.call @__nvfp4_emu_exec_mma_block_scale_block16(
// CHECK: llvm.atomicrmw xchg
// CHECK: nvvm.memory.barrier <cta>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[MBAR]] : !llvm.ptr<3>
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_exec_cp(
// The MMA: per K block an exact integer dot product (dp4a), scaled in f64
// (exact) and rounded once to f32, the blocks summed in f32.
// A scale-factor address is a column; bits 30-31 may repeat the SF ID (as
// NVIDIA's CuTe DSL emits them, docs/design/cutedsl.md), other lane bits trap.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_exec_mma_block_scale_block16(
// CHECK: tcgen05.mma: scale factors A at 0x%x: a lane field other than the SF ID (%u) in bits 30-31
// CHECK: tcgen05.mma: scale factors B at 0x%x: a lane field other than the SF ID (%u) in bits 30-31
// CHECK: nvvm.dot.accumulate.4way
// CHECK: %[[DOT:.*]] = arith.sitofp %{{.*}} : i32 to f64
// CHECK: %[[P:.*]] = arith.mulf %[[DOT]], %{{.*}} : f64
// CHECK: %[[Q:.*]] = arith.mulf %[[P]], %{{.*}} : f64
// CHECK: %[[R:.*]] = arith.truncf %[[Q]] : f64 to f32
// CHECK: arith.addf %{{.*}}, %[[R]] : f32
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_dealloc(
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_enter()
// CHECK: started while the same CTA of another launch of this kernel runs
// The exit check: nothing left allocated or in flight.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_exit()
// CHECK: the kernel exits with %u tcgen05 ops issued and never committed
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

// -----

// The E2M1 conversion anywhere (the portable quantize kernels are still
// gpu.launch bodies when the pass runs): `cvt d, a, b` puts a in the high
// nibble, each through the contract's RNE encoding (NaN -> +6, saturating).
// CHECK-LABEL: func.func @convert(
// CHECK-SAME:    %[[A:.*]]: f32, %[[B:.*]]: f32)
// CHECK-NOT: nvvm.convert.f32x2.to.f4x2
// CHECK: arith.minnumf %[[A]], %cst
// CHECK: arith.minnumf %[[B]], %cst
// CHECK: %[[HI:.*]] = arith.shli %{{.*}}, %c4_i32 : i32
// CHECK: %[[BYTE:.*]] = arith.ori %[[HI]], %{{.*}} : i32
// CHECK: arith.trunci %[[BYTE]] : i32 to i8
func.func @convert(%a: f32, %b: f32) -> i8 {
  %r = nvvm.convert.f32x2.to.f4x2 %a, %b : i8 (f4E2M1FN)
  return %r : i8
}

// -----

// A kernel already in LLVM + NVVM (an llvm.func with nvvm.kernel, as an
// imported CuTe DSL kernel is, docs/design/cutedsl.md) gets the entry count
// and, before each of its returns, the exit check; helpers without
// nvvm.kernel do not.
// CHECK-LABEL: gpu.module @llvm_kernel
// CHECK:       llvm.func @k(
// CHECK-NEXT:    llvm.call @__nvfp4_emu_enter() : () -> ()
// CHECK:         llvm.call @__nvfp4_emu_tcgen05_alloc(
// CHECK:         llvm.call @__nvfp4_emu_exit() : () -> ()
// CHECK-NEXT:    llvm.return
// CHECK:         llvm.call @__nvfp4_emu_exit() : () -> ()
// CHECK-NEXT:    llvm.return
// CHECK:       llvm.func @helper(
// CHECK-NOT:     __nvfp4_emu_enter
// CHECK:         llvm.return
gpu.module @llvm_kernel {
  llvm.func @k(%slot: !llvm.ptr<3>, %early: i1) attributes {nvvm.kernel} {
    %c32 = llvm.mlir.constant(32 : i32) : i32
    nvvm.tcgen05.alloc %slot, %c32 : !llvm.ptr<3>, i32
    llvm.cond_br %early, ^bb1, ^bb2
  ^bb1:
    llvm.return
  ^bb2:
    llvm.return
  }
  llvm.func @helper() {
    llvm.return
  }
}

// -----

// A CTA pair (cta_group::2): the ops become calls of the same functions,
// built for the pair.
// CHECK-LABEL: gpu.module @pair
// A scratch mbarrier per warp in shared memory, for forwarded loads.
// CHECK: llvm.mlir.global internal @__nvfp4_emu_load_barriers() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<32 x i64>
// CHECK: llvm.func @k(%[[SLOT:.*]]: !llvm.ptr<3>, %[[BAR:.*]]: !llvm.ptr<3>, %[[DST:.*]]: !llvm.ptr<7>, %[[MAP:.*]]: !llvm.ptr, %[[X:.*]]: i32, %[[MASK:.*]]: i16,
// The load: forwarded when its mbarrier's CTA parity differs from the
// destination's (the scratch barrier of this warp, begin, a Hopper load
// on it, end); a plain Hopper load (no .cta_group) otherwise.
// CHECK: %[[B:.*]] = llvm.ptrtoint %[[BAR]] : !llvm.ptr<3> to i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.getctarank.shared.cluster"
// CHECK: scf.if
// CHECK: %[[S:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i64
// CHECK: llvm.call @__nvfp4_emu_pair_load_begin(%[[S]], %[[MAP]], %{{.*}}, %c0_i32)
// CHECK: %[[HERE:.*]] = nvvm.mapa
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[HERE]], %[[MAP]], %[[S]], box[%[[X]], %[[X]]] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NEXT: llvm.call @__nvfp4_emu_pair_load_end(%[[S]], %[[MAP]], %{{.*}}, %[[B]], %c0_i32)
// CHECK-NEXT: } else {
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %[[MAP]], %[[BAR]], box[%[[X]], %[[X]]] : !llvm.ptr<7>, !llvm.ptr
// The multicast load: forwarded when a destination of the other parity is
// in the mask.
// CHECK: %[[M32:.*]] = arith.extui %[[MASK]] : i16 to i32
// CHECK: arith.select %{{.*}}, %c43690_i32, %c21845_i32
// CHECK: llvm.call @__nvfp4_emu_pair_load_begin(%{{.*}}, %[[MAP]], %{{.*}}, %[[M32]])
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %[[MAP]], %[[BAR]], box[%[[X]], %[[X]]] multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
// CHECK: llvm.call @__nvfp4_emu_tcgen05_alloc(%[[SLOT]]
// CHECK: llvm.call @__nvfp4_emu_tcgen05_cp(
// CHECK: llvm.call @__nvfp4_emu_tcgen05_mma_block_scale_block16(
// CHECK: llvm.call @__nvfp4_emu_tcgen05_commit_multicast(%[[BAR]], %{{.*}})
// CHECK: llvm.call @__nvfp4_emu_tcgen05_commit(%[[BAR]])
// Forwarding: the load's bytes from the map's box; the scratch barrier
// initialized and expecting them; after the load, the copies to the
// multicast's other destinations and the complete-tx on the mbarrier of
// each destination's pair CTA of the operand's parity.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_pair_load_begin(
// CHECK: nvvm.mbarrier.init
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_pair_load_end(
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.mbarrier.inval
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<7>
// CHECK: nvvm.mbarrier.complete_tx %{{.*}}, %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
// Alloc: each CTA of the pair allocates in its own tensor memory, then
// waits for the other's allocation (a rendezvous through the state words).
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_alloc(
// CHECK: scf.while
// CHECK: llvm.atomicrmw add
// CHECK: scf.while
// The commits: arrivals at cluster scope, on the mbarrier the address names
// (which may be the other CTA's) or on each CTA of the multicast mask.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_commit_multicast(
// CHECK: nvvm.memory.barrier <gpu>
// CHECK: scf.for
// CHECK: nvvm.mapa
// CHECK: nvvm.mbarrier.arrive %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// The copy: from each CTA's shared memory into its tensor memory.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_exec_cp(
// CHECK: nvvm.mapa
// The pair's MMA: 128 rows of A and D in each CTA; B's first N/2 rows from
// the even CTA, the rest from the odd one (distributed shared memory).
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_exec_mma_block_scale_block16(
// CHECK: M = %u (cta_group::2: M = 256, 128 rows in each CTA of the pair, is what is emulated)
// CHECK: nvvm.mapa
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_tcgen05_commit(
// CHECK: llvm.call_intrinsic "llvm.nvvm.getctarank.shared.cluster"
// CHECK: nvvm.mbarrier.arrive %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
gpu.module @pair {
  llvm.func @k(%slot: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %dst: !llvm.ptr<7>, %map: !llvm.ptr, %x: i32, %mask: i16, %adesc: i64, %sdesc: i64, %en: i1) attributes {nvvm.kernel} {
    %c256 = arith.constant 256 : i32
    %idesc = arith.constant 272630912 : i32
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x, %x] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
    nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bar, box[%x, %x] multicast_mask = %mask {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
    nvvm.tcgen05.alloc %slot, %c256 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
    %t = llvm.load %slot : !llvm.ptr<3> -> i32
    %d = llvm.inttoptr %t : i32 to !llvm.ptr<6>
    nvvm.tcgen05.cp %d, %sdesc {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
    nvvm.tcgen05.mma.block_scale %d, %adesc, %adesc, %idesc, %en, %d, %d {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.block_scale_kind<mxf4nvf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
    nvvm.tcgen05.commit %bar, multicast_mask = %mask {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
    nvvm.tcgen05.commit %bar {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>
    nvvm.tcgen05.dealloc %d, %c256 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
    llvm.return
  }
}
