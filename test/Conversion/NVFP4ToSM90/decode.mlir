// The sm_90a wgmma kernel on a decode-sized matmul (5 tokens): the tokens stay
// FP4 and the kernel converts them (no pre-pass), and (stream-k) the
// tiles are split between CTAs; the checks follow one K stage through
// every role. What the
// kernel computes is checked on the GPU (test/Integration/GPU/decode.test).
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="gemv=off schedule=stream-k" --canonicalize --cse | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="gemv=off tokens=prepass schedule=data-parallel" --canonicalize --cse | FileCheck %s --check-prefix=PREPASS
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90=gemv=off --canonicalize --cse | FileCheck %s --check-prefix=AUTO
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="gemv=off cluster=2" --canonicalize --cse | FileCheck %s --check-prefix=CLUSTER
// RUN: not nvfp4-opt %s --convert-nvfp4-to-sm90="gemv=off cluster=3" 2>&1 | FileCheck %s --check-prefix=BADCLUSTER
// RUN: nvfp4-opt %s --convert-nvfp4-to-sm90="gemv=off cluster=2 ctas=3" --canonicalize --cse | FileCheck %s --check-prefix=NOCLUSTER

// The wgmma kernel's own choice (gemv=off: by default a dense matmul of
// at most 16 tokens runs on the narrow-token kernel, gemv.mlir): the
// tokens converted in the kernel; 2 tiles of 4 K stages are whole tiles
// (data-parallel: a K this short pays no fixup).
// AUTO:         nvgpu.tma.create.descriptor %{{.*}} box[%c8, %c64] : memref<*xui8>
// AUTO-NOT:     gpu.memset
// Two tiles for 132 CTAs, one CTA per SM: the K stages split between two
// consumer pairs (640 threads; the second pair's sums handed over through
// shared memory on named barriers 2 and 3).
// AUTO:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 blocks in (%c132, %c1, %c1) threads in (%c640, %c1, %c1)
// AUTO:         nvfp4k.scheduler.create : <mode = independent, groups = 1, rows = 5, weight_tiles = 2, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [5], k_blocks = 4>
// AUTO-NOT:     nvfp4k.scheduler.fixup
// AUTO:         nvfp4k.store_tokens
// AUTO:         nvvm.barrier id = %c3_i32 number_of_threads = %c512_i32
// AUTO:         nvvm.barrier.arrive id = %c2_i32 number_of_threads = %c512_i32
// AUTO:         nvvm.barrier id = %c2_i32 number_of_threads = %c512_i32
// AUTO:         nvvm.barrier.arrive id = %c3_i32 number_of_threads = %c512_i32

// cluster=2: the 2 tiles' K stages split between the 2 CTAs of a cluster
// each (ranks 0 and 1 take 2 of the 4 stages): 4 CTAs, one tile per
// cluster, no stream-K workspace; the K split inside the CTA stays (one
// CTA per SM). The receive buffer: the other rank's half of the 128 x 8
// accumulators (512 f32) after the split's hand-over.
// CLUSTER-NOT:   gpu.alloc
// CLUSTER:       gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c640, %c1, %c1)
// CLUSTER:       gpu.func @nvfp4_sm90_gemm_0
// CLUSTER:         %[[S:.*]] = nvfp4k.scheduler.create : <mode = independent, groups = 1, rows = 5, weight_tiles = 2, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [5], k_blocks = 4, cluster = 2>
// Every thread's relaxed arrival at the cluster barrier's first phase; the
// producers pass it and arrive at the second when their roles are done.
// CLUSTER:         nvvm.cluster.arrive.relaxed
// CLUSTER:         nvfp4k.store_tokens
// CLUSTER:         nvvm.cluster.wait
// CLUSTER-NEXT:    nvvm.cluster.arrive
// Pair 0 sums the slices after the hand-over; the owner stores.
// CLUSTER:         nvvm.barrier.arrive id = %c3_i32 number_of_threads = %c512_i32
// CLUSTER:         %[[SUM:.*]], %[[OWNER:.*]] = nvfp4k.scheduler.cluster_sum %[[S]] %{{.*}} buffer(%{{.*}}) thread(%{{.*}}) {threads = 256 : i64} : <{{.*}}cluster = 2>, vector<4xf32>, memref<512xf32, #gpu.address_space<workgroup>>
// CLUSTER:         scf.if %[[OWNER]] {
// CLUSTER:           nvfp4k.store
// CLUSTER-NOT:     nvfp4k.scheduler.fixup
// Pair 1 takes both phases in its place.
// CLUSTER:         nvvm.cluster.wait
// CLUSTER-NEXT:    nvvm.cluster.arrive
// BADCLUSTER: convert-nvfp4-to-sm90: cluster must be 1, 2 or 4, got 3
// Clusters that would not all fit the CTAs at once (2 tiles x 2 > 3): the
// pass's own schedule.
// NOCLUSTER:     gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 blocks in
// NOCLUSTER-NOT: cluster

