//===- Passes.td - nvfp4 GPU transforms --------------------*- tablegen -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The passes of the GPU pipelines that transform GPU, NVVM and host IR
// rather than lower nvfp4 ops (those are in nvfp4/Conversion/Passes.td):
// constants as device buffers, dependent launch, the kernels' parameter
// space, gpu.modules to binaries.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_TRANSFORMS_PASSES
#define NVFP4_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def NVFP4BufferGPUConstants
    : Pass<"nvfp4-buffer-gpu-constants", "ModuleOp"> {
  let summary = "Give the constants GPU kernels read a buffer of their own";
  let description = [{
    In a GPU program every buffer a kernel reads is device memory
    (`convert-nvfp4-to-gpu` makes host allocations and copies `gpu.alloc`
    and `gpu.memcpy`), but a bufferized constant is a `memref.get_global`
    of a host global: passed to a kernel, it would be a host address. Run
    after bufferization and before buffer deallocation, this pass rewrites
    each host `memref.get_global` of a constant global that is read other
    than as the source of a `memref.copy` into an allocation filled by a
    copy from the global. Deallocation then frees it, and
    `convert-nvfp4-to-gpu` turns it into a device buffer filled by
    `gpu.memcpy` from the host. A global that is only copied (a constant
    the function returns into its out-param) is left as it is.

    Before:

    ```mlir
    %s = memref.get_global @scales : memref<64x4xf8E4M3FN>
    nvfp4.dequantize %q, %s outs(%x : memref<64x64xf32>) : ...
    ```

    After:

    ```mlir
    %g = memref.get_global @scales : memref<64x4xf8E4M3FN>
    %s = memref.alloc() : memref<64x4xf8E4M3FN>
    memref.copy %g, %s : memref<64x4xf8E4M3FN> to memref<64x4xf8E4M3FN>
    nvfp4.dequantize %q, %s outs(%x : memref<64x64xf32>) : ...
    ```

    Global symbols inside GPU kernels (shared memory) are not touched.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def NVFP4GPUPTXVersion : Pass<"nvfp4-gpu-ptx-version", "ModuleOp"> {
  let summary = "Each gpu.module's PTX ISA version at least what its kernels "
                "need";
  let description = [{
    A GPU pipeline picks the lowest PTX ISA version that has its chip and
    the instructions its own kernels use; a kernel can need a later one:

    * kernel parameters: ptxas takes at most 4352 bytes of them before PTX
      ISA 8.1, and from 8.1 on (sm_70 and later) 32764. A grouped matmul of
      independent groups passes every group's operands (memref descriptors,
      tensor maps) to its kernels, so a hundred groups outgrow the first
      limit;
    * instructions: a TMA load into `shared::cta`
      (`nvvm.cp.async.bulk.tensor.shared.cluster.global` with `isCTAOnly`,
      what NVIDIA's CuTe DSL emits for a CTA's own loads) exists from PTX
      ISA 8.6; below it LLVM's NVPTX backend aborts ("Cannot select");
    * chips: a TMA load with `.cta_group` (a CTA pair's loads) needs
      sm_100a; LLVM aborts on it for earlier chips and the NVVM op's own
      check does not see the group: a diagnostic here.

    For each `gpu.module` whose `#nvvm.target` is below what one of its
    kernels (`llvm.func` with `nvvm.kernel`, after `convert-gpu-to-nvvm`)
    needs, the pass raises the target's PTX version to it (`raise-ptx`;
    off where the user named the version, a diagnostic then); a kernel that
    takes more than 32764 bytes, or more than 4352 on a chip before sm_70,
    is a diagnostic here instead of a ptxas log at serialization. The GPU
    pipelines run it before `gpu-module-to-binary`.

    Before (a kernel of 4800 bytes of parameters):

    ```mlir
    gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
      llvm.func @f(%a0: i64, ..., %a599: i64) attributes {nvvm.kernel} { ... }
    }
    ```

    After: `[#nvvm.target<chip = "sm_90a", features = "+ptx81">]`.
  }];
  let options = [
    Option<"raisePtx", "raise-ptx", "bool", /*default=*/"true",
           "Raise a target's PTX version to what its kernels need "
           "(off: a diagnostic instead)">
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def NVFP4GPUDependentLaunch
    : Pass<"nvfp4-gpu-dependent-launch", "ModuleOp"> {
  let summary = "Let each kernel start while the kernel ahead of it finishes";
  let description = [{
    Programmatic dependent launch (Hopper on): every kernel (`gpu.func` with
    the `kernel` attribute) of every `gpu.module` gets, at its entry,
    `griddepcontrol.launch_dependents` (the kernel after it may start once
    every CTA of this one has started) and `griddepcontrol.wait` (it reads
    nothing before the kernels ahead of it have completed and their memory
    is visible), unless the kernel placed its own wait (the
    `nvfp4.grid_dependency_wait` attribute: the sm_90a GEMM waits after its
    prologue); each such module gets the device global
    `nvfp4_dependent_launch`, by which the runtime knows to launch its
    kernels with `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`.
    A program's kernels then launch while the kernel ahead of them runs
    instead of after it, and the results are those of stream order. The GPU
    pipelines run it for chips that have griddepcontrol (sm_90 on).

    Before:

    ```mlir
    gpu.module @k { gpu.func @f() kernel { ... gpu.return } }
    ```

    After:

    ```mlir
    gpu.module @k {
      gpu.func @f() kernel {
        llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;", "~{memory}" : () -> ()
        llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.launch_dependents;", "~{memory}" : () -> ()
        ...
      }
      llvm.mlir.global external constant @nvfp4_dependent_launch(1 : i32) {addr_space = 4 : i32, alignment = 4 : i64} : i32
    }
    ```
  }];
  let options = [
    Option<"earlyTrigger", "early-trigger", "bool", "true",
           "launch_dependents at each kernel's entry (off: none; a kernel "
           "then lets its dependents start when it completes)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def NVFP4GPUModuleToBinary
    : Pass<"nvfp4-gpu-module-to-binary", "ModuleOp"> {
  let summary = "Serialize the gpu.modules to binaries, concurrently";
  let description = [{
    Does what upstream `gpu-module-to-binary` does, with each module
    serialized on its own thread: every `gpu.module` (of the operation's
    body) is translated to LLVM IR, compiled by LLVM's NVPTX backend and
    assembled by ptxas through each of its `targets` (their
    `serializeToObject`), at once for all modules; the objects are then
    made (`createObject`) and each module replaced by a `gpu.binary` of
    its name, in module order. A program's kernels (a grouped GEMM, its
    quantize and amax kernels) compile in the time of the slowest one
    rather than of their sum.

    Before:

    ```mlir
    gpu.module @k [#nvvm.target<chip = "sm_90a">] { llvm.func @f() ... }
    ```

    After:

    ```mlir
    gpu.binary @k  [#gpu.object<#nvvm.target<chip = "sm_90a">, bin = "...">]
    ```
  }];
  let options = [
    Option<"compilationTarget", "format", "std::string", [{"fatbin"}],
           "The object format: offloading (llvm), assembly (isa), binary "
           "(bin) or fatbinary (fatbin), as gpu-module-to-binary takes it.">
  ];
}

#endif // NVFP4_TRANSFORMS_PASSES
