// Every nvfp4k verifier rule, one case each.
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics

// Outside a kernel (found by the compile fuzzer: such a ring reached the
// upstream mbarrier lowering, which assumes an enclosing function).
func.func @outside_kernel() {
  // expected-error @+1 {{'nvfp4k.ring.create' op expected to be inside a GPU kernel (a gpu.func or a gpu.launch body)}}
  %r = nvfp4k.ring.create : !nvfp4k.ring<3, consumers = 16>
  return
}

// -----

// expected-error @+1 {{'nvfp4k.ring.create' op expected to be inside a GPU kernel (a gpu.func or a gpu.launch body)}}
%top = nvfp4k.ring.create : !nvfp4k.ring<3, consumers = 16>

// -----

// expected-error @+1 {{expected at least one stage, got 0}}
func.func @ring_stages(%r: !nvfp4k.ring<0, consumers = 8>) {
  return
}

// -----

// expected-error @+1 {{expected at least one consumer arrival, got 0}}
func.func @ring_consumers(%r: !nvfp4k.ring<4, consumers = 0>) {
  return
}

// -----

// Found by nvfp4-fuzz-compile: 2^31 - 1 stages made the ring's lowering
// build four billion mbarrier inits (out of memory) instead of a diagnostic.
// expected-error @+1 {{expected at most 14528 stages (two mbarriers each in shared memory), got 2147483647}}
func.func @ring_too_many_stages(%r: !nvfp4k.ring<2147483647, consumers = 1>) {
  return
}

// -----

// expected-error @+1 {{expected at most 1048575 consumer arrivals (an mbarrier's count), got 1048576}}
func.func @ring_too_many_consumers(%r: !nvfp4k.ring<4, consumers = 1048576>) {
  return
}

// -----

// expected-error @+1 {{expected group_rows for each of the 2 independent groups, got 1}}
func.func @sched_rows(%s: !nvfp4k.scheduler<mode = independent, groups = 2, rows = 128, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 0, group_rows = [128]>) {
  return
}

// -----

// expected-error @+1 {{expected rows (100) to be the sum of group_rows (128)}}
func.func @sched_sum(%s: !nvfp4k.scheduler<mode = independent, groups = 1, rows = 100, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 0, group_rows = [128]>) {
  return
}

// -----

// expected-error @+1 {{group_rows are for independent groups only; contiguous groups read a table}}
func.func @sched_table_rows(%s: !nvfp4k.scheduler<mode = contiguous, groups = 1, rows = 128, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 0, group_rows = [128]>) {
  return
}

// -----

// expected-error @+1 {{expected the granule to be 0 or a divisor of the token tile (128), got 48}}
func.func @sched_granule(%s: !nvfp4k.scheduler<mode = masked, groups = 2, rows = 128, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 48>) {
  return
}

// -----

func.func @sched_table() {
  // expected-error @+1 {{expected a group table operand for contiguous groups}}
  %s = nvfp4k.scheduler.create : !nvfp4k.scheduler<mode = contiguous, groups = 2, rows = 128, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 0>
  return
}

// -----

func.func @sched_no_table(%t: i64) {
  // expected-error @+1 {{expected a group table operand only for contiguous and masked groups, not for independent groups}}
  %s = nvfp4k.scheduler.create %t : !nvfp4k.scheduler<mode = independent, groups = 1, rows = 128, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 0, group_rows = [128]>
  return
}

// -----

