// nvfp4.fused on sm_90a with tokens=in-kernel: the GEMM quantizes its
// tokens itself (decode sizes). With the amax computed: an amax kernel,
// then the GEMM; with a given decode scale: the GEMM alone. By default
// dense layers of at most 16 tokens run on the narrow-token kernel, whose
// pre-pass quantizes (below); otherwise (gemv=off) the two ops run
// unfused at decode sizes (on the H100 the per-CTA quantization cost more
// than the launch it saves: docs/design/sm90-gemm.md).
// Wide token tiles take their f16 tokens from a pre-pass: the quantize is
// done there (the amax kernel, the quantizing pre-pass, the GEMM; unfused
// they were the amax, the quantize, the pre-pass and the GEMM). On the
// CPU the body is inlined. What the fused kernels compute is
// checked on the GPU (the selfcheck's `fused` family: bit for bit against
// the unfused ops).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="tokens=in-kernel" --canonicalize --cse | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90 --canonicalize --cse | FileCheck %s --check-prefix=AUTO
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90=tokens=prepass --canonicalize --cse | FileCheck %s --check-prefix=PREPASS
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90=gemv=off --canonicalize --cse | FileCheck %s --check-prefix=OFF
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-scf | FileCheck %s --check-prefix=CPU
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-sm90="quantize-in-prepass=false" --canonicalize --cse | FileCheck %s --check-prefix=UNFUSED

// CHECK-LABEL: func.func @dynamic(
// The tensor amax: one grid-stride reduction into kept-zero scratch (no
// memset), whose last block writes the bits.
// CHECK:         %[[BITS:.*]] = gpu.alloc () : memref<1xi32>
// CHECK-NEXT:    %[[SCRATCH:.*]] = gpu.alloc () : memref<33xi32>
// CHECK-NOT:     gpu.memset
// CHECK:         call @nvfp4KeptZero
// CHECK:         gpu.launch blocks
// CHECK:           memref.atomic_rmw maxu %{{.*}}, %[[SCRATCH]][%c0]
// CHECK:           memref.store %{{.*}}, %[[BITS]][%c0]
// The GEMM reads the bf16 tokens ([16, 128] boxes) and the amax bits; no
// FP4 token buffer exists.
// CHECK-NOT:     gpu.launch blocks
// CHECK-DAG:     %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[BITS]]
// CHECK-DAG:     %[[SRC:.*]] = arith.index_cast %[[BP]] : index to i64
// CHECK-DAG:     %[[TOK:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c16, %c128] : memref<*xbf16> -> <tensor = memref<16x128xbf16, #gpu.address_space<workgroup>>, swizzle = none
// CHECK-DAG:     %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[TOK]]
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} args(%[[MAP]] : !llvm.ptr, %[[SRC]] : i64,
// CHECK:         gpu.dealloc %[[BITS]]
// In the kernel: S_enc / S_dec from the amax, each chunk quantized (E4M3
// scale, codes) and dequantized for the MMA; alpha takes the kernel's own
// decode scale.
// CHECK:       gpu.func @nvfp4_sm90_gemm_0(%{{.*}}: !llvm.ptr, %{{.*}}: i64,
// CHECK:         llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK:         arith.divf %cst{{.*}}, %{{.*}} : f32
// CHECK:         vector.load %{{.*}} : memref<2048xbf16, #gpu.address_space<workgroup>>, vector<16xbf16>
// CHECK:         arith.truncf %{{.*}} : vector<16xf32> to vector<16xf16>
// CHECK:         nvfp4k.store_tokens
// CHECK:         nvfp4k.alpha %{{.*}} a_decode(%{{.*}} : f32) : f32
// By default: the quantize's one kernel (each block reduces the small
// input's amax itself), then the GEMM on its FP4 tokens.
// By default a dense layer of at most 16 tokens runs on the narrow-token
// kernel. With 9-16 tokens it reads FP4 tokens itself (dequantized as the
// weights are), so the ops run unfused: the quantize's one kernel (each of
// its blocks of 512 threads reduces the small input's amax itself: no amax
// kernel) writes the codes and scales, then the narrow kernel reads them:
// two launches in all, no f16 tokens.
// AUTO-LABEL: func.func @dynamic(
// AUTO-NOT:     memref.atomic_rmw
// AUTO-NOT:     xf16>
// AUTO:         %[[CODES:.*]] = gpu.alloc () : memref<16x128xi8>
// AUTO:         gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}) in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[PART:.*]] : memref<16xi32, #gpu.address_space<workgroup>>)
// AUTO:           memref.store %{{.*}}, %[[PART]]
// AUTO:           gpu.barrier
// AUTO:           vector.store %{{.*}}, %[[CODES]]
// AUTO-NOT:     gpu.launch blocks
// AUTO:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0 blocks in (%c4, %c1, %c1) threads in (%c32, %c1, %c1) dynamic_shared_memory_size %c1024_i32 args(%{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// AUTO:       gpu.func @nvfp4_sm90_gemv_0
// AUTO:         nvfp4k.dequant.fragment_a
// AUTO:         nvfp4k.dequant.fragment_a
// AUTO:         nvgpu.mma.sync
// With tokens=prepass the narrow kernel takes f16 tokens from the
// pre-pass: the quantize is done there, and each of its blocks of 512
// threads reduces the activations' amax itself (no amax kernel): two
// launches in all.
// PREPASS-LABEL: func.func @dynamic(
// PREPASS-NOT:     memref.atomic_rmw
// PREPASS-NOT:     memref<16x128xi8>
// PREPASS:         %[[TOK:.*]] = gpu.alloc () : memref<16x256xf16>
// PREPASS:         gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}) in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[PART:.*]] : memref<16xi32, #gpu.address_space<workgroup>>)
// PREPASS:           memref.store %{{.*}}, %[[PART]]
// PREPASS:           gpu.barrier
// PREPASS-COUNT-16:  memref.load %[[PART]]
// PREPASS:           vector.store %{{.*}}, %[[TOK]]
// PREPASS-NOT:     gpu.launch blocks
// PREPASS:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0
// PREPASS:       gpu.func @nvfp4_sm90_gemv_0
// PREPASS:         nvgpu.mma.sync
// Without it (gemv=off): the ops unfused, the GEMM converting FP4 tokens.
// OFF-LABEL: func.func @dynamic(
// OFF:         gpu.launch blocks
// OFF:         nvgpu.tma.create.descriptor %{{.*}} box[%c16, %c64] : memref<*xui8>
// OFF:         gpu.launch_func
// OFF:       gpu.func @nvfp4_sm90_gemm_0
// OFF:         nvfp4k.dequant.codes
// CPU-LABEL: func.func @dynamic(
// CPU-NOT:     nvfp4.fused
// CPU:         scf.for
func.func @dynamic(%x: memref<16x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<16x64xbf16>) {
  nvfp4.fused {
    %q = memref.alloc() : memref<16x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<16x256xbf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<16x64xbf16>) : memref<16x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %q : memref<16x256xf4E2M1FN>
    memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %d : memref<f32>
  }
  return
}

