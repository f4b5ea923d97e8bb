//===- NVFP4Dialect.td - nvfp4 dialect definition ---------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD

include "mlir/IR/OpBase.td"

def NVFP4_Dialect : Dialect {
  let name = "nvfp4";
  let cppNamespace = "::mlir::nvfp4";
  let summary = "4-bit block-scaled tensors (NVFP4, MXFP4) and their matmuls";
  let description = [{
    The `nvfp4` dialect models the 4-bit block-scaled number formats of NVIDIA
    Blackwell tensor cores, NVFP4 (E2M1 values, one E4M3 scale per 16
    values, one fp32 scale per tensor) and OCP MXFP4 (E2M1 values, one UE8M0
    scale per 32 values), at the tensor level:

    * `nvfp4.quantize` / `nvfp4.dequantize` convert between high-precision
      tensors and (values, block scales[, per-tensor decode scale]) triples,
      bit-exactly as specified in docs/spec.md (which follows the numerics of
      TransformerEngine's NVFP4 kernels);
    * `nvfp4.swizzle_scales` / `nvfp4.unswizzle_scales` move block scales
      between the row-major layout and the 128x4 tiled layout that cuBLAS,
      CUTLASS and `tcgen05.cp` read;
    * `nvfp4.matmul` and `nvfp4.grouped_matmul` compute block-scaled products
      `C = alpha * A * B^T (+ beta * C_in)`.

    Values use the builtin element types `f4E2M1FN`, `f8E4M3FN` and
    `f8E8M0FNU`. A tensor of `f4E2M1FN` is stored packed, two values per
    byte, the even-indexed value in the low nibble. Scales in the swizzled
    layout are tensors of shape `[ceil(R/128), ceil(C/4), 32, 4, 4]` carrying
    the `#nvfp4.swizzled_128x4` encoding: their row-major storage is exactly
    the tiled layout, so the layout is visible in the type and every padding
    element is an ordinary (zero) element of the tensor.

    The ops have value semantics on tensors. After bufferization the same
    ops take memrefs, with destination operands (`outs`) instead of results.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

class NVFP4_Op<string mnemonic, list<Trait> traits = []>
    : Op<NVFP4_Dialect, mnemonic, traits>;

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