func.func @smem_outside() {
  // expected-error @+1 {{expected to be inside a GPU kernel (a gpu.func or a gpu.launch body)}}
  %m = nvfp4k.shared_memory : memref<1024xi8, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @smem_launch() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    // expected-error @+1 {{expected to be inside a gpu.func}}
    %m = nvfp4k.shared_memory : memref<1024xi8, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

gpu.module @k {
  gpu.func @smem_space() kernel {
    // expected-error @+1 {{expected a workgroup-memory buffer, got 'memref<1024xi8>'}}
    %m = nvfp4k.shared_memory : memref<1024xi8>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @smem_twice() kernel {
    // expected-error @+1 {{expected one nvfp4k.shared_memory per kernel}}
    %m = nvfp4k.shared_memory : memref<1024xi8, #gpu.address_space<workgroup>>
    %n = nvfp4k.shared_memory : memref<1024xi8, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
gpu.module @k {
  gpu.func @tma_box(%m: !map, %d: memref<64x64xf16, #gpu.address_space<workgroup>>, %i: index) kernel {
    %r = nvfp4k.ring.create : !nvfp4k.ring<2, consumers = 1>
    // expected-error @+1 {{expected the destination to have the tensor map's box type 'memref<128x64xf16, #gpu.address_space<workgroup>>', got 'memref<64x64xf16, #gpu.address_space<workgroup>>'}}
    nvfp4k.tma.load %m[%i, %i], %d, %r[%i] : !map, memref<64x64xf16, #gpu.address_space<workgroup>>, !nvfp4k.ring<2, consumers = 1>
    gpu.return
  }
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
gpu.module @k {
  gpu.func @tma_coords(%m: !map, %d: memref<128x64xf16, #gpu.address_space<workgroup>>, %i: index) kernel {
    %r = nvfp4k.ring.create : !nvfp4k.ring<2, consumers = 1>
    // expected-error @+1 {{expected 2 coordinates (the map's rank), got 1}}
    nvfp4k.tma.load %m[%i], %d, %r[%i] : !map, memref<128x64xf16, #gpu.address_space<workgroup>>, !nvfp4k.ring<2, consumers = 1>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @bulk_bytes(%s: i64, %d: memref<1024xi8, #gpu.address_space<workgroup>>, %i: index) kernel {
    %r = nvfp4k.ring.create : !nvfp4k.ring<2, consumers = 1>
    %c = arith.constant 24 : index
    // expected-error @+1 {{expected a positive multiple of 16 bytes, got 24}}
    nvfp4k.bulk.load %s, %d, %c, %r[%i] : memref<1024xi8, #gpu.address_space<workgroup>>, !nvfp4k.ring<2, consumers = 1>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @bulk_size(%s: i64, %d: memref<1024xi8, #gpu.address_space<workgroup>>, %i: index) kernel {
    %r = nvfp4k.ring.create : !nvfp4k.ring<2, consumers = 1>
    %c = arith.constant 2048 : index
    // expected-error @+1 {{expected at most 1024 bytes (the destination), got 2048}}
    nvfp4k.bulk.load %s, %d, %c, %r[%i] : memref<1024xi8, #gpu.address_space<workgroup>>, !nvfp4k.ring<2, consumers = 1>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @dequant_rows(%c: vector<3x2xi32>, %s: vector<2xf8E4M3FN>) kernel {
    // expected-error @+1 {{expected the codes of 2 fragment rows, got 3}}
    %a = nvfp4k.dequant.fragment_a %c, %s : vector<3x2xi32>, vector<2xf8E4M3FN> -> vector<4x8xf16>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @dequant_e8m0_f16(%c: vector<2x2xi32>, %s: vector<2xf8E8M0FNU>) kernel {
    // expected-error @+1 {{E8M0 scales need bf16 fragments (2^(e - 127) exceeds f16's range), got 'vector<4x8xf16>'}}
    %a = nvfp4k.dequant.fragment_a %c, %s : vector<2x2xi32>, vector<2xf8E8M0FNU> -> vector<4x8xf16>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @dequant_steps(%c: vector<2x2xi32>, %s: vector<2xf8E4M3FN>) kernel {
    // expected-error @+1 {{expected 4x8 f16 or bf16 fragments for 2 code words per row, got 'vector<8x8xf16>'}}
    %a = nvfp4k.dequant.fragment_a %c, %s : vector<2x2xi32>, vector<2xf8E4M3FN> -> vector<8x8xf16>
    gpu.return
  }
}

// -----

!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma_mixed_types(%acc: vector<64xf32>, %a: vector<4x8xbf16>, %d: !desc) kernel {
    // expected-error @+1 {{expected a 2-D B tile of the A fragments' element type ('bf16'), got 'memref<128x128xf16, #gpu.address_space<workgroup>>'}}
    %r = nvfp4k.wgmma.rs %acc, %a, %d {k_offset = 0 : i64, n = array<i64: 128>} : vector<64xf32>, vector<4x8xbf16>, !desc -> vector<64xf32>
    gpu.return
  }
}

// -----

!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma_width(%acc: vector<64xf32>, %a: vector<4x8xf16>, %d: !desc) kernel {
    // expected-error @+1 {{expected wgmma widths in 8..256, multiples of 8, got 100}}
    %r = nvfp4k.wgmma.rs %acc, %a, %d {k_offset = 0 : i64, n = array<i64: 100>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    gpu.return
  }
}

// -----

!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma_select(%acc: vector<64xf32>, %a: vector<4x8xf16>, %d: !desc) kernel {
    // expected-error @+1 {{expected a width operand exactly when several widths are listed}}
    %r = nvfp4k.wgmma.rs %acc, %a, %d {k_offset = 0 : i64, n = array<i64: 64, 128>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    gpu.return
  }
}

// -----

!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma_acc(%acc: vector<32xf32>, %a: vector<4x8xf16>, %d: !desc) kernel {
    // expected-error @+1 {{expected at least 64 accumulator registers for width 128, got 32}}
    %r = nvfp4k.wgmma.rs %acc, %a, %d {k_offset = 0 : i64, n = array<i64: 128>} : vector<32xf32>, vector<4x8xf16>, !desc -> vector<32xf32>
    gpu.return
  }
}

// -----

!desc = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma_rows(%acc: vector<64xf32>, %a: vector<4x8xf16>, %d: !desc) kernel {
    // expected-error @+1 {{expected the B tile to hold 128 rows for width 128, got 64}}
    %r = nvfp4k.wgmma.rs %acc, %a, %d {k_offset = 0 : i64, n = array<i64: 128>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    gpu.return
  }
}

// -----

!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x96xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma_atoms(%acc: vector<64xf32>, %a: vector<4x8xf16>, %d: !desc) kernel {
    // expected-error @+1 {{expected the B tile's K to be whole 128-byte atoms (multiples of 64), got 96}}
    %r = nvfp4k.wgmma.rs %acc, %a, %d {k_offset = 0 : i64, n = array<i64: 128>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    gpu.return
  }
}

// -----

!desc = !nvgpu.warpgroup.descriptor<tensor = memref<128x128xf16, #gpu.address_space<workgroup>>>
gpu.module @k {
  gpu.func @wgmma_k(%acc: vector<64xf32>, %a: vector<4x8xf16>, %d: !desc) kernel {
    // expected-error @+1 {{expected k_offset (96) to be a multiple of 16 with its 4 k16 steps inside the B tile's K (128)}}
    %r = nvfp4k.wgmma.rs %acc, %a, %d {k_offset = 96 : i64, n = array<i64: 128>} : vector<64xf32>, vector<4x8xf16>, !desc -> vector<64xf32>
    gpu.return
  }
}

// -----

!t = memref<128x128xi8, #gpu.address_space<workgroup>>
!s = memref<2048xi8, #gpu.address_space<workgroup>>
gpu.module @k {
  gpu.func @tcgen05_n(%acc: i32, %a: !t, %b: !t, %sa: !s, %sb: !s, %cols: i32, %k: index, %o: i32) kernel {
    // expected-error @+1 {{expected N of 64, 128 or 256, got 96}}
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %k, %o {b_scale_blocks = 1 : i64, n = 96 : i64, steps = 4 : i64, total_steps = 4 : i64, total_units = 4 : i64, units = 4 : i64} : !t, !t, !s, !s
    gpu.return
  }
}

// -----

!t = memref<128x128xi8, #gpu.address_space<workgroup>>
!s = memref<2048xi8, #gpu.address_space<workgroup>>
gpu.module @k {
  gpu.func @tcgen05_units(%acc: i32, %a: !t, %b: !t, %sa: !s, %sb: !s, %cols: i32, %k: index, %o: i32) kernel {
    // expected-error @+1 {{expected 2 scale units per 256 of K, got 4}}
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %k, %o {b_scale_blocks = 1 : i64, mxfp4, n = 128 : i64, steps = 4 : i64, total_steps = 4 : i64, total_units = 4 : i64, units = 4 : i64} : !t, !t, !s, !s
    gpu.return
  }
}

// -----

!t = memref<128x128xi8, #gpu.address_space<workgroup>>
!s = memref<2048xi8, #gpu.address_space<workgroup>>
gpu.module @k {
  gpu.func @tcgen05_blocks(%acc: i32, %a: !t, %sa: !s, %sb: !s, %cols: i32, %k: index, %o: i32, %b: memref<256x128xi8, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{expected 2 128-row scale blocks for N = 256, got 1}}
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %k, %o {b_scale_blocks = 1 : i64, n = 256 : i64, steps = 4 : i64, total_steps = 4 : i64, total_units = 4 : i64, units = 4 : i64} : !t, memref<256x128xi8, #gpu.address_space<workgroup>>, !s, !s
    gpu.return
  }
}

// -----

!t = memref<128x128xi8, #gpu.address_space<workgroup>>
!s = memref<2048xi8, #gpu.address_space<workgroup>>
gpu.module @k {
  gpu.func @tcgen05_tile(%acc: i32, %b: !t, %sa: !s, %sb: !s, %cols: i32, %k: index, %o: i32, %a: memref<128x64xi8, #gpu.address_space<workgroup>>) kernel {
    // expected-error @+1 {{expected A as 128 rows of 128 bytes in shared memory, got 'memref<128x64xi8, #gpu.address_space<workgroup>>'}}
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %k, %o {b_scale_blocks = 1 : i64, n = 128 : i64, steps = 4 : i64, total_steps = 4 : i64, total_units = 4 : i64, units = 4 : i64} : memref<128x64xi8, #gpu.address_space<workgroup>>, !t, !s, !s
    gpu.return
  }
}

// -----

!t = memref<128x128xi8, #gpu.address_space<workgroup>>
gpu.module @k {
  gpu.func @tcgen05_scales(%acc: i32, %a: !t, %b: !t, %sa: memref<1024xi8, #gpu.address_space<workgroup>>, %sb: memref<2048xi8, #gpu.address_space<workgroup>>, %cols: i32, %k: index, %o: i32) kernel {
    // expected-error @+1 {{expected shared scale buffers of at least 2048 and 2048 bytes}}
    nvfp4k.tcgen05.scaled_mma %acc, %a, %b, %sa, %sb, %cols, %k, %o {b_scale_blocks = 1 : i64, n = 128 : i64, steps = 4 : i64, total_steps = 4 : i64, total_units = 4 : i64, units = 4 : i64} : !t, !t, memref<1024xi8, #gpu.address_space<workgroup>>, memref<2048xi8, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

func.func @store_element(%v: vector<2xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected a bf16, f16 or f32 output, got 'f8E4M3FN'}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) {element = f8E4M3FN, row_stride = 8 : i64} : vector<2xf32>
  return
}

// -----

func.func @store_beta(%v: vector<2xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected beta only with an accumulator}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) {beta = 0.5 : f32, element = f32, row_stride = 8 : i64} : vector<2xf32>
  return
}

// -----

func.func @store_stride(%v: vector<2xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected a positive row stride, got 0}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) {element = f32, row_stride = 0 : i64} : vector<2xf32>
  return
}