// -----

// A given decode scale: no amax, one launch (by default: the quantize's
// kernel, no amax either, and the GEMM).
// AUTO-LABEL: func.func @given(
// AUTO-NOT:     atomic_rmw
// AUTO:         gpu.launch blocks
// AUTO:         gpu.launch_func @nvfp4_sm90_gemv_0::@nvfp4_sm90_gemv_0
// OFF-LABEL: func.func @given(
// OFF:         gpu.launch blocks
// OFF-NOT:     atomic_rmw
// OFF:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// CHECK-LABEL: func.func @given(
// CHECK-SAME:    %{{[^:]*}}: memref<8x256xf16>, %[[SD:[^:]*]]: memref<f32>
// CHECK-NOT:     gpu.launch blocks
// CHECK-NOT:     atomic_rmw
// CHECK:         memref.extract_aligned_pointer_as_index %[[SD]]
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// CHECK-NOT:     gpu.launch blocks
func.func @given(%x: memref<8x256xf16>, %sd: memref<f32>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<8x64xf16>) {
  nvfp4.fused {
    %q = memref.alloc() : memref<8x256xf4E2M1FN>
    %s = memref.alloc() : memref<1x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x decode_scale %sd : memref<f32> outs(%q, %s, %d : memref<8x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<8x256xf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<8x64xf16>) : memref<8x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %q : memref<8x256xf4E2M1FN>
    memref.dealloc %s : memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %d : memref<f32>
  }
  return
}

// -----