// Stream-K's workspace: 2 partial 128 x 8 slots per CTA, a flag per CTA
// that starts at 0 and that the kernel leaves at 0 (kept zero: the runtime
// zeroes it only where its previous call did not leave it so, so a warm
// call has no memset); two CTAs per SM (an 8-token tile): 264 of them. At
// the block's start, ahead of the kernels that make the GEMM's operands.
// CHECK:         func.func private @nvfp4KeptZero(i64, i64)
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[A:[^:]*]]: memref<5x256xi8>, %[[SA:[^:]*]]: memref<1x8x32x4x4xi8>
// CHECK:         %[[PARTIALS:.*]] = gpu.alloc () : memref<540672xf32>
// CHECK:         %[[FLAGS:.*]] = gpu.alloc () : memref<264xi32>
// CHECK:         %[[FLAGSP:.*]] = memref.extract_aligned_pointer_as_index %[[FLAGS]]
// CHECK:         %[[FLAGSA:.*]] = arith.index_cast %[[FLAGSP]] : index to i64
// CHECK:         call @nvfp4KeptZero(%[[FLAGSA]], %c1056_i64) : (i64, i64) -> ()
// CHECK-NOT:     gpu.memset
// CHECK-NOT:     gpu.launch blocks
// No pre-pass: a tensor map of the tokens' FP4 codes ([8, 64]-byte boxes,
// the token tile), the address of their swizzled scales.
// CHECK:         memref.reinterpret_cast %[[A]] to offset: [0], sizes: [1280]
// CHECK:         %[[CODES:.*]] = nvgpu.tma.create.descriptor {{.*}} box[%c8, %c64] : memref<*xui8> -> <tensor = memref<8x64xui8, #gpu.address_space<workgroup>>, swizzle = none
// CHECK:         memref.extract_aligned_pointer_as_index %[[SA]]
// 7 stages of 14336 bytes (2 KiB of f16 tokens, 8 KiB of weights, 1 KiB of
// their scales, 512 bytes of FP4 tokens, 2 KiB of token scales; padded to
// 1 KiB), the fixup's word, 1 KiB of alignment slack: what half an SM
// holds.
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 blocks in (%c264, %c1, %c1) {{.*}} dynamic_shared_memory_size %c101392_i32
// CHECK:         gpu.dealloc %[[PARTIALS]]
// CHECK:         gpu.dealloc %[[FLAGS]]
// CHECK-NOT:     gpu.launch