// -----

func.func @store_alpha_vector(%v: vector<2xf32>, %o: i64, %i: index, %a: vector<4xf32>) {
  // expected-error @+1 {{expected alpha of type f32 or 'vector<2xf32>', got 'vector<4xf32>'}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a : vector<4xf32>) {element = f32, row_stride = 8 : i64} : vector<2xf32>
  return
}

// -----

func.func @store_bias_element(%v: vector<2xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected bias_element exactly with a bias}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) bias(%o) {element = f32, row_stride = 8 : i64} : vector<2xf32>
  return
}

// -----

func.func @store_bias_type(%v: vector<2xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected a bf16, f16 or f32 bias, got 'i8'}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) bias(%o) {bias_element = i8, element = f32, row_stride = 8 : i64} : vector<2xf32>
  return
}

// -----

func.func @store_swiglu_odd(%v: vector<3xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected gate/up pairs (an even number of values) with swiglu}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) {element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<3xf32>
  return
}

// -----

func.func @store_swiglu_intermediate(%v: vector<2xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected a bf16, f16 or f32 swiglu intermediate, got 'f8E4M3FN'}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) {element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = f8E4M3FN, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
  return
}

// -----

func.func @store_swiglu_stride(%v: vector<2xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected an even row stride with swiglu, got 7}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) {element = f32, row_stride = 7 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
  return
}

