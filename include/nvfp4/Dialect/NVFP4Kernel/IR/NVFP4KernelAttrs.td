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

#endif // NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELATTRS_TD
