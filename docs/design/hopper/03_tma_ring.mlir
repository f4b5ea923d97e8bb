// Block 3: host TMA descriptors (ui8 no-swizzle, ui8 128B-swizzle, bf16 128B-swizzle) + 4-stage TMA/mbarrier ring.
// Hand-written (tools/03_tma_ring.mlir.in).
//
// COMPILE (verified here: Debian LLVM/MLIR 22.1.8, CUDA 13.0 ptxas V13.0.88, no GPU):
//   mlir-opt 03_tma_ring.mlir \
//     -gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90a cubin-features=+ptx80 opt-level=3 cubin-format=isa"
//   then take the PTX string out of the gpu.binary `assembly = "..."` attribute and run
//   ptxas -arch=sm_90a -v -O3 03_tma_ring.ptx       (tools/build.py 03_tma_ring.mlir does all of it)
// PTXAS -v (full log in logs/03_tma_ring.ptxas.txt):
//   tma_ring: 19 registers, used 1 barriers, 1024 bytes smem; 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads; SASS 176 instr
//   no C75xx (wgmma serialization / injected warpgroup.wait) messages, 0 spills

// Host-side TMA descriptors + a 4-stage TMA/mbarrier ring between one producer
// warp (elected lane) and one consumer warpgroup, with warp specialisation.
//
// Three tile kinds, as the NVFP4 kernel needs them:
//   !dq8   : packed e2m1 bytes, [64 rows x 64 B] ui8, no swizzle   (row = 64 B = 128 e2m1)
//   !dq8s  : packed e2m1 bytes, [64 rows x 128 B] ui8, 128B swizzle (row = 128 B = 256 e2m1)
//   !dbf   : activations, [64 rows x 64] bf16, 128B swizzle (the wgmma B operand layout)
// Stage layout in dynamic smem (base rounded up to 1024 B at run time):
//   [bf16 tile 8192 B | swz-u8 tile 8192 B | u8 tile 4096 B] = 20480 B per stage, 4 stages,
//   every tile 1024-B aligned (required for the 128B swizzle pattern to match wgmma).
//

!dq8  = !nvgpu.tensormap.descriptor<tensor = memref<64x64xui8, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!dq8s = !nvgpu.tensormap.descriptor<tensor = memref<64x128xui8, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!dbf  = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_128b, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>