// -----

func.func @store_swiglu_limit(%v: vector<2xf32>, %o: i64, %i: index, %a: f32) {
  // expected-error @+1 {{expected finite f32 swiglu parameters and a positive limit}}
  nvfp4k.store %v, %o[%i, %i] bounds(%i, %i) alpha(%a) {element = f32, row_stride = 8 : i64, swiglu = #nvfp4k.swiglu<intermediate = f32, sigmoid_scale = 1.0 : f32, limit = -1.0 : f32, up_offset = 0.0 : f32>} : vector<2xf32>
  return
}

// -----

func.func @alpha_per_row_without_index(%g: index, %d: i64) {
  // expected-error @+1 {{expected a row operand exactly when a_decode is per row}}
  %a = nvfp4k.alpha %g a_decode(%d) {a_decode_per_row} : f32
  return
}

// -----

func.func @alpha_per_group_and_row(%g: index, %d: i64) {
  // expected-error @+1 {{expected b_decode per group or per row, not both}}
  %a = nvfp4k.alpha %g b_decode(%d) column(%g) {b_decode_per_group, b_decode_per_row} : f32
  return
}

// -----

func.func @alpha_per_row_without_decode(%g: index) {
  // expected-error @+1 {{expected an a_decode operand to index}}
  %a = nvfp4k.alpha %g row(%g) {a_decode_per_row} : f32
  return
}

// -----

// expected-error @+1 {{expected 1 to 1048575 producer arrivals (an mbarrier's count), got 0}}
func.func @ring_producers(%r: !nvfp4k.ring<4, consumers = 8, producers = 0>) {
  return
}

// -----

func.func @sched_cursor(%t: index) {
  %s = nvfp4k.scheduler.create : !nvfp4k.scheduler<mode = independent, groups = 1, rows = 128, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 0, group_rows = [128]>
  // expected-error @+1 {{expected a cursor of two values (an earlier tile's group and group_first), got 1}}
  %tile:7 = nvfp4k.scheduler.tile %s[%t] from(%t) : !nvfp4k.scheduler<mode = independent, groups = 1, rows = 128, weight_tiles = 1, weight_rows = 128, token_tile = 128, granule = 0, group_rows = [128]>
  return
}

// -----

// 2^25 masked rows of 8-token tiles in 64 groups of 16 weight tiles: 2^32
// tiles, past the group walk's i32 tile numbers.
// expected-error @+1 {{expected fewer than 2^31 tiles, got up to 4294967296}}
func.func @too_many_tiles(%s: !nvfp4k.scheduler<mode = masked, groups = 64, rows = 33554432, weight_tiles = 16, weight_rows = 128, token_tile = 8, granule = 8>) {
  return
}

// -----

// expected-error @+1 {{expected k_blocks with stream_k (its shares are counted in K blocks)}}
func.func @stream_k_without_k_blocks(%s: !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], stream_k = true>) {
  return
}

