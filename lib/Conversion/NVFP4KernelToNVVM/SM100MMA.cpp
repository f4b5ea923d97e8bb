//===- SM100MMA.cpp - nvfp4k lowering: the sm_100a MMA step -----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nvfp4/Conversion/GPUCommon/KernelArith.h"
#include "nvfp4/Dialect/NVFP4/Utils/Codegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::nvfp4k;
using namespace mlir::nvfp4k::lowering;

namespace {

//===----------------------------------------------------------------------===//
// sm_100a MMA step
//===----------------------------------------------------------------------===//

/// The tcgen05 instruction descriptor of a block-scaled MMA (PTX ISA,
/// "Instruction descriptor format for .kind::mxf4 and .kind::mxf4nvf4"),
/// field by field. What the kernels leave 0: sparsity (bit 2), negation
/// (13, 14), transposition (15, 16: both operands K-major), bit 31 (dense
/// K = 64); bits 0-1, 3, 6, 12 and 24-26 are reserved.
struct IDescField {
  unsigned lsb, width;
  constexpr uint32_t mask() const { return ((1u << width) - 1) << lsb; }
  /// `value` in the field; it must fit.
  uint32_t operator()(uint64_t value) const {
    assert(value < (1ull << width) && "instruction descriptor field overflow");
    return static_cast<uint32_t>(value) << lsb;
  }
};
constexpr IDescField kSFBId{4, 2}, kAType{7, 3}, kBType{10, 2}, kNDiv8{17, 6},
    kScaleType{23, 1}, kMDiv128{27, 2}, kSFAId{29, 2};
constexpr uint32_t kReservedBits =
    0b11u | (1u << 3) | (1u << 6) | (1u << 12) | (0b111u << 24);
/// The fields are disjoint and clear of the reserved bits.
static_assert((kSFBId.mask() & kAType.mask()) == 0 &&
              (kAType.mask() & kBType.mask()) == 0 &&
              (kBType.mask() & kNDiv8.mask()) == 0 &&
              (kNDiv8.mask() & kScaleType.mask()) == 0 &&
              (kScaleType.mask() & kMDiv128.mask()) == 0 &&
              (kMDiv128.mask() & kSFAId.mask()) == 0 &&
              ((kSFBId.mask() | kAType.mask() | kBType.mask() | kNDiv8.mask() |
                kScaleType.mask() | kMDiv128.mask() | kSFAId.mask()) &
               kReservedBits) == 0,
              "instruction descriptor fields overlap");
/// Field values: E2M1 operands; UE4M3 (NVFP4) or UE8M0 (MXFP4) scales.
constexpr uint32_t kE2M1Code = 1, kUE4M3Code = 0, kUE8M0Code = 1;

static uint32_t blockScaledInstructionDescriptor(int64_t m, int64_t n,
                                                 bool mxfp4, int64_t sfId) {
  assert(m % 128 == 0 && n % 8 == 0 && "M a multiple of 128, N of 8");
  return kSFBId(sfId) | kAType(kE2M1Code) | kBType(kE2M1Code) |
         kNDiv8(n / 8) | kScaleType(mxfp4 ? kUE8M0Code : kUE4M3Code) |
         kMDiv128(m / 128) | kSFAId(sfId);
}

struct Tcgen05ScaledMmaLowering : OpConversionPattern<Tcgen05ScaledMmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05ScaledMmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    MLIRContext *ctx = op.getContext();
    Type i32 = b.getI32Type();
    auto c32 = [&](int64_t v) { return cInt(b, i32, v); };
    auto add = [&](Value x, Value y) {
      return arith::AddIOp::create(b, x, y).getResult();
    };
    auto tmem = [&](Value address) {
      return LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(ctx, 6),
                                      address);
    };
    auto sharedAddress = [&](Value memref) {
      Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, memref);
      return arith::IndexCastOp::create(b, i32, index).getResult();
    };
    // Shared-memory matrix descriptor (tcgen05): the op ORs in the version
    // bit but does not shift (test/Canary): addresses and offsets >> 4.
    auto smemDesc = [&](Value address, int64_t lbo, int64_t sbo,
                        int64_t swizzle) {
      return NVVM::Tcgen05MmaSmemDescOp::create(
          b, b.getI64Type(), arith::ShRUIOp::create(b, address, c32(4)),
          c32(lbo >> 4), c32(sbo >> 4), cInt(b, b.getI8Type(), 0),
          cInt(b, b.getI1Type(), 0), cInt(b, b.getI8Type(), swizzle));
    };
    bool mxfp4 = op.getMxfp4();
    int64_t units = op.getUnits(), steps = op.getSteps();
    int64_t blocks = op.getBScaleBlocks();
    Value kStage = adaptor.getKStage();
    Value firstUnit = arith::MulIOp::create(b, kStage, cIndex(b, units));
    Value firstStep = arith::MulIOp::create(b, kStage, cIndex(b, steps));
    Value aColumns = adaptor.getScaleColumns();
    Value bColumns = add(aColumns, c32(4 * units));
    Value aScales = sharedAddress(adaptor.getAScales());
    Value bScales = sharedAddress(adaptor.getBScales());
    auto ifThen = [&](Value cond, function_ref<void()> then) {
      scf::IfOp::create(b, cond, [&](OpBuilder &, Location) {
        then();
        scf::YieldOp::create(b);
      });
    };
    auto before = [&](Value first, int64_t i, int64_t total) {
      return arith::CmpIOp::create(
          b, arith::CmpIPredicate::slt,
          arith::AddIOp::create(b, first, cIndex(b, i)), cIndex(b, total));
    };
    // The stage's scale units -> its own tensor-memory columns: one
    // 512-byte unit (32 rows x 16 B, no swizzle) -> 4 columns, replicated
    // to the 4 lane quarters.
    auto copy = [&](Value columns, Value source) {
      NVVM::Tcgen05CpOp::create(
          b, NVVM::Tcgen05CpShape::SHAPE_32x128b, NVVM::CTAGroupKind::CTA_1,
          NVVM::Tcgen05CpMulticast::WARPX4, NVVM::Tcgen05CpSrcFormatAttr(),
          tmem(columns), smemDesc(source, 0, 128, 0));
    };
    constexpr int64_t unitBytes = nvfp4::Swizzled128x4Attr::kUnitBytes;
    for (int64_t u = 0; u < units; ++u) {
      ifThen(before(firstUnit, u, op.getTotalUnits()), [&] {
        copy(add(aColumns, c32(4 * u)), add(aScales, c32(unitBytes * u)));
        for (int64_t rb = 0; rb < blocks; ++rb)
          copy(add(bColumns, c32(4 * (u * blocks + rb))),
               add(bScales, c32(unitBytes * (rb * units + u))));
      });
    }
    // K steps of 64 along the 128-byte swizzle row: +32 bytes (+2 encoded)
    // each; LBO 16 B ("assumed 1"), SBO 1024 B, 128B swizzle (code 2).
    Value aDesc = smemDesc(sharedAddress(adaptor.getA()), 16, 1024, 2);
    Value bDesc = smemDesc(sharedAddress(adaptor.getB()), 16, 1024, 2);
    auto kind = mxfp4 ? NVVM::MMABlockScaleKind::MXF4
                      : NVVM::MMABlockScaleKind::MXF4NVF4;
    auto blockScale = mxfp4 ? NVVM::Tcgen05MMABlockScale::BLOCK32
                            : NVVM::Tcgen05MMABlockScale::BLOCK16;
    for (int64_t j = 0; j < steps; ++j) {
      ifThen(before(firstStep, j, op.getTotalSteps()), [&] {
        // NVFP4 (block16): unit j, scale id 0. MXFP4 (block32): one unit
        // covers K = 128; ids 0 and 2 pick its halves.
        int64_t u = mxfp4 ? j / 2 : j;
        int64_t sfId = mxfp4 ? 2 * (j % 2) : 0;
        auto step = [&](Value desc) {
          return j ? arith::AddIOp::create(b, desc,
                                           cInt(b, b.getI64Type(), 2 * j))
                         .getResult()
                   : desc;
        };
        Value accumulate = arith::CmpIOp::create(
            b, arith::CmpIPredicate::ne,
            arith::AddIOp::create(b, firstStep, cIndex(b, j)), cIndex(b, 0));
        NVVM::Tcgen05MMABlockScaleOp::create(
            b, kind, NVVM::CTAGroupKind::CTA_1, blockScale,
            NVVM::Tcgen05MMACollectorOp::DISCARD,
            tmem(adaptor.getAccumulator()), step(aDesc), step(bDesc),
            c32(blockScaledInstructionDescriptor(128, op.getN(), mxfp4, sfId)),
            accumulate, tmem(add(aColumns, c32(4 * u))),
            tmem(add(add(bColumns, c32(4 * u * blocks)),
                     adaptor.getBScaleOffset())));
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct Tcgen05CommitLowering : OpConversionPattern<Tcgen05CommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Tcgen05CommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    RingType ring = op.getRing().getType();
    RingPosition p = ringPosition(b, ring, adaptor.getPosition());
    Value id = op.getBarrier() == RingBarrier::empty
                   ? emptyBarrier(b, ring, p.stage)
                   : p.stage;
    Value barrier =
        nvgpu::MBarrierGetOp::create(b, b.getI64Type(), adaptor.getRing(), id);
    NVVM::Tcgen05CommitOp::create(
        b,
        LLVM::IntToPtrOp::create(
            b, LLVM::LLVMPointerType::get(op.getContext(), 3), barrier),
        Value());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::nvfp4k::lowering::populateSM100MmaPatterns(const TypeConverter &converter,
    RewritePatternSet &patterns) {
  patterns.add<Tcgen05ScaledMmaLowering, Tcgen05CommitLowering>(converter, patterns.getContext());
}