module attributes {gpu.container_module} {
  // Host: A8 [R x 64] ui8, A8s [R x 128] ui8, X [R x K] bf16 (device pointers inside memrefs).
  func.func @tma_ring_launch(%A8: memref<?x64xui8>, %A8s: memref<?x128xui8>, %X: memref<?x?xbf16>,
                             %out: memref<?xi32>, %ntiles: index) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c160 = arith.constant 160 : index
    // 4 stages x 20480 B + 1024 B alignment slack
    %smem = arith.constant 82944 : i32
    %u8 = memref.cast %A8 : memref<?x64xui8> to memref<*xui8>
    %u8s = memref.cast %A8s : memref<?x128xui8> to memref<*xui8>
    %xb = memref.cast %X : memref<?x?xbf16> to memref<*xbf16>
    %d8 = nvgpu.tma.create.descriptor %u8 box[%c64, %c64] : memref<*xui8> -> !dq8
    %d8s = nvgpu.tma.create.descriptor %u8s box[%c64, %c128] : memref<*xui8> -> !dq8s
    %dbf = nvgpu.tma.create.descriptor %xb box[%c64, %c64] : memref<*xbf16> -> !dbf
    // Kernel parameters cannot carry !nvgpu.tensormap.descriptor (convert-gpu-to-nvvm fails to
    // legalize a gpu.func with that argument type): pass the device pointer that
    // mgpuTensorMapEncodeTiledMemref returned as !llvm.ptr and cast back in the kernel.
    %p8 = builtin.unrealized_conversion_cast %d8 : !dq8 to !llvm.ptr
    %p8s = builtin.unrealized_conversion_cast %d8s : !dq8s to !llvm.ptr
    %pbf = builtin.unrealized_conversion_cast %dbf : !dbf to !llvm.ptr
    gpu.launch_func @kmod::@tma_ring blocks in (%c1, %c1, %c1) threads in (%c160, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%p8 : !llvm.ptr, %p8s : !llvm.ptr, %pbf : !llvm.ptr, %out : memref<?xi32>, %ntiles : index)
    return
  }

  gpu.module @kmod [#nvvm.target<chip = "sm_90a", features = "+ptx80", O = 3>] {
    // `.extern .shared .align 1024 .b8 dyn_smem[]` -- NOT gpu.dynamic_shared_memory, whose
    // internal zero-sized global is demoted by NVPTX to a 1-byte static `.shared` variable.
    memref.global @dyn_smem : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 1024 : i64}

    // 160 threads: warps 0-3 = consumer warpgroup, warp 4 = producer.
    gpu.func @tma_ring(%p8: !llvm.ptr, %p8s: !llvm.ptr, %pbf: !llvm.ptr, %out: memref<?xi32>, %ntiles: index)
        kernel attributes {nvvm.maxntid = array<i32: 160, 1, 1>} {
      %d8 = builtin.unrealized_conversion_cast %p8 : !llvm.ptr to !dq8
      %d8s = builtin.unrealized_conversion_cast %p8s : !llvm.ptr to !dq8s
      %dbf = builtin.unrealized_conversion_cast %pbf : !llvm.ptr to !dbf
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %ticks = arith.constant 10000000 : index
      %tid = gpu.thread_id x
      %bars = nvgpu.mbarrier.create -> !bars
      // full[s] = bars[s] (1 arrival + tx bytes), empty[s] = bars[4+s] (128 consumer arrivals)
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.for %s = %c0 to %c4 step %c1 {
        %se = arith.addi %s, %c4 : index
        nvgpu.mbarrier.init %bars[%s], %c1, predicate = %is0 : !bars
        nvgpu.mbarrier.init %bars[%se], %c128, predicate = %is0 : !bars
      }
      gpu.barrier
      %g0 = memref.get_global @dyn_smem : memref<0xi8, #gpu.address_space<workgroup>>
      %gaddr = memref.extract_aligned_pointer_as_index %g0 : memref<0xi8, #gpu.address_space<workgroup>> -> index
      %c1023 = arith.constant 1023 : index
      %cm1024 = arith.constant -1024 : index
      %ga1 = arith.addi %gaddr, %c1023 : index
      %sbase = arith.andi %ga1, %cm1024 : index
      %pad = arith.subi %sbase, %gaddr : index
      %all = memref.reinterpret_cast %g0 to offset: [0], sizes: [82944], strides: [1]
          : memref<0xi8, #gpu.address_space<workgroup>> to memref<82944xi8, #gpu.address_space<workgroup>>
      %cstage = arith.constant 20480 : index
      %c8192 = arith.constant 8192 : index
      %c16384 = arith.constant 16384 : index
      %warp = arith.divui %tid, %c32 : index
      %isprod = arith.cmpi eq, %warp, %c4 : index
      scf.if %isprod {
        // ---------------- producer warp
        // (in a 128-thread producer warpgroup all 4 warps must execute setmaxregister)
        %el = nvvm.elect.sync -> i1
        scf.if %el {
          nvgpu.tma.prefetch.descriptor %d8 : !dq8
          nvgpu.tma.prefetch.descriptor %d8s : !dq8s
          nvgpu.tma.prefetch.descriptor %dbf : !dbf
          %tx = arith.constant 20480 : index
          scf.for %i = %c0 to %ntiles step %c1 {
            %s = arith.remui %i, %c4 : index
            %rnd = arith.divui %i, %c4 : index
            %ph = arith.remui %rnd, %c2 : index
            // producer starts on parity 1: a fresh mbarrier reports the "previous" phase complete
            %pp = arith.cmpi eq, %ph, %c0 : index
            %se = arith.addi %s, %c4 : index
            nvgpu.mbarrier.try_wait.parity %bars[%se], %pp, %ticks : !bars
            nvgpu.mbarrier.arrive.expect_tx %bars[%s], %tx : !bars
            %o0 = arith.muli %s, %cstage : index
            %ob = arith.addi %o0, %pad : index
            %os = arith.addi %ob, %c8192 : index
            %ou = arith.addi %ob, %c16384 : index
            %vbf = memref.view %all[%ob][] : memref<82944xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
            %vs = memref.view %all[%os][] : memref<82944xi8, #gpu.address_space<workgroup>> to memref<64x128xui8, #gpu.address_space<workgroup>>
            %vu = memref.view %all[%ou][] : memref<82944xi8, #gpu.address_space<workgroup>> to memref<64x64xui8, #gpu.address_space<workgroup>>
            // coordinates are innermost-first: [column (elements), row]
            %row = arith.muli %i, %c64 : index
            nvgpu.tma.async.load %dbf[%c0, %row], %bars[%s] to %vbf : !dbf, !bars -> memref<64x64xbf16, #gpu.address_space<workgroup>>
            nvgpu.tma.async.load %d8s[%c0, %row], %bars[%s] to %vs : !dq8s, !bars -> memref<64x128xui8, #gpu.address_space<workgroup>>
            nvgpu.tma.async.load %d8[%c0, %row], %bars[%s] to %vu : !dq8, !bars -> memref<64x64xui8, #gpu.address_space<workgroup>>
          }
        }
      } else {
        // ---------------- consumer warpgroup: read its 16 B of each tile, checksum, release
        %words = memref.view %all[%pad][] : memref<82944xi8, #gpu.address_space<workgroup>> to memref<20480xi32, #gpu.address_space<workgroup>>
        %c0i = arith.constant 0 : i32
        %sum = scf.for %i = %c0 to %ntiles step %c1 iter_args(%acc = %c0i) -> (i32) {
          %s = arith.remui %i, %c4 : index
          %rnd = arith.divui %i, %c4 : index
          %ph = arith.remui %rnd, %c2 : index
          %pc = arith.cmpi ne, %ph, %c0 : index
          nvgpu.mbarrier.try_wait.parity %bars[%s], %pc, %ticks : !bars
          %cw = arith.constant 5120 : index
          %w0 = arith.muli %s, %cw : index
          %t4 = arith.muli %tid, %c4 : index
          %wi = arith.addi %w0, %t4 : index
          %v = vector.load %words[%wi] {alignment = 16 : i64} : memref<20480xi32, #gpu.address_space<workgroup>>, vector<4xi32>
          %c4096w = arith.constant 4096 : index
          %wu = arith.addi %wi, %c4096w : index
          %u = vector.load %words[%wu] {alignment = 16 : i64} : memref<20480xi32, #gpu.address_space<workgroup>>, vector<4xi32>
          %x = arith.xori %v, %u : vector<4xi32>
          %r = vector.reduction <xor>, %x : vector<4xi32> into i32
          %se = arith.addi %s, %c4 : index
          %tok = nvgpu.mbarrier.arrive %bars[%se] : !bars -> !nvgpu.mbarrier.token
          %acc2 = arith.addi %acc, %r : i32
          scf.yield %acc2 : i32
        }
        memref.store %sum, %out[%tid] : memref<?xi32>
      }
      gpu.return
    }
  }
}
