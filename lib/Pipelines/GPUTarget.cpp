//===- GPUTarget.cpp - the chips the GPU pipelines compile for ------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/GPUTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

struct ChipInfo {
  StringLiteral name;
  /// The first PTX ISA version with the target (LLVM 22's NVPTX backend
  /// refuses lower ones: "PTX version 8.0 does not support target ...").
  unsigned minPTXVersion;
  ChipFeature features;
};

constexpr ChipFeature kNone = ChipFeature::none;
/// What every chip from sm_90 on has.
constexpr ChipFeature kSM90On = ChipFeature::tma | ChipFeature::gridDependency;
constexpr ChipFeature kE2M1 = ChipFeature::e2m1Convert | kSM90On;
constexpr ChipFeature kE2M1RS =
    ChipFeature::e2m1Convert | ChipFeature::e2m1StochasticConvert | kSM90On;

/// Every chip from Maxwell on, as LLVM 22 names them (`llc -mcpu=help`).
/// The features follow what the compiler's own checks accept, probed with
/// LLVM 22 and MLIR 22: wgmma only on sm_90a; the tcgen05 ops MLIR's NVVM
/// dialect verifies for sm_100a alone (tcgen05.alloc: sm_100a/sm_101a,
/// tcgen05.mma.block_scale: sm_100a/sm_110a); the e2m1x2 conversion on the
/// arch- and family-specific Blackwell targets; the stochastic e2m1x4 one on
/// sm_100a and sm_103a.
// clang-format off
constexpr ChipInfo kChips[] = {
    // Maxwell, Pascal, Volta, Turing.
    {"sm_50", 40, kNone}, {"sm_52", 41, kNone}, {"sm_53", 42, kNone},
    {"sm_60", 50, kNone}, {"sm_61", 50, kNone}, {"sm_62", 50, kNone},
    {"sm_70", 60, kNone}, {"sm_72", 61, kNone}, {"sm_75", 63, kNone},
    // Ampere, Ada.
    {"sm_80", 70, kNone}, {"sm_86", 71, kNone}, {"sm_87", 74, kNone},
    {"sm_88", 90, kNone}, {"sm_89", 78, kNone},
    // Hopper.
    {"sm_90", 78, kSM90On}, {"sm_90a", 80, ChipFeature::wgmma | kSM90On},
    // Blackwell: base, arch-specific (a) and family (f) targets.
    {"sm_100", 86, kSM90On}, {"sm_100a", 86, ChipFeature::tcgen05 | kE2M1RS},
    {"sm_100f", 88, kE2M1},
    {"sm_101", 86, kSM90On}, {"sm_101a", 86, kE2M1}, {"sm_101f", 88, kE2M1},
    {"sm_103", 88, kSM90On}, {"sm_103a", 88, kE2M1RS}, {"sm_103f", 88, kE2M1},
    {"sm_110", 90, kSM90On}, {"sm_110a", 90, kE2M1}, {"sm_110f", 90, kE2M1},
    {"sm_120", 87, kSM90On}, {"sm_120a", 87, kE2M1}, {"sm_120f", 88, kE2M1},
    {"sm_121", 88, kSM90On}, {"sm_121a", 88, kE2M1}, {"sm_121f", 88, kE2M1},
};
// clang-format on

/// The PTX ISA versions LLVM 22's NVPTX backend knows (`+ptxNN` features).
constexpr unsigned kPTXVersions[] = {32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64,
                                     65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80,
                                     81, 82, 83, 84, 85, 86, 87, 88, 90};

/// One feature at a time, with what the messages call it.
constexpr std::pair<ChipFeature, StringLiteral> kFeatureNames[] = {
    {ChipFeature::wgmma, "wgmma.mma_async"},
    {ChipFeature::tcgen05, "tcgen05 block-scaled MMA"},
    {ChipFeature::e2m1Convert, "cvt.rn.satfinite.e2m1x2.f32"},
    {ChipFeature::e2m1StochasticConvert, "cvt.rs.satfinite.e2m1x4.f32"},
    {ChipFeature::tma, "cp.async.bulk.tensor (TMA)"},
};