// CHECK:       gpu.func @nvfp4_sm90_gemm_0
// CHECK:         nvvm.minctasm = 2
// CHECK:         %[[RING:.*]] = nvfp4k.ring.create : <7, consumers = 8>
// CHECK:         %[[CONV:.*]] = nvfp4k.ring.create : <7, consumers = 8, producers = 96>
// CHECK:         %[[S:.*]] = nvfp4k.scheduler.create : <mode = independent, groups = 1, rows = 5, weight_tiles = 2, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [5], k_blocks = 4, stream_k = true>
// The issuer: per K block of each unit, the tile's FP4 tokens (codes box,
// the scale units of the 128-row tile of its first row, and of its last
// row's when that is another), the weights and their scales.
// CHECK:         nvvm.setmaxregister decrease 48
// CHECK:         nvvm.elect.sync
// CHECK:         nvfp4k.scheduler.units %[[S]]
// CHECK:         %[[T:.*]], %[[K0:.*]], %[[K1:.*]], %[[POS:.*]] = nvfp4k.scheduler.unit %[[S]]
// CHECK:         nvfp4k.scheduler.tile %[[S]][%[[T]]]
// CHECK:         %[[TWO:.*]] = arith.cmpi ne
// CHECK:         scf.for %[[KB:.*]] = %[[K0]] to %[[K1]]
// CHECK:           nvfp4k.ring.wait_empty %[[RING]]
// CHECK:           nvfp4k.ring.expect_tx %[[RING]]
// CHECK:           nvfp4k.tma.load {{.*}} memref<8x64xui8, #gpu.address_space<workgroup>>
// CHECK:           nvfp4k.bulk.load
// CHECK:           scf.if %[[TWO]] {
// CHECK:             nvfp4k.bulk.load
// CHECK-NEXT:      }
// CHECK:           nvfp4k.tma.load {{.*}} memref<128x64xui8, #gpu.address_space<workgroup>>
// CHECK:           nvfp4k.bulk.load
// The converters (warps 1-3): once the stage is full, each (row, chunk)
// item of the rows the MMA reads (the tile's, rounded up to the granule)
// of the 128-wide K block: codes and the block scale to exact f16 (zero
// past the tile's rows and K), stored into the B tile; then fenced for the
// tensor cores and counted on the second ring.
// CHECK:         nvfp4k.scheduler.units %[[S]]
// CHECK:         scf.for
// CHECK:           %[[ITEMS:.*]] = arith.minsi %{{.*}}, %c64
// CHECK:           nvfp4k.ring.wait_full %[[RING]]
// CHECK:           %[[TILE:.*]] = memref.view {{.*}} to memref<8x128xf16, #gpu.address_space<workgroup>>
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[ITEMS]] step %c96
// CHECK:             nvfp4k.dequant.codes
// CHECK:             nvfp4k.dequant.codes
// CHECK:             nvfp4k.store_tokens %{{.*}}, %[[TILE]]
// CHECK:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:           nvfp4k.ring.arrive %[[CONV]]
// The consumers: wait for both rings, the MMA step (8 wide), release; after
// a unit, the fixup, and the epilogue in the CTA that completes the tile.
// CHECK:         nvvm.setmaxregister increase 96
// CHECK:         nvfp4k.scheduler.units %[[S]]
// CHECK:           nvfp4k.ring.wait_full %[[RING]]
// CHECK:           nvfp4k.ring.wait_full %[[CONV]]
// CHECK:           nvfp4k.wgmma.rs {{.*}} {k_offset = 0 : i64, n = array<i64: 8>}
// CHECK:           nvfp4k.wgmma.rs {{.*}} {k_offset = 64 : i64, n = array<i64: 8>}
// CHECK:         %[[SUM:.*]], %[[OWNER:.*]] = nvfp4k.scheduler.fixup %[[S]]
// CHECK-SAME:      {barrier = 1 : i64, threads = 256 : i64}
// CHECK:         scf.if %[[OWNER]] {
// CHECK:           nvfp4k.alpha
// CHECK:           nvfp4k.store

// Forced back to the f16 pre-pass and whole tiles: no converters, no
// fixup.
// PREPASS-LABEL: func.func @decode(
// PREPASS:         gpu.launch blocks
// PREPASS-NOT:     gpu.memset
// PREPASS:         gpu.launch_func
// PREPASS:         nvfp4k.ring.create : <8, consumers = 8>
// PREPASS-NOT:     producers = 96
// PREPASS:         nvfp4k.scheduler.create : <{{.*}}, k_blocks = 4>
// PREPASS-NOT:     nvfp4k.scheduler.fixup
// PREPASS-NOT:     nvfp4k.store_tokens
func.func @decode(%a: memref<5x512xf4E2M1FN>, %sa: memref<1x8x32x4x4xf8E4M3FN>,
                  %b: memref<200x512xf4E2M1FN>, %sb: memref<2x8x32x4x4xf8E4M3FN>,
                  %da: memref<f32>, %db: memref<f32>, %c: memref<5x200xbf16>) {
  nvfp4.matmul %a, %sa, %b, %sb a_decode_scale(%da : memref<f32>) b_decode_scale(%db : memref<f32>) outs(%c : memref<5x200xbf16>) : memref<5x512xf4E2M1FN>, memref<1x8x32x4x4xf8E4M3FN>, memref<200x512xf4E2M1FN>, memref<2x8x32x4x4xf8E4M3FN>
  return
}
