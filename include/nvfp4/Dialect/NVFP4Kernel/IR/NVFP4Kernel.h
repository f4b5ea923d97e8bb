//===- NVFP4Kernel.h - the kernel-level nvfp4k dialect ----------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The internal dialect the chip-specific GEMM kernels are built from
// (NVFP4KernelDialect.td describes it), and the facts about those ops that
// the kernels and the lowering share.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNEL_H
#define NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNEL_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelOpsDialect.h.inc"

#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelOpsTypes.h.inc"

namespace mlir {
namespace nvfp4k {
/// The ring, shared-memory, load and MMA ops live in a GPU kernel (a
/// gpu.func or a gpu.launch body): their lowerings create barriers, shared
/// memory, TMA and tensor-core operations that only exist there, and the
/// upstream lowerings of the nvgpu ops they create assume an enclosing
/// function and module.
template <typename ConcreteType>
class InGPUKernel : public OpTrait::TraitBase<ConcreteType, InGPUKernel> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    if (!op->getParentOfType<gpu::GPUFuncOp>() &&
        !op->getParentOfType<gpu::LaunchOp>())
      return op->emitOpError("expected to be inside a GPU kernel (a "
                             "gpu.func or a gpu.launch body)");
    return success();
  }
};

/// Ring and scheduler operands are results of nvfp4k.ring.create /
/// nvfp4k.scheduler.create: a handle that arrives as a block argument (a
/// gpu.func's, say) has no barriers or tables behind it to lower to.
LogicalResult verifyHandlesDefinedHere(Operation *op);

template <typename ConcreteType>
class HandlesDefinedHere
    : public OpTrait::TraitBase<ConcreteType, HandlesDefinedHere> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyHandlesDefinedHere(op);
  }
};
} // namespace nvfp4k
} // namespace mlir

#define GET_OP_CLASSES
#include "nvfp4/Dialect/NVFP4Kernel/IR/NVFP4KernelOps.h.inc"

namespace mlir {
namespace nvfp4k {

/// Bytes a launch must give a kernel whose `nvfp4k.shared_memory` buffer
/// has `bufferBytes`: the run-time alignment to 1024 bytes needs up to
/// 1 KiB of slack.
inline int64_t sharedMemoryLaunchBytes(int64_t bufferBytes) {
  return bufferBytes + 1024;
}

/// K elements one 128-byte-swizzle atom row holds in a K-major f16 tile:
/// the unit along which `nvfp4k.wgmma.rs` descriptors advance.
constexpr int64_t kWgmmaAtomK = 64;

/// Position, in the token operand (wgmma B) of the sm_90a kernel, of value
/// `k` (0..127) of a 128-wide K block: the inverse of the fragment order of
/// nvfp4k.dequant.fragment_a as the kernel feeds it (a thread with
/// lane % 4 == c holds chunks 2c and 2c + 1 of the block; chunk 2c feeds
/// k16 steps 0-3, chunk 2c + 1 steps 4-7). Value pairs (16 q + j,
/// 16 q + j + 2) with j % 4 < 2 land in adjacent columns, and
/// wgmmaFragmentK(16 q + j) = wgmmaFragmentK(j) + 64 (q % 2) + 2 (q / 2).
int64_t wgmmaFragmentK(int64_t k);

} // namespace nvfp4k
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4KERNEL_IR_NVFP4KERNEL_H
