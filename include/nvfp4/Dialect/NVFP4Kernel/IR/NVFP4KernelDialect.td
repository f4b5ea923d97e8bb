//===- NVFP4KernelDialect.td - the kernel-level nvfp4k dialect -*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELDIALECT_TD
#define NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def NVFP4Kernel_Dialect : Dialect {
  let name = "nvfp4k";
  let cppNamespace = "::mlir::nvfp4k";
  let summary = "what a block-scaled GEMM kernel is made of (internal)";
  let description = [{
    The kernel-level layer between `nvfp4.matmul` / `nvfp4.grouped_matmul`
    and NVGPU/NVVM. The chip-specific lowerings (`convert-nvfp4-to-sm90`,
    `convert-nvfp4-to-sm100`) build their persistent, warp-specialised GEMM
    kernels out of these ops, and `convert-nvfp4k-to-nvvm` lowers each op
    with one small pattern. Both chips share the tile scheduler over groups,
    the TMA + mbarrier stage ring, the operand loads and the epilogue; they
    differ in the MMA step (register-A `wgmma` on sm_90a, `tcgen05.mma`
    with block scales on sm_100a).

    * `!nvfp4k.scheduler<...>`: the static tile space of a grouped matmul
      (groups, weight tiles, token tiles); `nvfp4k.scheduler.count` and
      `nvfp4k.scheduler.tile` walk it, reading the group table
      (`group_offsets` or `masked_m`) at run time;
      `nvfp4k.scheduler.group_of` and `nvfp4k.scheduler.blocks_before` map a
      token row to its group and a group to its first 128-row scale block.
    * `!nvfp4k.ring<S, consumers = C>`: S full/empty mbarrier pairs. Every
      ring op takes a position `%i` (the count of stages the role has passed
      through); the ring owns the stage (`i mod S`) and the phase parity.
    * loads: `nvfp4k.tma.load`, `nvfp4k.bulk.load` (complete on a ring
      stage's full barrier).
    * `nvfp4k.shared_memory`: the kernel's dynamic shared memory, from its
      first 1024-byte aligned byte.
    * MMA steps: `nvfp4k.dequant.fragment_a` + `nvfp4k.wgmma.rs` +
      `nvfp4k.wgmma.wait` (sm_90a; the wait ties the register values the
      wgmmas read and write, so that nothing touches them early),
      `nvfp4k.tcgen05.scaled_mma` + `nvfp4k.tcgen05.commit` (sm_100a).
    * epilogue: `nvfp4k.alpha`, `nvfp4k.store`.

    The dialect is internal: programs never contain it, and the GPU
    pipelines lower it right after the chip pass that creates it. The ring,
    shared-memory, load and MMA ops must sit in a GPU kernel (a `gpu.func`,
    or a `gpu.launch` body, except `shared_memory`, which needs the
    `gpu.module` of a `gpu.func`).
  }];
  let dependentDialects = ["::mlir::nvgpu::NVGPUDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

def NVFP4K_InGPUKernel : NativeOpTrait<"InGPUKernel"> {
  let cppNamespace = "::mlir::nvfp4k";
}

def NVFP4K_HandlesDefinedHere : NativeOpTrait<"HandlesDefinedHere"> {
  let cppNamespace = "::mlir::nvfp4k";
}

// Every nvfp4k op: its ring and scheduler operands come from their create
// ops (a handle is compile-time structure, not a value a kernel can be
// passed).
class NVFP4K_Op<string mnemonic, list<Trait> traits = []>
    : Op<NVFP4Kernel_Dialect, mnemonic,
         !listconcat(traits, [NVFP4K_HandlesDefinedHere])>;

// Ops whose lowering creates barriers, shared memory, TMA, tensor-core or
// TMEM operations: they must sit in a GPU kernel. (The scheduler and
// epilogue ops lower to portable code and may be anywhere.)
class NVFP4K_KernelOp<string mnemonic, list<Trait> traits = []>
    : NVFP4K_Op<mnemonic, !listconcat(traits, [NVFP4K_InGPUKernel])>;

class NVFP4K_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<NVFP4Kernel_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNELDIALECT_TD
