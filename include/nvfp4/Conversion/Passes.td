//===- Passes.td - nvfp4 conversion passes -----------------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_PASSES
#define NVFP4_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertNVFP4ToSCF : Pass<"convert-nvfp4-to-scf", "ModuleOp"> {
  let summary = "Lower bufferized nvfp4 ops to loops over byte storage";
  let description = [{
    Rewrites every nvfp4 op in the bufferized (memref) form into scf loops of
    arith/math/memref/vector ops that compute docs/spec.md section 2 exactly
    (the CPU reference execution), and memrefs of the narrow element types
    into their byte storage: `memref<...xKxf4E2M1FN>` becomes
    `memref<...x(K/2)xi8>` (two values per byte, even element in the low
    nibble), `memref<...xf8E4M3FN>` / `f8E8M0FNU` become `memref<...xi8>`,
    across function signatures, calls, returns and allocations.

    Before:

    ```mlir
    func.func @f(%x: memref<16x32xbf16>, %q: memref<16x32xf4E2M1FN>,
                 %s: memref<16x2xf8E4M3FN>, %d: memref<f32>) {
      nvfp4.quantize nvfp4 %x outs(%q, %s, %d : ...) : memref<16x32xbf16>
      return
    }
    ```

    After: `func.func @f(%x: memref<16x32xbf16>, %q: memref<16x16xi8>,
    %s: memref<16x2xi8>, %d: memref<f32>)` with an `scf.for` nest computing
    the tensor amax, the global scales and each block.

    Post-condition: no nvfp4 op and no memref of f4E2M1FN / f8E4M3FN /
    f8E8M0FNU is left. Tensor-form nvfp4 ops are rejected (bufferize first).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ConvertNVFP4ToGPU : Pass<"convert-nvfp4-to-gpu", "ModuleOp"> {
  let summary = "Lower bufferized nvfp4 ops to GPU kernels (any CUDA GPU)";
  let description = [{
    Rewrites every nvfp4 op in the bufferized form into `gpu.launch` regions
    (outlined into kernels by `gpu-kernel-outlining`) and the host's memref
    allocations and copies into `gpu.alloc` / `gpu.dealloc` / `gpu.memcpy`:
    a GPU program's buffers, its arguments included, are device memory.
    Narrow memrefs become byte storage as in `convert-nvfp4-to-scf`.

    Quantize runs a grid-stride amax reduction (warp shuffles, one atomic max
    per warp on the fp32 bits) and then one thread per block (or 16x16 tile)
    of the padded scale grid, executing the same body as the CPU lowering:
    the results are bit-identical. Threads past the matrix write the
    swizzled layout's zero padding. An NVFP4 quantize that reduces its own
    amax over at most `fused-quantize-max-elements` elements per batch
    entry runs as one kernel instead (one thread per tile; each block
    reduces its entry's whole amax, across warps through workgroup memory,
    before quantizing its tiles), one launch instead of two; above the
    bound a grid-stride amax kernel comes first, whose last block publishes
    the amax and leaves its scratch zero for the next call (no memset once
    warm). Dequantize uses one thread per 16 values, the swizzles one thread per scale. Matmuls get one thread per
    output element: correct on any GPU, the baseline the chip-specific
    lowerings (`convert-nvfp4-to-sm90`, `convert-nvfp4-to-sm100`) replace.

    Post-condition: no nvfp4 op and no narrow memref; host functions hold
    gpu ops only, kernels are `gpu.launch` regions.
  }];
  let options = [
    Option<"fusedQuantizeMaxElements", "fused-quantize-max-elements",
           "int64_t", "::mlir::nvfp4::kFusedQuantizeMaxElements",
           "Largest batch entry (rows x K) an NVFP4 quantize reducing its own "
           "amax quantizes in one kernel (0: always the amax kernel first)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ConvertNVFP4ToSM90 : Pass<"convert-nvfp4-to-sm90", "ModuleOp"> {
  let summary = "Lower bufferized nvfp4 ops for Hopper (sm_90a): wgmma GEMMs";
  let description = [{
    `convert-nvfp4-to-gpu` with NVFP4 matmuls and grouped matmuls (all three
    groupings) lowered to one persistent, warp-specialised kernel per op
    instead of the SIMT baseline, built from `nvfp4k` ops
    (docs/design/sm90-gemm.md, docs/design/kernel-layer.md):

    * the token operand (A) is dequantized exactly to f16 in the permuted K
      order the GEMM consumes: by a pre-pass kernel (wide token tiles), or
      inside the kernel by three warps of the producer warpgroup from the
      raw FP4 codes and scales of each stage (`tokens`: token tiles of at
      most 64 rows, decode);
    * a producer thread fills a `stages`-deep shared-memory ring
      (`!nvfp4k.ring`): per 128 of K, TMA boxes of the f16 token tile
      (128-byte swizzle) or of the raw tokens, of the weights' raw FP4
      bytes, and a bulk copy of their two 512-byte swizzled scale units;
    * the tiles go to the CTAs whole (data-parallel) or stream-K
      (`schedule`): every CTA an equal share of the (tile, K stage)
      iterations, so that every SM streams weights whatever the tile
      count; a tile split between CTAs is summed in K order by the last of
      them (`nvfp4k.scheduler.fixup`: the same bits on every run); or
      (`cluster`) to thread-block clusters whose CTAs split each tile's K
      stages and sum their partials through distributed shared memory in
      rank order (`nvfp4k.scheduler.cluster_sum`);
    * two consumer warpgroups (four at decode sizes, `k-split`: a second
      pair takes every other stage) read their fragments from the stage,
      dequantize them exactly in registers (`nvfp4k.dequant.fragment_a`:
      e2m1 -> e4m3 bit pattern -> f16, times the block scale) and issue
      register-A `wgmma.mma_async m64nNk16.f32.f16.f16` with fp32
      accumulation (`nvfp4k.wgmma.rs`; weights are wgmma's M side:
      swap-AB);
    * every `promote-every` K blocks the tensor core's partial sum is added
      to an fp32 total in registers: the tensor core's own fp32 accumulation
      truncates, so over a long K its error grows linearly;
    * the epilogue (`nvfp4k.store`) applies the decode scales, alpha and
      beta * acc in fp32.

    Every FP4 and E4M3 value is exact in f16 and every product exact in
    fp32, so results differ from the fp64 reference only by the fp32
    summation order. MXFP4 matmuls, odd N, K not a multiple of 32 and
    independent groups of different N/K keep the portable kernel.

    Post-condition: as for `convert-nvfp4-to-gpu`, plus gpu.modules holding
    the GEMM kernels (nvfp4k, nvgpu, nvvm ops; `convert-nvfp4k-to-nvvm`
    lowers the nvfp4k ones) and host `nvgpu.tma.create.descriptor`.
  }];
  let options =
      [Option<"ctas", "ctas", "int64_t",
              /*default=*/"::mlir::nvfp4::kSM90PartSMs",
              "Persistent CTAs launched per GEMM (default: an H100 SXM's or "
              "H200's 132 SMs)">,
       Option<
           "tokenTile", "token-tile", "int64_t", /*default=*/"0",
           "Widest token tile (wgmma N: 8, 16, 32, 64 or 128, at most 64 "
           "with in-kernel tokens; 0: chosen from the shape). Each tile runs "
           "the narrowest N in steps of the granule that covers its tokens">,
       Option<
           "granule", "granule", "int64_t", /*default=*/"0",
           "Step of the wgmma widths the tiles run (8, 16 or 32; at most "
           "the token tile; 0: 32 for pre-pass tokens, 8 for tokens the "
           "kernel converts): a group's tiles are balanced and each runs the "
           "narrowest multiple of it that covers its tokens">,
       Option<"schedule", "schedule", "std::string", /*default=*/"\"auto\"",
              "How tiles go to the CTAs: data-parallel (whole tiles), stream-k "
              "(equal shares of K stages, split tiles summed in K order), or "
              "auto (stream-k when whole tiles would leave at least half the "
              "CTAs idle and K spans at least 32 stages of 128)">,
       Option<
           "tokens", "tokens", "std::string", /*default=*/"\"auto\"",
           "Where the token operand becomes f16: prepass (a kernel before "
           "the GEMM), in-kernel (the GEMM's producer warpgroup converts the "
           "raw FP4 tokens, or quantizes the activations of an nvfp4.fused; "
           "one token operand, token tiles of at most 64), "
           "or auto (in-kernel FP4 tokens for groups of at most 16 tokens; "
           "a fused quantize is not done in the kernel)">,
       Option<"stages", "stages", "int64_t", /*default=*/"0",
              "Depth of the shared-memory ring of 128-K stages (tokens, "
              "weights, scales); 0: the deepest that fits, at most 8 (5 with "
              "128-token tiles)">,
       Option<"kSplit", "k-split", "int64_t", /*default=*/"0",
              "Consumer warpgroup pairs that share each work unit's K stages "
              "(1 or 2: the second pair takes every other stage and hands its "
              "sum to the first through shared memory); 0: 2 for groups of at "
              "most 16 tokens (decode). Only token tiles of at most 16 on one "
              "CTA per SM with a ring of at least 3 stages split">,
       Option<"cluster", "cluster", "int64_t", /*default=*/"1",
              "CTAs of a thread-block cluster that split each tile's K stages "
              "(1, 2 or 4; 1: none): one tile per cluster and the grid the "
              "tiles times the cluster, the partials summed through "
              "distributed shared memory in rank order "
              "(`nvfp4k.scheduler.cluster_sum`). Dense matmuls and independent "
              "groups (a static tile count) with K stages for every CTA and "
              "tiles x cluster <= ctas; otherwise, and under "
              "schedule=stream-k, the pass's schedule">,
       Option<
           "quantizeInPrepass", "quantize-in-prepass", "bool",
           /*default=*/"true",
           "An activation quantize fused with its matmul (nvfp4.fused) "
           "whose token tiles take the f16 pre-pass (more than 16 tokens "
           "per group) quantizes in the pre-pass: one kernel where the "
           "unfused ops run two (the quantize, the FP4 -> f16 pre-pass), the "
           "FP4 codes never written; off: the ops run unfused">,
       Option<
           "quantizeInEpilogue", "quantize-in-epilogue", "bool",
           /*default=*/"false",
           "An output quantize fused with its matmul (nvfp4.fused, spec "
           "F6) is computed in the wgmma GEMM's epilogue: codes and block "
           "scales written instead of the result. Off (the default): it "
           "runs as its own kernel after the matmul, which measured faster "
           "(H200, 2026-11-29, Qwen3-30B-A3B's experts, static scales: a "
           "2048-token block 966 us against 1051, the epilogue's amax "
           "reduction and encoding serialised with the MMAs; 64 tokens 302 "
           "against 304)">,
       Option<"gemv", "gemv", "std::string", /*default=*/"\"auto\"",
              "Dense matmuls of 1 to 16 tokens with NVFP4 weights and an f16 "
              "MMA on the narrow-token kernel (no ring: 16 weight rows per "
              "CTA, its warps splitting K, codes loaded into registers and "
              "dequantized for mma.sync m16n8k16 against pre-pass tokens): "
              "on, off, or auto (up to 8 tokens; up to 16 read as FP4 "
              "tokens, or as f16 pre-pass tokens where N and K <= 8192)">,
       Option<"gemvWarps", "gemv-warps", "int64_t", /*default=*/"0",
              "Warps per CTA of the narrow-token kernel, splitting K (1 to "
              "16; 0: at most 32 warps per SM over the grid, at least 4 K "
              "blocks of 128 each, at most 16, 8 with more than 8 tokens)">,
       Option<"gemvPrefetch", "gemv-prefetch", "int64_t", /*default=*/"1",
              "K blocks of 128 of each warp's weights (codes and scales) the "
              "narrow-token kernel's CTAs bring into L2 "
              "(cp.async.bulk.prefetch.L2) before they wait for the kernel "
              "ahead (0: none)">,
       Option<"gemvCtasPerSM", "gemv-ctas-per-sm", "int64_t",
              /*default=*/"0",
              "CTAs per SM the narrow-token kernel is compiled to fit "
              "(.minnctapersm: its registers at most 64K / (CTAs x threads)); "
              "0 chooses (the grid's CTAs per SM where that leaves at least "
              "64 registers a thread, else none), -1: none">,
       Option<"promoteEvery", "promote-every", "int64_t", /*default=*/"4",
              "K blocks of 64 summed in the tensor core before the partial sum "
              "is added to an fp32 register total (even; 0: never)">,
       Option<
           "bf16Mma", "bf16-mma", "bool", /*default=*/"true",
           "Weight-only matmuls on bf16 activations, and MXFP4 matmuls, on "
           "the kernel with a bf16 MMA (NVFP4 or MXFP4 weights dequantized "
           "exactly to bf16, the pre-pass copying the activations or "
           "dequantizing MXFP4 tokens to bf16); off: they run on the "
           "portable kernel. Checked on an H200 (the weight_only, matmul and "
           "grouped selfchecks, MXFP4 included) and an H100 (weight_only), "
           "2026-11-27">,
       Option<"fusedQuantizeMaxElements", "fused-quantize-max-elements",
              "int64_t", "::mlir::nvfp4::kFusedQuantizeMaxElements",
              "As convert-nvfp4-to-gpu's option, for the quantizes this pass "
              "leaves to the portable kernels (the activations' own quantize), "
              "and for a fused quantize in the narrow-token kernel's pre-pass "
              "(up to this many elements its blocks reduce the amax "
              "themselves)">];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvfp4k::NVFP4KernelDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ConvertNVFP4ToSM100 : Pass<"convert-nvfp4-to-sm100", "ModuleOp"> {
  let summary = "Lower bufferized nvfp4 ops for Blackwell (sm_100a): tcgen05";
  let description = [{
    `convert-nvfp4-to-gpu` with, for sm_100a:

    * NVFP4 and MXFP4 matmuls and grouped matmuls (all three groupings) on
      one persistent, warp-specialised kernel per op around the native
      block-scaled MMA (docs/design/sm100-gemm.md): TMA of the FP4 codes
      (byte views, 128B swizzle) and 1-D bulk copies of the 512-byte scale
      units into a shared-memory ring, `tcgen05.cp` of the scales into
      tensor memory, `tcgen05.mma.block_scale` (kind mxf4nvf4 block16 or
      mxf4 block32, M = 128 weight rows, N = the token tile) into
      double-buffered TMEM accumulators, and an epilogue warpgroup
      (`tcgen05.ld`, alpha and beta * acc in fp32, the output cast) that
      overlaps the next tile's MMAs. Contiguous groups get their token
      scales repacked first so that each group starts on a 128-row block.
    * quantize with the hardware E2M1 conversion
      (`cvt.rn.satfinite.e2m1x2.f32`) for round-to-nearest; stochastic
      rounding keeps the emulated rule of the numerics contract.

    Nothing this pass emits has run on Blackwell hardware: its output is
    checked by ptxas -arch=sm_100a, by an independent decoder of the
    instruction and shared-memory descriptors and TMEM addresses in the
    PTX (python/nvfp4_testing/ptx_decode.py), and by SASS inspection.

    Post-condition: as for `convert-nvfp4-to-gpu`, plus gpu.modules holding
    the GEMM kernels (nvvm tcgen05 / TMA / mbarrier ops) and host
    `nvgpu.tma.create.descriptor`.
  }];
  let options = [
    Option<"ctas", "ctas", "int64_t",
           /*default=*/"::mlir::nvfp4::kSM100PartSMs",
           "Persistent CTAs launched per GEMM (default: a B200's 148 SMs)">,
    Option<"tokenTile", "token-tile", "int64_t", /*default=*/"0",
           "Tokens per tile (MMA N: 64, 128 or 256); 0 picks by group size">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Depth of the shared-memory ring; 0: the deepest that fits (<= 6)">,
    Option<"hardwareE2m1", "hardware-e2m1", "bool", /*default=*/"true",
           "Quantize with cvt.rn.satfinite.e2m1x2.f32">,
    Option<"hardwareStochastic", "hardware-stochastic", "bool",
           /*default=*/"false",
           "Stochastic-rounding quantize with cvt.rs.satfinite.e2m1x4.f32 "
           "fed the reference's Philox bytes: hardware-defined rounding, "
           "not bit-exact with the reference (off: the exact emulation)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvfp4k::NVFP4KernelDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ConvertNVFP4KernelToNVVM : Pass<"convert-nvfp4k-to-nvvm", "ModuleOp"> {
  let summary = "Lower the kernel-level nvfp4k ops to NVGPU/NVVM";
  let description = [{
    Lowers every `nvfp4k` op (the building blocks the chip passes make their
    GEMM kernels of) with one pattern each, to upstream `nvgpu` (mbarrier
    groups, TMA, warpgroup descriptors), `nvvm` (bulk copies, e4m3
    conversions, tcgen05), `llvm` (the register-A wgmma inline asm, raw
    global loads and stores), `scf`, `arith`, `memref` and `vector` ops.
    `!nvfp4k.ring` values become `!nvgpu.mbarrier.group`s of 2 x stages
    barriers, `!nvfp4k.scheduler` values the i64 address of their group
    table.

    Before:

    ```mlir
    nvfp4k.ring.wait_full %ring[%i] : !nvfp4k.ring<5, consumers = 8>
    ```

    After:

    ```mlir
    %i32 = arith.index_cast %i : index to i32
    %stage = arith.remui %i32, %c5_i32 : i32
    %round = arith.divui %i32, %c5_i32 : i32
    %parity = arith.trunci %round : i32 to i1
    %s = arith.index_cast %stage : i32 to index
    nvgpu.mbarrier.try_wait.parity %bars[%s], %parity, %ticks : ...
    ```

    Post-condition: no `nvfp4k` op or type is left.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def NVFP4EmulateTcgen05 : Pass<"nvfp4-emulate-tcgen05", "ModuleOp"> {
  let summary = "Rewrite tcgen05 ops into sm_90a code with their PTX ISA "
                "semantics (run sm_100a kernels on Hopper)";
  let description = [{
    Replaces every NVVM tcgen05 op of every `gpu.module` (and the sm_100a
    E2M1 conversion) by code any sm_90 GPU runs, so that the sm_100a
    kernels execute on a Hopper GPU: everything else in the kernel (TMA,
    mbarriers, warp roles, scheduler, epilogue) runs as emitted.

    * Tensor memory is a global buffer of 128 lanes x 512 columns x 32 bits
      per CTA (`max-ctas` of them), addressed by (lane << 16) | column;
      `tcgen05.alloc` / `dealloc` / `relinquish_alloc_permit` keep each
      CTA's allocation mask and check what they are given (whole warp,
      power-of-two column counts in [32, 512], no alloc after relinquish,
      only allocated columns freed, nothing left allocated at exit); every
      access checks that its columns are allocated. Allocated columns start
      as all-ones (a NaN): the ISA leaves them undefined. The arrays are per
      kernel: a CTA that starts while the same CTA of another launch runs
      traps.
    * `tcgen05.cp` and `tcgen05.mma` are asynchronous: issuing one records
      it in the CTA's queue, and the `tcgen05.commit` of the issuing thread
      executes the queue in order, fences, and arrives on its mbarrier (the
      latest completion the ISA allows). One issuing thread per CTA at a
      time; ops left uncommitted at dealloc or exit trap.
    * `tcgen05.cp` reads its source through the shared-memory descriptor
      (start, LBO, SBO, version, base offset, swizzle) and writes the lanes
      and columns its shape and multicast name.
    * `tcgen05.mma.block_scale` (kind::mxf4nvf4 block16/block32, kind::mxf4
      block32) decodes the instruction descriptor (M, N, types, scale type,
      scale-factor ids, negation, reserved bits), reads A and B through
      their descriptors and the scale factors through their TMEM addresses,
      scales each K block's exact product in f64, and accumulates in fp32
      (enable-input-d honoured).
    * `tcgen05.ld` / `st` (32x32b) check the warp's lane quarter;
      `tcgen05.wait` is a no-op (ld and st are synchronous) and
      `tcgen05.fence` a CTA memory fence.
    * `cvt.rn.satfinite.e2m1x2.f32` becomes the contract's E2M1 rounding
      (docs/spec.md 2.1), bit for bit.
    * CTA pairs (`cta_group::2`): collective allocation, copies into both
      CTAs' tensor memory, the M = 256 MMA over both CTAs' shared memory;
      commits to another CTA's mbarrier and multicast commits; and
      `cp.async.bulk.tensor` with `.cta_group::2`, whose completion on the
      pair's other CTA's mbarrier Hopper's TMA lacks, forwarded (loaded on
      a scratch mbarrier, then `mbarrier.complete_tx` on the named one).

    A violated rule prints what was wrong and traps. What the emulation
    cannot show (timing, asynchronous-proxy ordering, the asynchrony of
    forwarded loads) is in docs/design/tcgen05-emulation.md.
  }];
  let options = [
    Option<"maxCtas", "max-ctas", "int64_t", "::mlir::nvfp4::kSM100PartSMs",
           "CTAs the tensor-memory buffer has room for (the grid of the "
           "persistent kernels is at most this)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // NVFP4_CONVERSION_PASSES