// 256 tokens: no in-kernel tokens. The amax kernel, then the pre-pass
// quantizes the bf16 activations chunk by chunk and stores them as the
// GEMM's f16 token operand (no FP4 codes or scales are written: no
// buffer of them exists), its first thread writing the decode scale that
// the GEMM's epilogue reads (a buffer of its own).
// AUTO-LABEL: func.func @wide(
// AUTO-SAME:    %[[X:[^:]*]]: memref<256x256xbf16>
// AUTO:         %[[BITS:.*]] = gpu.alloc () : memref<1xi32>
// AUTO:         gpu.launch blocks
// AUTO:           memref.atomic_rmw maxu
// AUTO-NOT:     memref<256x128xi8>
// AUTO:         %[[DEC:.*]] = gpu.alloc () : memref<f32>
// AUTO:         %[[TOK:.*]] = gpu.alloc () : memref<256x256xf16>
// AUTO:         gpu.launch blocks
// AUTO:           vector.load %[[X]][{{.*}}] {alignment = 16 : i64} : memref<256x256xbf16>, vector<16xbf16>
// AUTO:           llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// AUTO:           memref.store %{{.*}}, %[[DEC]][] : memref<f32>
// AUTO:           vector.store %{{.*}}, %[[TOK]]
// AUTO:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// AUTO:         gpu.dealloc %[[BITS]]
// AUTO:         gpu.dealloc %[[DEC]]
// AUTO:       gpu.func @nvfp4_sm90_gemm_0
// AUTO-NOT:     nvfp4k.store_tokens
// quantize-in-prepass=false: the ops unfused (the amax, the quantize
// writing the FP4 codes, the pre-pass, the GEMM).
// UNFUSED-LABEL: func.func @wide(
// UNFUSED:         gpu.alloc () : memref<256x128xi8>
// UNFUSED-COUNT-3: gpu.launch blocks
// UNFUSED:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0
// CHECK-LABEL: func.func @wide(
func.func @wide(%x: memref<256x256xbf16>, %w: memref<64x256xf4E2M1FN>, %ws: memref<1x4x32x4x4xf8E4M3FN>, %y: memref<256x64xbf16>) {
  nvfp4.fused {
    %q = memref.alloc() : memref<256x256xf4E2M1FN>
    %s = memref.alloc() : memref<2x4x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<256x256xf4E2M1FN>, memref<2x4x32x4x4xf8E4M3FN>, memref<f32>) : memref<256x256xbf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<256x64xbf16>) : memref<256x256xf4E2M1FN>, memref<2x4x32x4x4xf8E4M3FN>, memref<64x256xf4E2M1FN>, memref<1x4x32x4x4xf8E4M3FN>
    memref.dealloc %q : memref<256x256xf4E2M1FN>
    memref.dealloc %s : memref<2x4x32x4x4xf8E4M3FN>
    memref.dealloc %d : memref<f32>
  }
  return
}

// -----

// f32 activations in 64-token tiles, quantized in the kernel: 32 KiB of raw
// tokens per stage, and the ring sized for them (3 stages of 56 KiB; sized
// for bf16 tokens, 5 did not fit the 227 KiB: the launch failed).
// CHECK-LABEL: func.func @wide_f32(
// CHECK:         gpu.launch_func @nvfp4_sm90_gemm_0::@nvfp4_sm90_gemm_0 {{.*}} dynamic_shared_memory_size %c176144_i32
// CHECK:         nvfp4k.ring.create : <3, consumers = 8>
func.func @wide_f32(%x: memref<130x4000xf32>, %w: memref<392x4000xf4E2M1FN>, %ws: memref<4x63x32x4x4xf8E4M3FN>, %y: memref<130x392xf32>) {
  nvfp4.fused {
    %q = memref.alloc() : memref<130x4000xf4E2M1FN>
    %s = memref.alloc() : memref<2x63x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : memref<130x4000xf4E2M1FN>, memref<2x63x32x4x4xf8E4M3FN>, memref<f32>) : memref<130x4000xf32>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : memref<130x392xf32>) : memref<130x4000xf4E2M1FN>, memref<2x63x32x4x4xf8E4M3FN>, memref<392x4000xf4E2M1FN>, memref<4x63x32x4x4xf8E4M3FN>
    memref.dealloc %q : memref<130x4000xf4E2M1FN>
    memref.dealloc %s : memref<2x63x32x4x4xf8E4M3FN>
    memref.dealloc %d : memref<f32>
  }
  return
}