// -----

// expected-error @+1 {{expected non-negative k_blocks, got -1}}
func.func @negative_k_blocks(%s: !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = -1>) {
  return
}

// -----

!plain = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8]>
func.func @units_without_k_blocks(%c: index, %n: index) {
    %s = nvfp4k.scheduler.create : !plain
  // expected-error @+1 {{expected a scheduler with k_blocks (the K blocks of a tile)}}
  %u = nvfp4k.scheduler.units %s cta(%c, %c) count(%n) : !plain
  return
}

// -----

!plain = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8]>
func.func @unit_without_k_blocks(%c: index, %n: index) {
    %s = nvfp4k.scheduler.create : !plain
  // expected-error @+1 {{expected a scheduler with k_blocks (the K blocks of a tile)}}
  %t, %k0, %k1, %p = nvfp4k.scheduler.unit %s[%c] cta(%c, %c) count(%n) : !plain
  return
}

// -----

// expected-error @+1 {{expected a cluster of 1 to 8 CTAs (the portable cluster sizes), got 16}}
func.func @cluster_too_large(%s: !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 32, cluster = 16>) {
  return
}

// -----

// expected-error @+1 {{expected a cluster split on data-parallel units of at least one K block per CTA (k_blocks >= 2, no stream_k)}}
func.func @cluster_stream_k(%s: !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 32, stream_k = true, cluster = 2>) {
  return
}

