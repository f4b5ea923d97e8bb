//===- Passes.td - nvfp4 transformation passes -------------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// Passes that rewrite nvfp4 programs within the dialect (the lowerings are
// in nvfp4/Conversion/Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def NVFP4FuseQuantizeMatmul : Pass<"nvfp4-fuse-quantize-matmul"> {
  let summary = "Group an activation quantize with the matmul consuming it";
  let description = [{
    Producer-consumer fusion on the bufferized form: an `nvfp4.quantize`
    whose values, scales and decode scale are consumed by exactly one
    `nvfp4.matmul` (or contiguous / masked `nvfp4.grouped_matmul`) as its A
    operand, and by nothing else but their deallocations, is moved with
    that matmul and the intermediate buffers into one `nvfp4.fused` op
    (docs/spec.md section 3: F1-F4). With `tokens=in-kernel` the sm_90a
    lowering then quantizes the activations inside the GEMM kernel (no
    quantize launch, no pre-pass; with a computed amax, an amax kernel
    first); by default, and in the other lowerings, the two ops run as
    before (docs/design/sm90-gemm.md says why).

    Fuses when the quantize is NVFP4 with 1x16 blocks and one decode scale
    per tensor (or per batch entry), any rounding, Hadamard transform, scale
    rule and scale source (amax computed, the caller's amax, a given encode
    or decode scale), and nothing between the two ops may write what the
    quantize reads. Everything else is left as it is.

    Example: the bufferized

    ```mlir
    %q = memref.alloc() : memref<16x4096xf4E2M1FN>
    %s = memref.alloc() : memref<1x64x32x4x4xf8E4M3FN>
    %d = memref.alloc() : memref<f32>
    nvfp4.quantize nvfp4 %x outs(%q, %s, %d : ...) : memref<16x4096xbf16>
    nvfp4.matmul %q, %s, %w, %ws a_decode_scale(%d : memref<f32>) outs(%y : ...) : ...
    memref.dealloc %q : ...
    ...
    ```

    becomes `nvfp4.fused { <the same ops> }`.
  }];
  let dependentDialects = ["::mlir::nvfp4::NVFP4Dialect"];
}

def NVFP4FuseMatmulEpilogue : Pass<"nvfp4-fuse-matmul-epilogue"> {
  let summary = "Group a matmul with the nvfp4.swiglu reading its output";
  let description = [{
    Producer-consumer fusion on the bufferized form: an `nvfp4.swiglu`
    whose input is the whole output of an `nvfp4.matmul` (or a contiguous /
    masked `nvfp4.grouped_matmul`), a buffer the function allocates and
    nothing else uses, joins that matmul in one `nvfp4.fused` op
    (docs/spec.md section 3: F1-F5), with the intermediate buffer's
    allocation and deallocations. A matmul already grouped with its
    activation quantize (`nvfp4-fuse-quantize-matmul`, which runs first)
    takes the swiglu into the same op. The sm_90a GEMM kernel then
    computes the activation of each gate/up column pair in its epilogue and
    stores the `[M, N/2]` result: the `[M, N]` intermediate is never
    written. Other lowerings run the ops in turn.

    The matmul moves down to the swiglu: nothing between them may write
    what it reads. Everything else is left as it is.

    Then an `nvfp4.quantize` with a given scale (F6: NVFP4, 1x16 blocks,
    `encode_scale` or `decode_scale`, round to nearest even, no Hadamard)
    of all of such a matmul's result (a dense or contiguous matmul), or of
    the swiglu grouped with it, joins the group the same way: the sm_90a
    GEMM then writes E2M1 codes and block scales instead of the bf16 (or
    f32) result. The sm_90a pipeline runs this pass before
    `nvfp4-fuse-quantize-matmul`, so that a quantize between two matmuls
    is the first one's output quantize.

    Example: the bufferized

    ```mlir
    %y = memref.alloc() : memref<16x1536xf32>
    nvfp4.matmul %q, %s, %w, %ws outs(%y : memref<16x1536xf32>) : ...
    nvfp4.swiglu %y outs(%h : memref<16x768xbf16>) : memref<16x1536xf32>
    memref.dealloc %y : memref<16x1536xf32>
    ```

    becomes `nvfp4.fused { <the same ops> }`.
  }];
  let dependentDialects = ["::mlir::nvfp4::NVFP4Dialect"];
}

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES
