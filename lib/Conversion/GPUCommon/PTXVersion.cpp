//===- PTXVersion.cpp - the PTX version a gpu.module's kernels need -------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4GPUPTXVERSION
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// ptxas's limits on a kernel's parameters: 4352 bytes before PTX ISA 8.1;
/// from 8.1 on sm_70 and later, 32764.
constexpr uint64_t kSmallParameterBytes = 4352;
constexpr uint64_t kLargeParameterBytes = 32764;
constexpr unsigned kLargeParameterPTX = 81;
constexpr unsigned kLargeParameterArch = 70;

/// The version of a "+ptxNN" entry of `features`, and the entries.
unsigned ptxVersionOf(StringRef features) {
  SmallVector<StringRef> entries;
  features.split(entries, ',', -1, false);
  for (StringRef entry : entries) {
    StringRef body = entry.trim();
    unsigned version = 0;
    if (body.consume_front("+ptx") && !body.getAsInteger(10, version))
      return version;
  }
  return 0;
}

/// `features` with its PTX version replaced by `version`.
std::string withPTXVersion(StringRef features, unsigned version) {
  SmallVector<StringRef> entries;
  features.split(entries, ',', -1, false);
  SmallVector<std::string> kept{("+ptx" + Twine(version)).str()};
  for (StringRef entry : entries)
    if (!entry.trim().starts_with("+ptx"))
      kept.push_back(entry.trim().str());
  return llvm::join(kept, ",");
}

/// 90 for sm_90a, 0 if `chip` is not sm_NN...
unsigned archOf(StringRef chip) {
  unsigned arch = 0;
  if (!chip.consume_front("sm_"))
    return 0;
  chip.consumeInteger(10, arch);
  return arch;
}

/// The bytes of the kernel's parameters as ptxas lays them out: each in
/// turn at its alignment.
uint64_t parameterBytes(LLVM::LLVMFuncOp kernel) {
  DataLayout layout = DataLayout::closest(kernel);
  uint64_t bytes = 0;
  for (Type type : kernel.getArgumentTypes()) {
    uint64_t align = std::max<uint64_t>(layout.getTypeABIAlignment(type), 1);
    bytes = llvm::alignTo(bytes, align) + layout.getTypeSize(type);
  }
  return bytes;
}

/// The PTX ISA version of a TMA load into shared::cta.
constexpr unsigned kCTAOnlyTMAPTX = 86;
/// The first chip whose TMA loads take a .cta_group qualifier.
constexpr unsigned kCTAGroupTMAArch = 100;

/// What one kernel needs of its module's target.
struct KernelNeeds {
  LLVM::LLVMFuncOp kernel;
  uint64_t parameterBytes = 0;
  unsigned ptxVersion = 0;
  std::string why;
  /// A TMA load with .cta_group (a CTA pair's loads, sm_100a on).
  bool ctaGroupTMA = false;
};

KernelNeeds needsOf(LLVM::LLVMFuncOp kernel) {
  KernelNeeds needs;
  needs.kernel = kernel;
  needs.parameterBytes = parameterBytes(kernel);
  if (needs.parameterBytes > kSmallParameterBytes) {
    needs.ptxVersion = kLargeParameterPTX;
    needs.why = "takes " + std::to_string(needs.parameterBytes) +
                " bytes of parameters: more than " +
                std::to_string(kSmallParameterBytes) + " need";
  }
  kernel.walk([&](NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp load) {
    if (load.getIsCTAOnly() && needs.ptxVersion < kCTAOnlyTMAPTX) {
      needs.ptxVersion = kCTAOnlyTMAPTX;
      needs.why = "loads with TMA into shared::cta: that needs";
    }
    needs.ctaGroupTMA |= load.getGroup().has_value();
  });
  return needs;
}

struct NVFP4GPUPTXVersionPass
    : public nvfp4::impl::NVFP4GPUPTXVersionBase<NVFP4GPUPTXVersionPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      if (!module.getTargets())
        continue;
      SmallVector<KernelNeeds> kernels;
      for (auto func : module.getOps<LLVM::LLVMFuncOp>())
        if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
          kernels.push_back(needsOf(func));
      SmallVector<Attribute> targets(module.getTargetsAttr().getValue());
      for (Attribute &attr : targets) {
        auto target = dyn_cast<NVVM::NVVMTargetAttr>(attr);
        if (!target)
          continue;
        unsigned version = ptxVersionOf(target.getFeatures());
        unsigned raiseTo = version;
        for (KernelNeeds &needs : kernels) {
          auto fail = [&](const Twine &why) {
            needs.kernel.emitError()
                << "kernel '" << needs.kernel.getSymName() << "' " << why;
            signalPassFailure();
          };
          if (needs.parameterBytes > kSmallParameterBytes) {
            std::string bytes = "takes " +
                                std::to_string(needs.parameterBytes) +
                                " bytes of parameters: ";
            StringRef groups = " (independent groups pass each group's "
                               "operands: fewer groups per op, or the "
                               "contiguous or masked grouping)";
            if (needs.parameterBytes > kLargeParameterBytes)
              return fail(bytes + "more than a launch takes (" +
                          Twine(kLargeParameterBytes) + ")" + groups);
            if (archOf(target.getChip()) < kLargeParameterArch)
              return fail(bytes + "more than " + Twine(kSmallParameterBytes) +
                          " need sm_" + Twine(kLargeParameterArch) +
                          " or later, not " + target.getChip() + groups);
          }
          // LLVM's NVPTX backend aborts on these below sm_100 ("Cannot
          // select"); the NVVM op's own check does not look at the group.
          if (needs.ctaGroupTMA && archOf(target.getChip()) < kCTAGroupTMAArch)
            return fail("loads with TMA for a CTA group (.cta_group): that "
                        "needs sm_" +
                        Twine(kCTAGroupTMAArch) + "a or later, not " +
                        target.getChip());
          if (needs.ptxVersion <= version)
            continue;
          if (!raisePtx)
            return fail(needs.why + " PTX ISA " + Twine(needs.ptxVersion / 10) +
                        "." + Twine(needs.ptxVersion % 10) +
                        " or later (features=+ptx" + Twine(needs.ptxVersion) +
                        ", or no PTX version in features=)");
          raiseTo = std::max(raiseTo, needs.ptxVersion);
        }
        if (raiseTo != version)
          attr = NVVM::NVVMTargetAttr::get(
              &getContext(), target.getO(), target.getTriple(),
              target.getChip(), withPTXVersion(target.getFeatures(), raiseTo),
              target.getFlags(), target.getLink(), target.getVerifyTarget());
      }
      module.setTargetsAttr(ArrayAttr::get(&getContext(), targets));
    }
  }
};

} // namespace