// -----

// expected-error @+1 {{expected a cluster split on data-parallel units of at least one K block per CTA (k_blocks >= 4, no stream_k)}}
func.func @cluster_few_k_blocks(%s: !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 3, cluster = 4>) {
  return
}

// -----

!data = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 4>
gpu.module @cluster_sum_data {
  gpu.func @cluster_sum_without_cluster(%c: index, %acc: vector<4xf32>) kernel {
    %s = nvfp4k.scheduler.create : !data
    %buf = memref.alloca() : memref<1024xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expected a scheduler whose clusters split K (cluster > 1), got cluster = 1}}
    %r, %o = nvfp4k.scheduler.cluster_sum %s %acc buffer(%buf) thread(%c) {threads = 256 : i64} : !data, vector<4xf32>, memref<1024xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

!cluster = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 4, cluster = 4>
gpu.module @cluster_sum_threads {
  gpu.func @cluster_sum_partial_warps(%c: index, %acc: vector<4xf32>) kernel {
    %s = nvfp4k.scheduler.create : !cluster
    %buf = memref.alloca() : memref<1024xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expected threads to be a multiple of 32 * cluster (128), got 192}}
    %r, %o = nvfp4k.scheduler.cluster_sum %s %acc buffer(%buf) thread(%c) {threads = 192 : i64} : !cluster, vector<4xf32>, memref<1024xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

!cluster = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 4, cluster = 4>
gpu.module @cluster_sum_buffer {
  gpu.func @cluster_sum_small_buffer(%c: index, %acc: vector<4xf32>) kernel {
    %s = nvfp4k.scheduler.create : !cluster
    %buf = memref.alloca() : memref<512xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expected a buffer of at least 768 f32 ((cluster - 1) * threads / cluster * 4), got 'memref<512xf32, #gpu.address_space<workgroup>>'}}
    %r, %o = nvfp4k.scheduler.cluster_sum %s %acc buffer(%buf) thread(%c) {threads = 256 : i64} : !cluster, vector<4xf32>, memref<512xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

!cluster = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 4, cluster = 2>
gpu.module @cluster_sum_global {
  gpu.func @cluster_sum_global_buffer(%c: index, %acc: vector<4xf32>, %buf: memref<1024xf32>) kernel {
    %s = nvfp4k.scheduler.create : !cluster
    // expected-error @+1 {{expected a workgroup-memory buffer, got 'memref<1024xf32>'}}
    %r, %o = nvfp4k.scheduler.cluster_sum %s %acc buffer(%buf) thread(%c) {threads = 256 : i64} : !cluster, vector<4xf32>, memref<1024xf32>
    gpu.return
  }
}

// -----

!data = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 4>
gpu.module @fixup_data {
  gpu.func @fixup_data_parallel(%c: index, %acc: vector<4xf32>, %ws: i64, %flags: i64) kernel {
    %s = nvfp4k.scheduler.create : !data
    %word = memref.alloca() : memref<1xi32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expected a stream_k scheduler: data-parallel units cover whole tiles and need no fixup}}
    %r, %o = nvfp4k.scheduler.fixup %s[%c] cta(%c, %c) count(%c) k(%c, %c) %acc workspace(%ws) flags(%flags) flag(%word) thread(%c) {barrier = 1 : i64, threads = 256 : i64} : !data, vector<4xf32>, memref<1xi32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

!stream = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 4, stream_k = true>
gpu.module @fixup_flag {
  gpu.func @fixup_global_flag(%c: index, %acc: vector<4xf32>, %ws: i64, %flags: i64, %word: memref<1xi32>) kernel {
    %s = nvfp4k.scheduler.create : !stream
    // expected-error @+1 {{expected a workgroup-memory flag word, got 'memref<1xi32>'}}
    %r, %o = nvfp4k.scheduler.fixup %s[%c] cta(%c, %c) count(%c) k(%c, %c) %acc workspace(%ws) flags(%flags) flag(%word) thread(%c) {barrier = 1 : i64, threads = 256 : i64} : !stream, vector<4xf32>, memref<1xi32>
    gpu.return
  }
}

