// Round trip of every nvfp4k op and type.
// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s

!ring = !nvfp4k.ring<5, consumers = 8>
!sched = !nvfp4k.scheduler<mode = contiguous, groups = 8, rows = 1184, weight_tiles = 32, weight_rows = 128, token_tile = 128, granule = 32>
!isched = !nvfp4k.scheduler<mode = independent, groups = 2, rows = 512, weight_tiles = 32, weight_rows = 128, token_tile = 128, granule = 0, group_rows = [128, 384]>
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>>

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @ring
  gpu.func @ring(%i: index, %bytes: index, %map: !map, %src: i64) kernel {
    // CHECK: %[[SMEM:.*]] = nvfp4k.shared_memory : memref<41984xi8, #gpu.address_space<workgroup>>
    %smem = nvfp4k.shared_memory : memref<41984xi8, #gpu.address_space<workgroup>>
    // CHECK: %[[R:.*]] = nvfp4k.ring.create : <5, consumers = 8>
    %ring = nvfp4k.ring.create : !ring
    // CHECK: nvfp4k.ring.stage %[[R]][%{{.*}}] : <5, consumers = 8>
    %s = nvfp4k.ring.stage %ring[%i] : !ring
    // CHECK: nvfp4k.ring.wait_empty %[[R]]
    nvfp4k.ring.wait_empty %ring[%i] : !ring
    // CHECK: nvfp4k.ring.expect_tx %[[R]][%{{.*}}], %{{.*}} : <5, consumers = 8>
    nvfp4k.ring.expect_tx %ring[%i], %bytes : !ring
    %c0 = arith.constant 0 : index
    %c1024 = arith.constant 1024 : index
    %c32768 = arith.constant 32768 : index
    %tok = memref.view %smem[%c0][] : memref<41984xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    // CHECK: nvfp4k.tma.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %[[R]][%{{.*}}] : <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>, memref<128x64xf16, #gpu.address_space<workgroup>>, <5, consumers = 8>
    nvfp4k.tma.load %map[%c0, %i], %tok, %ring[%i] : !map, memref<128x64xf16, #gpu.address_space<workgroup>>, !ring
    %sc = memref.view %smem[%c32768][] : memref<41984xi8, #gpu.address_space<workgroup>> to memref<1024xi8, #gpu.address_space<workgroup>>
    // CHECK: nvfp4k.bulk.load %{{.*}}, %{{.*}}, %{{.*}}, %[[R]][%{{.*}}] : memref<1024xi8, #gpu.address_space<workgroup>>, <5, consumers = 8>
    nvfp4k.bulk.load %src, %sc, %c1024, %ring[%i] : memref<1024xi8, #gpu.address_space<workgroup>>, !ring
    // CHECK: nvfp4k.ring.wait_full %[[R]]
    nvfp4k.ring.wait_full %ring[%i] : !ring
    // CHECK: nvfp4k.ring.release %[[R]]
    nvfp4k.ring.release %ring[%i] : !ring
    gpu.return
  }

  // CHECK-LABEL: gpu.func @scheduler
  gpu.func @scheduler(%offsets: i64, %t: index, %g: index) kernel {
    // CHECK: %[[S:.*]] = nvfp4k.scheduler.create %{{.*}} : <mode = contiguous, groups = 8, rows = 1184, weight_tiles = 32, weight_rows = 128, token_tile = 128, granule = 32>
    %sched = nvfp4k.scheduler.create %offsets : !sched
    // CHECK: nvfp4k.scheduler.count %[[S]]
    %n = nvfp4k.scheduler.count %sched : !sched
    // CHECK: nvfp4k.scheduler.tile %[[S]][%{{.*}}]
    %tile:7 = nvfp4k.scheduler.tile %sched[%t] : !sched
    // CHECK: nvfp4k.scheduler.tile %[[S]][%{{.*}}] from(%{{.*}}, %{{.*}})
    %next:7 = nvfp4k.scheduler.tile %sched[%t] from(%tile#0, %tile#6) : !sched
    // CHECK: nvfp4k.scheduler.blocks_before %[[S]][%{{.*}}] {block = 128 : i64}
    %b = nvfp4k.scheduler.blocks_before %sched[%g] {block = 128 : i64} : !sched
    // CHECK: nvfp4k.scheduler.group_of %[[S]][%{{.*}}] : <mode = contiguous
    %grp, %start = nvfp4k.scheduler.group_of %sched[%t] : !sched
    // CHECK: nvfp4k.scheduler.create : <mode = independent, {{.*}}, group_rows = [128, 384]>
    %isched = nvfp4k.scheduler.create : !isched
    %in = nvfp4k.scheduler.count %isched : !isched
    gpu.return
  }

  // CHECK-LABEL: gpu.func @fragment_load
  gpu.func @fragment_load(%w: memref<2048xi32, #gpu.address_space<workgroup>>, %s: memref<256xi32, #gpu.address_space<workgroup>>, %m: memref<128xi32, #gpu.address_space<workgroup>>, %j: index, %t: index, %n: index, %last: i1) kernel {
    // CHECK: nvfp4k.fragment_a.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    %c0, %b0 = nvfp4k.fragment_a.load %w, %s[%j, %t] : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    // CHECK: nvfp4k.fragment_a.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] rows(%{{.*}}) tail(%{{.*}}) {tail_chunks = 2 : i64} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    %c1, %b1 = nvfp4k.fragment_a.load %w, %s[%j, %t] rows(%n) tail(%last) {tail_chunks = 2 : i64} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    // CHECK: nvfp4k.fragment_a.load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] rows(%{{.*}}) {mxfp4} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<128xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    %c2, %b2 = nvfp4k.fragment_a.load %w, %m[%j, %t] rows(%n) {mxfp4} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<128xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @mma
  gpu.func @mma(%codes: vector<2x2xi32>, %scales: vector<2xf8E4M3FN>, %acc: vector<64xf32>, %desc: !desc, %w: index, %p: i1) kernel {
    // CHECK: %[[A:.*]] = nvfp4k.dequant.fragment_a %{{.*}}, %{{.*}} : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xf16>
    %a = nvfp4k.dequant.fragment_a %codes, %scales : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xf16>
    // CHECK: nvfp4k.wgmma.rs %{{.*}}, %[[A]], %{{.*}} width(%{{.*}}) scale_d(%{{.*}}) {k_offset = 64 : i64, n = array<i64: 32, 64, 96, 128>}
    %d = nvfp4k.wgmma.rs %acc, %a, %desc width(%w) scale_d(%p) {k_offset = 64 : i64, n = array<i64: 32, 64, 96, 128>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    // CHECK: nvfp4k.wgmma.rs %{{.*}}, %[[A]], %{{.*}} {k_offset = 0 : i64, n = array<i64: 128>}
    %e = nvfp4k.wgmma.rs %d, %a, %desc {k_offset = 0 : i64, n = array<i64: 128>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @epilogue
  gpu.func @epilogue(%g: index, %da: i64, %db: i64, %al: i64, %v: vector<2xf32>, %out: i64, %acc: i64, %r: index, %c: index, %rows: index, %cols: index) kernel {
    // CHECK: nvfp4k.alpha %{{.*}} a_decode(%{{.*}}) b_decode(%{{.*}}) alpha(%{{.*}}) {b_decode_per_group} : f32
    %alpha = nvfp4k.alpha %g a_decode(%da) b_decode(%db) alpha(%al) {b_decode_per_group} : f32
    // CHECK: nvfp4k.alpha %{{.*}} : f32
    %one = nvfp4k.alpha %g : f32
    // CHECK: nvfp4k.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] bounds(%{{.*}}, %{{.*}}) alpha(%{{.*}}) {element = bf16, row_stride = 4096 : i64} : vector<2xf32>
    nvfp4k.store %v, %out[%r, %c] bounds(%rows, %cols) alpha(%alpha) {element = bf16, row_stride = 4096 : i64} : vector<2xf32>
    // A bias (bf16 values) before the accumulator.
    // CHECK: nvfp4k.store {{.*}} alpha(%{{.*}}) bias(%{{.*}}) acc(%{{.*}}) {bias_element = bf16, element = f32, row_stride = 64 : i64}
    nvfp4k.store %v, %out[%r, %c] bounds(%rows, %cols) alpha(%alpha) bias(%da) acc(%acc) {bias_element = bf16, element = f32, row_stride = 64 : i64} : vector<2xf32>
    // A fused swiglu (gpt-oss's parameters; the matmul rounded to bf16).
    // CHECK: nvfp4k.store {{.*}} {element = bf16, row_stride = 4096 : i64, swiglu = #nvfp4k.swiglu<intermediate = bf16, sigmoid_scale = 1.702000e+00 : f32, limit = 7.000000e+00 : f32, up_offset = 1.000000e+00 : f32>} : vector<2xf32>
    nvfp4k.store %v, %out[%r, %c] bounds(%rows, %cols) alpha(%alpha) {element = bf16, row_stride = 4096 : i64, swiglu = #nvfp4k.swiglu<intermediate = bf16, sigmoid_scale = 1.702 : f32, limit = 7.0 : f32, up_offset = 1.0 : f32>} : vector<2xf32>
    // CHECK: nvfp4k.store {{.*}} acc(%{{.*}}) {beta = 5.000000e-01 : f32, element = f32, row_stride = 64 : i64}
    nvfp4k.store %v, %out[%r, %c] bounds(%rows, %cols) alpha(%one) acc(%acc) {beta = 0.5 : f32, element = f32, row_stride = 64 : i64} : vector<2xf32>
    // Row-scaled operands: alpha per output, one per stored element.
    // CHECK: nvfp4k.alpha %{{.*}} a_decode(%{{.*}}) b_decode(%{{.*}}) row(%{{.*}}) column(%{{.*}}) {a_decode_per_row, b_decode_per_row} : f32
    %e = nvfp4k.alpha %g a_decode(%da) b_decode(%db) row(%r) column(%c) {a_decode_per_row, b_decode_per_row} : f32
    %ev = vector.broadcast %e : f32 to vector<2xf32>
    // CHECK: nvfp4k.store {{.*}} alpha(%{{.*}} : vector<2xf32>) {element = bf16, row_stride = 4096 : i64} : vector<2xf32>
    nvfp4k.store %v, %out[%r, %c] bounds(%rows, %cols) alpha(%ev : vector<2xf32>) {element = bf16, row_stride = 4096 : i64} : vector<2xf32>
    gpu.return
  }
}

!fp4 = memref<128x128xui8, #gpu.address_space<workgroup>>
!units = memref<2048xi8, #gpu.address_space<workgroup>>
!ring1 = !nvfp4k.ring<6, consumers = 1>
gpu.module @tcgen05 {
  // CHECK-LABEL: gpu.func @scaled_mma
  gpu.func @scaled_mma(%acc: i32, %a: !fp4, %b: !fp4, %sa: !units, %sb: !units, %cols: i32, %ks: index, %shift: i32, %i: index) kernel {
    // CHECK: nvfp4k.tcgen05.scaled_mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {b_scale_blocks = 1 : i64, n = 128 : i64, steps = 4 : i64, total_steps = 112 : i64, total_units = 112 : i64, units = 4 : i64} : memref<128x128xui8
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %ks, %shift {b_scale_blocks = 1 : i64, n = 128 : i64, steps = 4 : i64, total_steps = 112 : i64, total_units = 112 : i64, units = 4 : i64} : !fp4, !fp4, !units, !units
    %ring = nvfp4k.ring.create : !ring1
    // CHECK: nvfp4k.tcgen05.commit %{{.*}}[%{{.*}}], <empty> : <6, consumers = 1>
    nvfp4k.tcgen05.commit %ring[%i], <empty> : !ring1
    // CHECK: nvfp4k.tcgen05.commit %{{.*}}[%{{.*}}], <full> : <6, consumers = 1>
    nvfp4k.tcgen05.commit %ring[%i], <full> : !ring1
    gpu.return
  }
}

!stream = !nvfp4k.scheduler<mode = contiguous, groups = 8, rows = 1184, weight_tiles = 32, weight_rows = 128, token_tile = 64, granule = 8, k_blocks = 16, stream_k = true>
!conv = !nvfp4k.ring<4, consumers = 8, producers = 96>
gpu.module @decode {
  // CHECK-LABEL: gpu.func @work_units
  gpu.func @work_units(%offsets: i64, %cta: index, %ctas: index, %acc: vector<32xf32>, %ws: i64, %flags: i64, %x: index) kernel {
    // CHECK: %[[S:.*]] = nvfp4k.scheduler.create %{{.*}} : <mode = contiguous, groups = 8, rows = 1184, weight_tiles = 32, weight_rows = 128, token_tile = 64, granule = 8, k_blocks = 16, stream_k = true>
    %s = nvfp4k.scheduler.create %offsets : !stream
    %n = nvfp4k.scheduler.count %s : !stream
    // CHECK: nvfp4k.scheduler.units %[[S]] cta(%{{.*}}, %{{.*}}) count(%{{.*}}) : <mode = contiguous
    %units = nvfp4k.scheduler.units %s cta(%cta, %ctas) count(%n) : !stream
    // CHECK: %[[T:.*]], %[[K0:.*]], %[[K1:.*]], %{{.*}} = nvfp4k.scheduler.unit %[[S]][%{{.*}}] cta(%{{.*}}, %{{.*}}) count(%{{.*}})
    %t, %k0, %k1, %pos = nvfp4k.scheduler.unit %s[%x] cta(%cta, %ctas) count(%n) : !stream
    %word = memref.alloca() : memref<1xi32, #gpu.address_space<workgroup>>
    // CHECK: nvfp4k.scheduler.fixup %[[S]][%[[T]]] cta(%{{.*}}, %{{.*}}) count(%{{.*}}) k(%[[K0]], %[[K1]]) %{{.*}} workspace(%{{.*}}) flags(%{{.*}}) flag(%{{.*}}) thread(%{{.*}}) {barrier = 1 : i64, threads = 256 : i64} : <mode = contiguous{{.*}}>, vector<32xf32>, memref<1xi32, #gpu.address_space<workgroup>>
    %sum, %owner = nvfp4k.scheduler.fixup %s[%t] cta(%cta, %ctas) count(%n) k(%k0, %k1) %acc workspace(%ws) flags(%flags) flag(%word) thread(%x) {barrier = 1 : i64, threads = 256 : i64} : !stream, vector<32xf32>, memref<1xi32, #gpu.address_space<workgroup>>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @cluster_sum
  gpu.func @cluster_sum(%acc: vector<8xf32>, %x: index) kernel {
    // CHECK: %[[S:.*]] = nvfp4k.scheduler.create : <mode = independent, groups = 1, rows = 16, weight_tiles = 32, weight_rows = 128, token_tile = 16, granule = 8, group_rows = [16], k_blocks = 32, cluster = 4>
    %s = nvfp4k.scheduler.create : !nvfp4k.scheduler<mode = independent, groups = 1, rows = 16, weight_tiles = 32, weight_rows = 128, token_tile = 16, granule = 8, group_rows = [16], k_blocks = 32, cluster = 4>
    %buf = memref.alloca() : memref<1536xf32, #gpu.address_space<workgroup>>
    // CHECK: nvfp4k.scheduler.cluster_sum %[[S]] %{{.*}} buffer(%{{.*}}) thread(%{{.*}}) {threads = 256 : i64} : <mode = independent{{.*}}cluster = 4>, vector<8xf32>, memref<1536xf32, #gpu.address_space<workgroup>>
    %sum, %owner = nvfp4k.scheduler.cluster_sum %s %acc buffer(%buf) thread(%x) {threads = 256 : i64} : !nvfp4k.scheduler<mode = independent, groups = 1, rows = 16, weight_tiles = 32, weight_rows = 128, token_tile = 16, granule = 8, group_rows = [16], k_blocks = 32, cluster = 4>, vector<8xf32>, memref<1536xf32, #gpu.address_space<workgroup>>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @converted_tokens
  gpu.func @converted_tokens(%i: index, %word: i32, %byte: i8, %r: index, %q: index, %g: index, %sdec: f32) kernel {
    // CHECK: %[[C:.*]] = nvfp4k.ring.create : <4, consumers = 8, producers = 96>
    %ring = nvfp4k.ring.create : !conv
    // CHECK: nvfp4k.ring.arrive %[[C]][%{{.*}}] : <4, consumers = 8, producers = 96>
    nvfp4k.ring.arrive %ring[%i] : !conv
    %scale = arith.bitcast %byte : i8 to f8E4M3FN
    // CHECK: nvfp4k.dequant.codes %{{.*}}, %{{.*}} : i32, f8E4M3FN -> vector<8xf16>
    %lo = nvfp4k.dequant.codes %word, %scale : i32, f8E4M3FN -> vector<8xf16>
    %v = vector.shuffle %lo, %lo [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7] : vector<8xf16>, vector<8xf16>
    %tile = memref.alloca() : memref<16x128xf16, #gpu.address_space<workgroup>>
    // CHECK: nvfp4k.store_tokens %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<16xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
    nvfp4k.store_tokens %v, %tile[%r, %q] : vector<16xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
    // A decode scale computed in the kernel (a fused quantize's S_dec).
    // CHECK: nvfp4k.alpha %{{.*}} a_decode(%{{.*}} : f32) : f32
    %alpha = nvfp4k.alpha %g a_decode(%sdec : f32) : f32
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @wait
gpu.module @waits {
  gpu.func @wait(%acc: vector<64xf32>, %w: vector<4xi32>, %b: i32) kernel {
    // CHECK: nvfp4k.wgmma.wait {pending = 1 : i64}
    nvfp4k.wgmma.wait {pending = 1 : i64}
    // CHECK: %{{.*}}:2 = nvfp4k.wgmma.wait %{{.*}}, %{{.*}} {pending = 1 : i64} : vector<4xi32>, i32
    %r:2 = nvfp4k.wgmma.wait %w, %b {pending = 1 : i64} : vector<4xi32>, i32
    // CHECK: nvfp4k.wgmma.wait %{{.*}} {pending = 0 : i64} : vector<64xf32>
    %a = nvfp4k.wgmma.wait %acc {pending = 0 : i64} : vector<64xf32>
    gpu.return
  }
}