const ChipInfo *lookup(StringRef chip) {
  const auto *it = llvm::find_if(
      kChips, [&](const ChipInfo &info) { return info.name == chip; });
  return it == std::end(kChips) ? nullptr : it;
}

bool has(ChipFeature set, ChipFeature wanted) {
  return (set & wanted) == wanted;
}

/// "sm_100a, sm_103a": the chips with `feature`.
std::string chipsWith(ChipFeature feature) {
  SmallVector<StringRef> names;
  for (const ChipInfo &info : kChips)
    if (has(info.features, feature))
      names.push_back(info.name);
  return llvm::join(names, ", ");
}

} // namespace

std::string mlir::nvfp4::ptxVersionString(unsigned version) {
  return (Twine(version / 10) + "." + Twine(version % 10)).str();
}

bool mlir::nvfp4::chipHas(StringRef chip, ChipFeature features) {
  const ChipInfo *info = lookup(chip);
  return info && has(info->features, features);
}

FailureOr<GPUTarget>
mlir::nvfp4::resolveGPUTarget(StringRef chip, StringRef features,
                              const GPUPipelineNeeds &needs,
                              std::string &error) {
  auto fail = [&](const Twine &message) {
    error = (needs.pipeline + ": " + message).str();
    return failure();
  };
  const ChipInfo *info = lookup(chip);
  if (!info) {
    SmallVector<StringRef> names;
    for (const ChipInfo &known : kChips)
      names.push_back(known.name);
    return fail("unknown chip '" + chip + "'; expected one of " +
                llvm::join(names, ", "));
  }

  // The instructions the pipeline's kernels use.
  SmallVector<std::string> missing;
  for (auto [feature, name] : kFeatureNames)
    if (has(needs.features, feature) && !has(info->features, feature))
      missing.push_back(
          (name + " (this compiler emits it for " + chipsWith(feature) + ")")
              .str());
  if (!missing.empty())
    return fail(chip + " has no " + llvm::join(missing, " and no ") +
                "; nvfp4-lower-to-gpu compiles the portable kernels for any "
                "chip");

  // The PTX version: the lowest that has both the chip and the kernels,
  // unless the features name one (which must be at least that).
  unsigned required = std::max(info->minPTXVersion, needs.minPTXVersion);
  SmallVector<StringRef> entries;
  SmallVector<std::string> kept;
  std::optional<unsigned> named;
  features.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    entry = entry.trim();
    if (entry.empty())
      continue;
    StringRef body = entry.ltrim("+-");
    // NVPTX's only features besides the PTX version are its chips, which
    // chip= selects: anything else LLVM would ignore with a warning.
    if (!body.starts_with("ptx"))
      return fail("features: '" + entry +
                  "' is not a feature this compiler knows (features= takes a "
                  "PTX ISA version, +ptxNN; the chip is chip=)");
    unsigned version = 0;
    if (!entry.starts_with("+") ||
        body.drop_front(3).getAsInteger(10, version) ||
        !llvm::is_contained(kPTXVersions, version))
      return fail("features: '" + entry +
                  "' is not a PTX ISA version this compiler knows (+ptx" +
                  Twine(kPTXVersions[0]) + " to +ptx" +
                  Twine(std::end(kPTXVersions)[-1]) + ")");
    if (named)
      return fail("features: more than one PTX ISA version in '" + features +
                  "'");
    named = version;
  }
  if (named && *named < info->minPTXVersion)
    return fail("features '" + features + "' select PTX ISA " +
                ptxVersionString(*named) + ", but " + chip + " needs " +
                ptxVersionString(info->minPTXVersion) + " or later");
  if (named && *named < needs.minPTXVersion)
    return fail("features '" + features + "' select PTX ISA " +
                ptxVersionString(*named) + ", but the pipeline needs " +
                ptxVersionString(needs.minPTXVersion) + " or later" +
                (needs.minPTXReason.empty()
                     ? std::string()
                     : (" (" + needs.minPTXReason + ")").str()));
  GPUTarget target;
  target.chip = chip.str();
  target.ptxVersion = named.value_or(required);
  target.ptxNamed = named.has_value();
  kept.insert(kept.begin(), ("+ptx" + Twine(target.ptxVersion)).str());
  target.features = llvm::join(kept, ",");
  return target;
}