// -----

!stream = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 4, stream_k = true>
gpu.module @fixup_barrier {
  gpu.func @fixup_barrier_zero(%c: index, %acc: vector<4xf32>, %ws: i64, %flags: i64) kernel {
    %s = nvfp4k.scheduler.create : !stream
    %word = memref.alloca() : memref<1xi32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{attribute 'barrier' failed to satisfy constraint}}
    %r, %o = nvfp4k.scheduler.fixup %s[%c] cta(%c, %c) count(%c) k(%c, %c) %acc workspace(%ws) flags(%flags) flag(%word) thread(%c) {barrier = 0 : i64, threads = 256 : i64} : !stream, vector<4xf32>, memref<1xi32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @store_tokens {
  gpu.func @store_tokens_width(%v: vector<16xf16>, %r: index) kernel {
    %tile = memref.alloca() : memref<12x128xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expected a static [rows, 128] tile with rows a multiple of 8 (whole 128-byte swizzle atoms), got 'memref<12x128xf16, #gpu.address_space<workgroup>>'}}
    nvfp4k.store_tokens %v, %tile[%r, %r] : vector<16xf16>, memref<12x128xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

func.func @alpha_value_per_group(%g: index, %d: f32) {
  // expected-error @+1 {{expected an a_decode address to index per group or per row, got an f32 value}}
  %a = nvfp4k.alpha %g a_decode(%d : f32) {a_decode_per_group} : f32
  return
}

// -----

// Handles are compile-time structure: a ring or scheduler passed in as an
// argument has nothing behind it to lower to.
!ring = !nvfp4k.ring<5, consumers = 8>
gpu.module @k {
  gpu.func @ring_argument(%r: !ring, %i: index) kernel {
    // expected-error @+1 {{expected its ring operand to come from nvfp4k.ring.create (a handle cannot be passed in), got a block argument}}
    nvfp4k.ring.wait_full %r[%i] : !ring
    gpu.return
  }
}

// -----

!plain = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8]>
func.func @scheduler_argument(%s: !plain) -> index {
  // expected-error @+1 {{expected its scheduler operand to come from nvfp4k.scheduler.create (a handle cannot be passed in), got a block argument}}
  %n = nvfp4k.scheduler.count %s : !plain
  return %n : index
}

// -----

gpu.module @k {
  gpu.func @fragment_short_codes(%w: memref<1024xi32, #gpu.address_space<workgroup>>, %s: memref<256xi32, #gpu.address_space<workgroup>>, %j: index, %t: index) kernel {
    // expected-error @+1 {{expected a code tile of at least 2048 words (128 rows x 64 bytes), got 1024}}
    %c, %b = nvfp4k.fragment_a.load %w, %s[%j, %t] : memref<1024xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @fragment_short_scales(%w: memref<2048xi32, #gpu.address_space<workgroup>>, %s: memref<128xi32, #gpu.address_space<workgroup>>, %j: index, %t: index) kernel {
    // expected-error @+1 {{expected at least 256 scale words (2 swizzled units), got 128}}
    %c, %b = nvfp4k.fragment_a.load %w, %s[%j, %t] : memref<2048xi32, #gpu.address_space<workgroup>>, memref<128xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @fragment_rows(%w: memref<2048xi32, #gpu.address_space<workgroup>>, %s: memref<256xi32, #gpu.address_space<workgroup>>, %j: index, %t: index) kernel {
    // expected-error @+1 {{expected 2x4 code words (two rows of 16 bytes), got 'vector<2x2xi32>'}}
    %c, %b = nvfp4k.fragment_a.load %w, %s[%j, %t] : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x2xi32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @fragment_tail(%w: memref<2048xi32, #gpu.address_space<workgroup>>, %s: memref<256xi32, #gpu.address_space<workgroup>>, %j: index, %t: index, %p: i1) kernel {
    // expected-error @+1 {{`tail` and `tail_chunks` go together}}
    %c, %b = nvfp4k.fragment_a.load %w, %s[%j, %t] tail(%p) : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    gpu.return
  }
}
