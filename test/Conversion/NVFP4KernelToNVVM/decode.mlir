// The ops of the decode path (tokens converted in the kernel, stream-K):
// each op's lowering.
// RUN: nvfp4-opt %s --convert-nvfp4k-to-nvvm --canonicalize --cse | FileCheck %s

!stream = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 5, stream_k = true>
!conv = !nvfp4k.ring<2, consumers = 8, producers = 96>
!cluster = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 5, cluster = 4>

gpu.module @k {
  // CHECK-LABEL: gpu.func @ring(
  // CHECK-SAME:    %[[I:.*]]: index)
  // A ring of 96 producers: its full barriers count 96 arrivals.
  // CHECK:         %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
  // CHECK:         nvgpu.mbarrier.init %[[BARS]][%c0], %c96
  // CHECK:         nvgpu.mbarrier.init %[[BARS]][%c1], %c96
  // CHECK:         nvgpu.mbarrier.init %[[BARS]][%c2], %c8
  // CHECK:         nvgpu.mbarrier.init %[[BARS]][%c3], %c8
  // ring.arrive: a plain arrival on the position's full barrier.
  // CHECK:         %[[I32:.*]] = arith.index_castui %[[I]] : index to i32
  // CHECK:         %[[S32:.*]] = arith.remui %[[I32]], %c2_i32
  // CHECK:         %[[S:.*]] = arith.index_castui %[[S32]] : i32 to index
  // CHECK:         nvgpu.mbarrier.arrive %[[BARS]][%[[S]]]
  gpu.func @ring(%i: index) kernel {
    %ring = nvfp4k.ring.create : !conv
    nvfp4k.ring.arrive %ring[%i] : !conv
    gpu.return
  }

  // CHECK-LABEL: gpu.func @dequant_codes(
  // CHECK-SAME:    %[[W:.*]]: i32, %[[B:.*]]: i8
  // The scale, widened exactly to f16 and times 64.
  // CHECK:         %[[SB:.*]] = vector.broadcast %[[B]] : i8 to vector<2xi8>
  // CHECK:         %[[SF:.*]] = nvvm.convert.f8x2.to.f16x2 %[[SB]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
  // CHECK:         %[[SC:.*]] = arith.mulf %[[SF]], %{{.*}} : vector<2xf16>
  // Even then odd nibbles, each to E4M3 bits (mag << 2 | sign << 4).
  // CHECK:         %[[EVEN:.*]] = arith.andi %[[W]], %c252645135_i32
  // CHECK:         arith.andi %[[EVEN]], %c117901063_i32
  // CHECK:         arith.andi %[[EVEN]], %c134744072_i32
  // CHECK:         %[[ODD:.*]] = arith.shrui %[[W]], %c4_i32
  // Four exact conversions of value pairs (0,2) (4,6) (1,3) (5,7), each
  // times the scale, interleaved back into order 0..7.
  // CHECK-COUNT-4: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
  // CHECK:         %[[LO:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<2xf16> -> vector<4xf16>
  // CHECK:         %[[HI:.*]] = vector.interleave %{{.*}}, %{{.*}} : vector<2xf16> -> vector<4xf16>
  // CHECK:         vector.shuffle %[[LO]], %[[HI]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf16>, vector<4xf16>
  gpu.func @dequant_codes(%word: i32, %byte: i8, %out: memref<8xf16>) kernel {
    %scale = arith.bitcast %byte : i8 to f8E4M3FN
    %v = nvfp4k.dequant.codes %word, %scale : i32, f8E4M3FN -> vector<8xf16>
    %c0 = arith.constant 0 : index
    vector.store %v, %out[%c0] : memref<8xf16>, vector<8xf16>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @store_tokens(
  // CHECK-SAME:    %[[V:.*]]: vector<16xf16>, %[[R:.*]]: index, %[[Q:.*]]: index
  // Row r of atom q % 2 ([16, 64] f16, 2048 bytes), 4 (q / 2) bytes into
  // its 16-byte unit, the unit swizzled with r % 8.
  // CHECK:         %[[ROW:.*]] = arith.muli %[[R]], %c128
  // CHECK:         %[[ATOM:.*]] = arith.remui %[[Q]], %c2
  // CHECK:         arith.muli %[[ATOM]], %c2048
  // CHECK:         %[[HALF:.*]] = arith.divui %[[Q]], %c2
  // CHECK:         arith.muli %[[HALF]], %c4
  // CHECK:         %[[PHASE:.*]] = arith.remui %[[R]], %c8
  // Values 0 and 2 in unit 0 ^ phase, 1 and 3 in unit 2 ^ phase, 4 and 6 in
  // unit 1 ^ phase, ... (wgmmaFragmentK): eight 32-bit stores.
  // CHECK:         arith.muli %[[PHASE]], %c16
  // CHECK:         vector.extract %[[V]][0]
  // CHECK:         vector.extract %[[V]][2]
  // CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
  // CHECK:         arith.xori %[[PHASE]], %c2
  // CHECK:         vector.extract %[[V]][1]
  // CHECK:         vector.extract %[[V]][3]
  // CHECK:         arith.xori %[[PHASE]], %c1
  // CHECK:         vector.extract %[[V]][4]
  // CHECK:         vector.extract %[[V]][6]
  // CHECK-COUNT-6: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
  // CHECK-NOT:     llvm.store
  gpu.func @store_tokens(%v: vector<16xf16>, %r: index, %q: index) kernel {
    %smem = nvfp4k.shared_memory : memref<4096xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %tile = memref.view %smem[%c0][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<16x128xf16, #gpu.address_space<workgroup>>
    nvfp4k.store_tokens %v, %tile[%r, %q] : vector<16xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @cluster_sum(
  // CHECK-SAME:    %[[ACC:[^:]*]]: vector<4xf32>, %[[X:[^:]*]]: index
  // Thread X of 256 is in slice X / 64, owned by the CTA of that rank.
  // CHECK:         %[[OWNER:.*]] = arith.divui %[[X]], %c64 : index
  // CHECK:         %[[RANK32:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  // CHECK:         %[[RANK:.*]] = arith.index_cast %[[RANK32]] : i32 to index
  // CHECK:         %[[MINE:.*]] = arith.cmpi eq, %[[OWNER]], %[[RANK]] : index
  // The barrier's first phase (the kernel's relaxed arrivals: every CTA
  // runs), then another CTA's slice: the share to the owner's buffer
  // (st.shared::cluster).
  // CHECK:         nvvm.cluster.wait
  // CHECK:         scf.if %{{.*}} {
  // CHECK:           %[[TO:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK:           %[[AT:.*]] = llvm.getelementptr %[[TO]][%{{.*}}] : (!llvm.ptr<7>, i64) -> !llvm.ptr<7>, i8
  // CHECK:           llvm.store %[[ACC]], %[[AT]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<7>
  // CHECK:         }
  // The second phase: release, then acquire.
  // CHECK:         nvvm.cluster.arrive
  // CHECK-NEXT:    nvvm.cluster.wait
  // The own slice: the four ranks' shares added in rank order, the own
  // one from registers (the sum's scf.if and the owner's store fold into
  // one).
  // CHECK:         scf.if %[[MINE]] {
  // CHECK:           %[[L0:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  // CHECK:           %[[P0:.*]] = arith.select %{{.*}}, %[[ACC]], %[[L0]] : vector<4xf32>
  // CHECK:           %[[L1:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  // CHECK:           %[[P1:.*]] = arith.select %{{.*}}, %[[ACC]], %[[L1]] : vector<4xf32>
  // CHECK:           %[[S1:.*]] = arith.addf %[[P0]], %[[P1]] : vector<4xf32>
  // CHECK:           %[[S2:.*]] = arith.addf %[[S1]], %{{.*}} : vector<4xf32>
  // CHECK:           %[[S3:.*]] = arith.addf %[[S2]], %{{.*}} : vector<4xf32>
  // CHECK:           vector.store %[[S3]]
  gpu.func @cluster_sum(%acc: vector<4xf32>, %x: index, %out: memref<4xf32>) kernel {
    %s = nvfp4k.scheduler.create : !cluster
    %buf = memref.alloca() : memref<768xf32, #gpu.address_space<workgroup>>
    %sum, %owner = nvfp4k.scheduler.cluster_sum %s %acc buffer(%buf) thread(%x) {threads = 256 : i64} : !cluster, vector<4xf32>, memref<768xf32, #gpu.address_space<workgroup>>
    scf.if %owner {
      %c0 = arith.constant 0 : index
      vector.store %sum, %out[%c0] : memref<4xf32>, vector<4xf32>
    }
    gpu.return
  }

  // CHECK-LABEL: gpu.func @fixup(
  // CHECK-SAME:    %[[T:[^:]*]]: index, %[[CTA:[^:]*]]: index, %[[CTAS:[^:]*]]: index, %[[N:[^:]*]]: index, %[[K0:[^:]*]]: index, %[[K1:[^:]*]]: index, %[[ACC:[^:]*]]: vector<2xf32>, %[[WS:[^:]*]]: i64, %[[FLAGS:[^:]*]]: i64, %[[X:[^:]*]]: index
  // A unit over all 5 K blocks of its tile needs nothing.
  // CHECK:         %[[WHOLE:.*]] = arith.andi
  // CHECK:         scf.if %[[WHOLE]] -> (vector<2xf32>, i1) {
  // CHECK-NEXT:      scf.yield %[[ACC]], %true{{.*}} : vector<2xf32>, i1
  // CHECK-NEXT:    } else {
  // Shares of q = ceil(N * 5 / CTAS); the tile's contributors first..last.
  // CHECK:           %[[Q:.*]] = arith.divui %{{.*}}, %[[CTAS]] : index
  // CHECK:           %[[FIRST:.*]] = arith.divui %{{.*}}, %[[Q]] : index
  // CHECK:           %[[LAST:.*]] = arith.divui %{{.*}}, %[[Q]] : index
  // This CTA's partial, element-major (e * 256 + thread); after the
  // barrier thread 0 of the 256 alone fences at GPU scope (releasing the
  // whole CTA's stores) and counts the CTA on the tile's flag.
  // CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
  // CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
  // CHECK-NOT:       nvvm.memory.barrier
  // CHECK:           nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
  // CHECK:           %[[LEAD:.*]] = arith.cmpi eq, %[[X]], %c0
  // CHECK:           scf.if %[[LEAD]] {
  // CHECK-NEXT:        nvvm.memory.barrier <gpu>
  // CHECK-NEXT:        %[[OLD:.*]] = llvm.atomicrmw add %{{.*}}, %c1_i32 monotonic
  // The last arrival fences again (acquiring the other CTAs' partials for
  // the CTA) and leaves the flag at 0 for the next launch.
  // CHECK:             scf.if %{{.*}} {
  // CHECK-NEXT:          nvvm.memory.barrier <gpu>
  // CHECK-NEXT:          llvm.store %c0_i32
  // CHECK:             memref.store %{{.*}}, %{{.*}}[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
  // CHECK:           nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
  // CHECK:           %[[OWNER:.*]] = arith.trunci %{{.*}} : i32 to i1
  // The owner sums first..last in order, its own partial from registers,
  // the others' through volatile loads (no fence of their own: the
  // leader's and the barrier order them).
  // CHECK:           scf.if %[[OWNER]] -> (vector<2xf32>) {
  // CHECK-NOT:         nvvm.memory.barrier
  // CHECK:             scf.for %[[C:.*]] = %[[FIRST]] to %{{.*}} step %c1 iter_args(%[[SUM:.*]] = %[[ACC]])
  // CHECK:               %[[MINE:.*]] = arith.cmpi eq, %[[C]], %[[CTA]]
  // CHECK:               %[[PART:.*]] = scf.if %[[MINE]] -> (vector<2xf32>) {
  // CHECK-NEXT:            scf.yield %[[ACC]]
  // CHECK:                 llvm.load volatile
  // CHECK:                 llvm.load volatile
  // CHECK:               %[[ADD:.*]] = arith.addf %[[SUM]], %[[PART]] : vector<2xf32>
  // CHECK:               %[[START:.*]] = arith.cmpi eq, %[[C]], %[[FIRST]]
  // CHECK:               arith.select %[[START]], %[[PART]], %[[ADD]]
  gpu.func @fixup(%t: index, %cta: index, %ctas: index, %n: index, %k0: index, %k1: index, %acc: vector<2xf32>, %ws: i64, %flags: i64, %x: index, %out: memref<2xf32>) kernel {
    %s = nvfp4k.scheduler.create : !stream
    %word = memref.alloca() : memref<1xi32, #gpu.address_space<workgroup>>
    %sum, %owner = nvfp4k.scheduler.fixup %s[%t] cta(%cta, %ctas) count(%n) k(%k0, %k1) %acc workspace(%ws) flags(%flags) flag(%word) thread(%x) {barrier = 1 : i64, threads = 256 : i64} : !stream, vector<2xf32>, memref<1xi32, #gpu.address_space<workgroup>>
    scf.if %owner {
      %c0 = arith.constant 0 : index
      vector.store %sum, %out[%c0] : memref<2xf32>, vector<2xf32>
    }
    gpu.return
  }
}
