//===- NVFP4ToGPU.h - nvfp4 to GPU kernels ----------------------*- C++ -*-===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
#define NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H

#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
class Location;
class OpBuilder;
class Value;
class RewritePatternSet;
class TypeConverter;

namespace nvfp4 {

/// The largest batch entry (rows x K) an NVFP4 quantize that reduces its
/// own amax quantizes in one kernel, by default.
constexpr int64_t kFusedQuantizeMaxElements = 1 << 15;

#define GEN_PASS_DECL_CONVERTNVFP4TOGPU
#include "nvfp4/Conversion/Passes.h.inc"

/// What the chip-specific conversions change in the portable kernels.
struct GPUKernelOptions {
  /// E2M1 round-to-nearest-even through the hardware conversion
  /// (cvt.rn.satfinite.e2m1x2.f32, sm_100a and later) instead of the
  /// fp32 emulation (Numerics.h). Stochastic rounding keeps the emulation
  /// unless hardwareStochastic is set.
  bool hardwareE2M1 = false;
  /// Stochastic rounding through cvt.rs.satfinite.e2m1x4.f32 (sm_100a),
  /// given the same Philox bytes the emulation uses. The PTX ISA leaves
  /// how the hardware spends the random bits unspecified at the bit level,
  /// so the codes are not bit-exact with the reference: opt-in only.
  bool hardwareStochastic = false;
  /// NVFP4 quantizes reducing their own amax over at most this many
  /// elements per batch entry run as one kernel (a block per entry).
  int64_t fusedQuantizeMaxElements = kFusedQuantizeMaxElements;
};

/// Patterns lowering bufferized nvfp4 ops to gpu.launch kernels (one thread
/// per block / tile / element, the shared Codegen bodies), to be applied in
/// the GPU conversion frame (GPUCommon/GPUConversion.h). Matmuls get a plain
/// SIMT kernel here; the chip-specific conversions add faster ones with a
/// higher benefit.
void populateNVFP4ToGPUConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const GPUKernelOptions &options = GPUKernelOptions());

/// The buffers of emitTensorAmax, which the caller deallocates after the
/// kernels that read `bits` (release(): nothing when null).
struct TensorAmax {
  /// i32 [batch]: the amax of each batch entry as fp32 bits.
  Value bits;
  /// i32, kept zero (emitKeptZero): the running max of each entry, and a
  /// 128-byte line on, the count of its finished blocks.
  Value scratch;
  void release(OpBuilder &b, Location loc) {
    for (Value buffer : {bits, scratch})
      if (buffer)
        gpu::DeallocOp::create(b, loc, Type(), ValueRange{}, buffer);
  }
};

/// A grid-stride kernel reducing the amax of each batch entry of an NVFP4
/// quantize's input (after the Hadamard transform, if any): per block an
/// integer atomic max of its warps' maxima into the entry's running max
/// (|x| orders like its fp32 bits) and a count; the entry's last block copies
/// the max to `bits` and sets the running max and the count back to 0. The
/// scratch is kept zero, so a warm call queues no memset ahead of the kernel.
TensorAmax emitTensorAmax(OpBuilder &b, Location loc, const QuantizeSpec &spec,
                          Value input);

/// The threads of a block that reduces an amax itself (emitBlockAmax).
constexpr int64_t kBlockAmaxThreads = 512;

/// Inside `launch` (blocks of kBlockAmaxThreads threads): the amax of batch
/// entry `batch` (null when unbatched) of an NVFP4 quantize's input (after
/// its Hadamard transform, if any), reduced by the block alone from the
/// whole entry (per thread and warp with maxNum, across warps as unsigned
/// fp32 bits from 0: the order-free max emitTensorAmax's atomics take), so
/// no other kernel need run first. Every thread gets it (f32); the block's
/// threads must all reach it (it has a barrier). Adds a workgroup buffer
/// to `launch`. For small inputs: every block reads the whole entry.
Value emitBlockAmax(OpBuilder &b, Location loc, gpu::LaunchOp launch,
                    const QuantizeSpec &spec, Value input, Value seed,
                    Value batch);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
