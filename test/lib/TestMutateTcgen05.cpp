//===- TestMutateTcgen05.cpp - the emulation's mutation test ------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
// nvfp4-test-mutate-tcgen05: changes one field the hardware reads in every
// tcgen05 op it applies to, so that a test can show that nvfp4-emulate-
// tcgen05 reads that field (an emulated run of the mutated kernel must fail
// its check: test/Integration/GPU/emulate-tcgen05-mutations.test). A test
// pass: nvfp4-opt and nvfp4-runner register it; a pipeline runs it only when
// a test names it (nvfp4-lower-to-sm100's `emulation-passes`).
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace {

struct TestMutateTcgen05
    : PassWrapper<TestMutateTcgen05, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestMutateTcgen05)

  TestMutateTcgen05() = default;
  TestMutateTcgen05(const TestMutateTcgen05 &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "nvfp4-test-mutate-tcgen05"; }
  StringRef getDescription() const final {
    return "Corrupt one field of the tcgen05 ops (the emulation's mutation "
           "test): `field` is swizzle (operand descriptors: 128B -> 64B), "
           "sbo (operand descriptors: SBO halved), lbo (operand descriptors: "
           "LBO 16 -> 32 B), idesc-n (N halved), idesc-m (M 128 <-> 256), "
           "sf-id (SFA id 0 -> 2), cp-shape (32x128b.warpx4 -> 128x128b), "
           "tmem-column (the epilogue's tcgen05.ld one column to the right), "
           "scale-column (the MMA's SFB address one column to the right), "
           "d-column (the MMA's accumulator address one column to the "
           "right), enable-input-d (every MMA accumulates into D, the "
           "tile's first too), commit-mask (multicast commits signal the "
           "even CTAs of their mask only) or cta-group (cta_group::2 ops "
           "made cta_group::1: a CTA pair's kernel run as single CTAs)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, LLVM::LLVMDialect>();
  }

  Option<std::string> field{*this, "field",
                            llvm::cl::desc("The field to corrupt")};

  /// A TMEM address (!llvm.ptr<6>) one column to the right.
  static Value nextColumn(ImplicitLocOpBuilder &b, Value address) {
    Value column = LLVM::PtrToIntOp::create(b, b.getI32Type(), address);
    Value next = arith::AddIOp::create(
        b, column, arith::ConstantIntOp::create(b, b.getI32Type(), 1));
    return LLVM::IntToPtrOp::create(b, address.getType(), next);
  }

  void runOnOperation() override {
    enum Kind {
      swizzle,
      sbo,
      lbo,
      idescN,
      idescM,
      sfId,
      cpShape,
      tmemColumn,
      scaleColumn,
      dColumn,
      enableInputD,
      commitMask,
      ctaGroup,
      unknown
    };
    Kind kind = llvm::StringSwitch<Kind>(field)
                    .Case("swizzle", swizzle)
                    .Case("sbo", sbo)
                    .Case("lbo", lbo)
                    .Case("idesc-n", idescN)
                    .Case("idesc-m", idescM)
                    .Case("sf-id", sfId)
                    .Case("cp-shape", cpShape)
                    .Case("tmem-column", tmemColumn)
                    .Case("scale-column", scaleColumn)
                    .Case("d-column", dColumn)
                    .Case("enable-input-d", enableInputD)
                    .Case("commit-mask", commitMask)
                    .Case("cta-group", ctaGroup)
                    .Default(unknown);
    if (kind == unknown) {
      getOperation().emitError("nvfp4-test-mutate-tcgen05: unknown field '")
          << field << "'";
      return signalPassFailure();
    }
    int64_t changed = 0;
    getOperation().walk([&](Operation *op) {
      ImplicitLocOpBuilder b(op->getLoc(), op);
      auto i32 = [&](int64_t v) {
        return arith::ConstantIntOp::create(b, b.getI32Type(), v);
      };
      if (kind == ctaGroup) {
        if (!op->getName().getStringRef().starts_with("nvvm.tcgen05."))
          return;
        auto single = NVVM::CTAGroupKindAttr::get(op->getContext(),
                                                  NVVM::CTAGroupKind::CTA_1);
        SmallVector<StringAttr> pairs;
        for (NamedAttribute attr : op->getAttrDictionary()) {
          auto group = dyn_cast<NVVM::CTAGroupKindAttr>(attr.getValue());
          if (group && group.getValue() == NVVM::CTAGroupKind::CTA_2)
            pairs.push_back(attr.getName());
        }
        for (StringAttr name : pairs)
          op->setAttr(name, single);
        changed += pairs.size();
        return;
      }
      if (auto desc = dyn_cast<NVVM::Tcgen05MmaSmemDescOp>(op)) {
        // Operand descriptors only (the scale copies' have no swizzle):
        // those an MMA uses, directly or advanced along K by arithmetic (as
        // the CuTe DSL's kernels do).
        SetVector<Operation *> users;
        getForwardSlice(desc.getOperation(), &users);
        bool operand = llvm::any_of(users, [](Operation *user) {
          return isa<NVVM::Tcgen05MMABlockScaleOp>(user);
        });
        if (!operand)
          return;
        switch (kind) {
        case swizzle:
          // Swizzle code 2 (128B) -> 4 (64B).
          desc->setOperand(5,
                           arith::ConstantIntOp::create(b, b.getI8Type(), 4));
          ++changed;
          break;
        case sbo:
          desc->setOperand(
              2, arith::DivUIOp::create(b, desc->getOperand(2), i32(2)));
          ++changed;
          break;
        case lbo:
          desc->setOperand(1, i32(2));
          ++changed;
          break;
        default:
          break;
        }
        return;
      }
      if (auto mma = dyn_cast<NVVM::Tcgen05MMABlockScaleOp>(op)) {
        Value idesc = mma.getIdesc();
        switch (kind) {
        case idescN: {
          // N >> 3 in bits 17-22, halved.
          Value nField = arith::AndIOp::create(
              b, arith::ShRUIOp::create(b, idesc, i32(17)), i32(0x3F));
          Value halved = arith::ShRUIOp::create(b, nField, i32(1));
          Value cleared = arith::AndIOp::create(b, idesc, i32(~(0x3F << 17)));
          mma->setOperand(
              3, arith::OrIOp::create(
                     b, cleared, arith::ShLIOp::create(b, halved, i32(17))));
          ++changed;
          break;
        }
        case idescM:
          // M >> 7 in bits 27-28: 1 (128) <-> 2 (256).
          mma->setOperand(3, arith::XOrIOp::create(b, idesc, i32(3 << 27)));
          ++changed;
          break;
        case sfId:
          // SFA id (bits 29-30) XOR 2.
          mma->setOperand(3, arith::XOrIOp::create(b, idesc, i32(2 << 29)));
          ++changed;
          break;
        case scaleColumn:
          mma->setOperand(6, nextColumn(b, mma.getScaleB()));
          ++changed;
          break;
        case dColumn:
          mma->setOperand(0, nextColumn(b, mma.getMatrixD()));
          ++changed;
          break;
        case enableInputD:
          // Accumulate into D from the tile's first MMA on.
          mma->setOperand(4, arith::ConstantIntOp::create(b, b.getI1Type(), 1));
          ++changed;
          break;
        default:
          break;
        }
        return;
      }
      if (auto cp = dyn_cast<NVVM::Tcgen05CpOp>(op)) {
        if (kind == cpShape &&
            cp.getShape() == NVVM::Tcgen05CpShape::SHAPE_32x128b) {
          cp.setShape(NVVM::Tcgen05CpShape::SHAPE_128x128b);
          cp.setMulticast(NVVM::Tcgen05CpMulticast::NONE);
          ++changed;
        }
        return;
      }
      if (auto commit = dyn_cast<NVVM::Tcgen05CommitOp>(op)) {
        if (kind == commitMask && commit.getMulticastMask()) {
          Value mask = commit.getMulticastMask();
          commit.getMulticastMaskMutable().assign(arith::AndIOp::create(
              b, mask,
              arith::ConstantIntOp::create(b, mask.getType(), 0x5555)));
          ++changed;
        }
      }
      if (auto ld = dyn_cast<NVVM::Tcgen05LdOp>(op)) {
        if (kind == tmemColumn) {
          ld->setOperand(0, nextColumn(b, ld.getTmemAddr()));
          ++changed;
        }
        return;
      }
    });
    if (changed == 0) {
      getOperation().emitError("nvfp4-test-mutate-tcgen05: no op has field '")
          << field << "'";
      return signalPassFailure();
    }
  }
};

} // namespace

void mlir::nvfp4::test::registerTestPasses() {
  PassRegistration<TestMutateTcgen05>();
}
