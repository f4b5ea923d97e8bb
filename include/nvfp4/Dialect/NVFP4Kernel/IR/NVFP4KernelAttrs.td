//===- NVFP4KernelAttrs.td - nvfp4k attributes -------------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELATTRS_TD
#define NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELATTRS_TD

include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelDialect.td"
include "mlir/IR/EnumAttr.td"

def NVFP4K_RingBarrierEnum : I32EnumAttr<"RingBarrier",
    "which barrier of a ring stage", [
    I32EnumAttrCase<"full", 0>,
    I32EnumAttrCase<"empty", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nvfp4k";
}
def NVFP4K_RingBarrierAttr : EnumAttr<NVFP4Kernel_Dialect, NVFP4K_RingBarrierEnum,
                                      "barrier"> {
  let assemblyFormat = "`<` $value `>`";
}

def NVFP4K_SwigluAttr : AttrDef<NVFP4Kernel_Dialect, "Swiglu"> {
  let mnemonic = "swiglu";
  let summary = "an epilogue's SwiGLU of its column pairs";
  let description = [{
    The parameters of an `nvfp4.swiglu` fused into a matmul's epilogue
    (docs/spec.md 2.10): the activation's `sigmoid_scale`, optional
    `limit` and `up_offset`, and `intermediate`, the element type (bf16,
    f16 or f32) the matmul's outputs are rounded to before the activation
    reads them (the unfused matmul's output type).

    Example:

    ```mlir
    #nvfp4k.swiglu<intermediate = bf16, sigmoid_scale = 1.702 : f32,
                   limit = 7.0 : f32, up_offset = 1.0 : f32>
    ```
  }];
  let parameters = (ins "::mlir::Type":$intermediate,
      "::mlir::FloatAttr":$sigmoid_scale,
      OptionalParameter<"::mlir::FloatAttr">:$limit,
      "::mlir::FloatAttr":$up_offset);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELATTRS_TD
