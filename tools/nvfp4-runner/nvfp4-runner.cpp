//===- nvfp4-runner.cpp - compile and run an nvfp4 program -----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
//   nvfp4-runner program.mlir --input=x.npy --input=w.npy --output=c.npy
//                [--entry=main] [--target=auto|cpu|gpu] [--print]
//                [--benchmark --warmup=10 --reps=100] [--poison=0xff|none]
//
// Compiles the entry function for the target, checks each input against the
// entry's signature (docs/spec.md section 1 gives the .npy storage of every
// type) and the group tables of its grouped matmuls against docs/spec.md
// section 3, runs it once on poisoned outputs, writes/prints the outputs and,
// with --benchmark, times repeated calls. Bad input is reported with a
// message and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"
#include "nvfp4/Runner/CudaRuntime.h"
#include "nvfp4/Runner/Device.h"
#include "nvfp4/Runner/Inputs.h"
#include "nvfp4/Runner/Npy.h"
#include "nvfp4/Runner/Program.h"
#include "nvfp4/Runner/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir;
using namespace mlir::nvfp4;
namespace cl = llvm::cl;

static cl::OptionCategory category("nvfp4-runner options");
static cl::opt<std::string> programFile(cl::Positional, cl::Required,
                                        cl::desc("<program.mlir>"),
                                        cl::cat(category));
static cl::opt<std::string> entryName("entry", cl::init("main"),
                                      cl::desc("entry function"),
                                      cl::cat(category));
static cl::opt<std::string>
    targetName("target", cl::init("auto"),
               cl::desc("cpu, gpu, or auto (a GPU when there is one)"),
               cl::cat(category));
static cl::list<std::string>
    inputFiles("input", cl::desc("a .npy file per entry argument, in order"),
               cl::cat(category));
static cl::alias inputAlias("i", cl::aliasopt(inputFiles));
static cl::list<std::string>
    outputFiles("output", cl::desc("a .npy file per result, in order"),
                cl::cat(category));
static cl::alias outputAlias("o", cl::aliasopt(outputFiles));
static cl::opt<bool> printOutputs("print", cl::desc("print a summary of each "
                                                    "output"),
                                  cl::cat(category));
static cl::opt<std::string>
    poisonByte("poison", cl::init("0xff"),
               cl::desc("byte written over every output before the run "
                        "(so unwritten elements show), or 'none'"),
               cl::cat(category));
static cl::opt<bool> benchmark("benchmark",
                               cl::desc("time repeated calls of the entry"),
                               cl::cat(category));
static cl::opt<int> warmup("warmup", cl::init(10),
                           cl::desc("untimed calls before timing"),
                           cl::cat(category));
static cl::opt<int> reps("reps", cl::init(100), cl::desc("timed calls"),
                         cl::cat(category));
static cl::opt<bool> graphTiming(
    "graph",
    cl::desc("with --benchmark on a GPU: record one call as a CUDA graph and "
             "time its replays (no host launch overhead)"),
    cl::cat(category));
static cl::opt<std::string>
    chipName("chip", cl::desc("GPU chip to compile for (default: the GPU's, "
                              "e.g. sm_90a)"),
             cl::cat(category));
static cl::opt<bool>
    compileOnly("compile-only",
                cl::desc("lower for the target (GPU: down to the cubin) and "
                         "stop; needs no device and no inputs"),
                cl::cat(category));
static cl::opt<bool> portable(
    "portable",
    cl::desc("GPU: use the portable SIMT kernels even where the chip has its "
             "own lowering (sm_90a wgmma GEMMs)"),
    cl::cat(category));
static cl::opt<bool> uncheckedGroupTables(
    "unchecked-group-tables", cl::Hidden,
    cl::desc("testing only: pass group_offsets / masked_m inputs to the "
             "kernels without checking their contract (the kernels must stay "
             "inside their operands; test/Integration/GPU/"
             "sanitizer-group-tables.test)"));

static cl::opt<std::string> pipelineOptions(
    "pipeline-options",
    cl::desc("options of the pipeline the runner picks, as nvfp4-opt takes "
             "them (e.g. \"token-tile=128 stages=4\" on sm_90a; the CPU "
             "pipeline takes none, so any is an error there)"),
    cl::cat(category));
static cl::opt<bool> dumpLowered("dump-lowered",
                                 cl::desc("print the lowered module"),
                                 cl::cat(category));

namespace {

/// A buffer of the device, freed with it.
struct Buffer {
  Device *device = nullptr;
  void *ptr = nullptr;
  ~Buffer() {
    if (ptr)
      device->release(ptr);
  }
};

/// A memref descriptor: allocated and aligned pointer, offset, sizes,
/// strides (the C interface of lowered memrefs).
std::vector<int64_t> makeDescriptor(void *ptr, llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> words = {reinterpret_cast<int64_t>(ptr),
                                reinterpret_cast<int64_t>(ptr), 0};
  words.insert(words.end(), shape.begin(), shape.end());
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  words.insert(words.end(), strides.begin(), strides.end());
  return words;
}

/// Loads a scalar argument from a 0-d .npy into the 8-byte slot `slot`.
llvm::Error loadScalar(const ValueSpec &spec, const NpyArray &array,
                       uint64_t &slot) {
  slot = 0;
  std::memcpy(&slot, array.data.data(), spec.elementBytes);
  return llvm::Error::success();
}

/// A summary of an output: float statistics, or a byte checksum.
void printSummary(llvm::raw_ostream &os, unsigned index, const ValueSpec &spec,
                  const std::vector<uint8_t> &bytes) {
  os << "output #" << index << ": " << spec.type << " as " << spec.descr << " "
     << formatShape(spec.storageShape);
  Type element = cast<RankedTensorType>(spec.type).getElementType();
  auto decode = [&](size_t i) -> double {
    if (element.isF32()) {
      float f;
      std::memcpy(&f, &bytes[4 * i], 4);
      return f;
    }
    if (element.isF16() || element.isBF16()) {
      uint16_t h;
      std::memcpy(&h, &bytes[2 * i], 2);
      return APFloat(element.isF16() ? APFloat::IEEEhalf()
                                     : APFloat::BFloat(),
                     APInt(16, h))
          .convertToDouble();
    }
    return 0;
  };
  size_t count = spec.numElements();
  if (element.isF32() || element.isF16() || element.isBF16()) {
    double sum = 0, sumAbs = 0;
    size_t nonFinite = 0;
    for (size_t i = 0; i < count; ++i) {
      double v = decode(i);
      if (!std::isfinite(v)) {
        ++nonFinite;
        continue;
      }
      sum += v;
      sumAbs += std::fabs(v);
    }
    os << llvm::format(" sum=%.9g sum|x|=%.9g", sum, sumAbs);
    if (nonFinite)
      os << " non-finite=" << nonFinite;
    os << " first=[";
    for (size_t i = 0; i < std::min<size_t>(count, 6); ++i)
      os << (i ? ", " : "") << llvm::format("%.6g", decode(i));
    os << "]\n";
    return;
  }
  uint64_t checksum = 0;
  for (uint8_t byte : bytes)
    checksum = checksum * 1099511628211ull ^ byte; // FNV-1 style
  os << llvm::format(" fnv=0x%016llx", (unsigned long long)checksum)
     << " first bytes=";
  for (size_t i = 0; i < std::min<size_t>(bytes.size(), 16); ++i)
    os << llvm::format("%02x", bytes[i]);
  os << "\n";
}

/// MLIR's NVVM target finds ptxas and libdevice through CUDA_ROOT /
/// CUDA_HOME / CUDA_PATH or PATH: point them at the toolkit if unset.
void prepareCudaToolkit() {
  if (getenv("CUDA_ROOT") || getenv("CUDA_HOME") || getenv("CUDA_PATH"))
    return;
  for (const char *root : {"/usr/local/cuda", "/usr/lib/cuda"}) {
    std::string ptxas = std::string(root) + "/bin/ptxas";
    if (access(ptxas.c_str(), X_OK) == 0) {
      setenv("CUDA_ROOT", root, /*overwrite=*/0);
      return;
    }
  }
}

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "nvfp4-runner") << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "compile and run an nvfp4 program\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // Parse and find the entry.
  llvm::SourceMgr sourceMgr;
  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  OwningOpRef<ModuleOp> module;
  {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context, parseErrorStream);
    module = parseSourceFile<ModuleOp>(programFile, sourceMgr,
                                       ParserConfig(&context));
  }
  if (!module)
    return fail("cannot parse " + programFile + "\n" + parseErrors);
  auto entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (!entry)
    return fail("no function @" + entryName + " in " + programFile);
  llvm::Expected<EntrySignature> signature = getEntrySignature(entry);
  if (!signature)
    return fail("@" + entryName + ": " + toString(signature.takeError()));

  if (compileOnly) {
    if (targetName == "auto")
      return fail("--compile-only needs --target=cpu or --target=gpu");
    ProgramOptions options;
    options.target = targetName == "gpu" ? Target::GPU : Target::CPU;
    options.chip = chipName.empty() ? "sm_90a" : chipName.getValue();
    options.portableKernels = portable;
    options.pipelineOptions = pipelineOptions;
    options.dumpLowered = dumpLowered ? &llvm::outs() : nullptr;
    prepareCudaToolkit();
    if (llvm::Error err = Program::lower(*module, entryName, options))
      return fail(toString(std::move(err)));
    llvm::errs() << "nvfp4-runner: compiled @" << entryName << " for "
                 << (options.target == Target::GPU ? options.chip : "the CPU")
                 << "\n";
    return 0;
  }

  // Check the inputs before compiling anything.
  if (inputFiles.size() != signature->inputs.size())
    return fail("@" + entryName + " takes " +
                llvm::Twine(signature->inputs.size()) + " argument(s), got " +
                llvm::Twine(inputFiles.size()) + " --input file(s)");
  if (!outputFiles.empty() && outputFiles.size() != signature->outputs.size())
    return fail("@" + entryName + " returns " +
                llvm::Twine(signature->outputs.size()) + " result(s), got " +
                llvm::Twine(outputFiles.size()) + " --output file(s)");
  std::vector<NpyArray> inputs;
  for (auto [i, path] : llvm::enumerate(inputFiles)) {
    llvm::Expected<NpyArray> array = readNpy(path);
    if (!array)
      return fail("input #" + llvm::Twine(i) + ": " +
                  toString(array.takeError()));
    inputs.push_back(std::move(*array));
  }
  // dtype, shape and the group tables' contracts (docs/spec.md 1 and 3).
  if (llvm::Error err = checkInputs(
          entry, *signature, inputs,
          std::vector<std::string>(inputFiles.begin(), inputFiles.end()),
          /*checkTables=*/!uncheckedGroupTables))
    return fail(toString(std::move(err)));
  std::optional<uint8_t> poison;
  if (poisonByte != "none") {
    unsigned value;
    if (llvm::StringRef(poisonByte).getAsInteger(0, value) || value > 255)
      return fail("--poison expects a byte (e.g. 0xff) or 'none', got '" +
                  poisonByte + "'");
    poison = value;
  }

  // Target and device: --target=auto takes the GPU when there is one.
  std::unique_ptr<Device> device;
  ProgramOptions options;
  if (targetName != "cpu" && targetName != "gpu" && targetName != "auto")
    return fail("--target must be cpu, gpu or auto, got '" + targetName + "'");
  if (targetName != "cpu") {
    llvm::Expected<std::unique_ptr<Device>> gpu = createCudaDevice();
    if (gpu) {
      device = std::move(*gpu);
      options.target = Target::GPU;
      options.chip = chipName.empty() ? getCudaChip() : chipName.getValue();
      options.portableKernels = portable;
      options.ctas = getCudaMultiprocessorCount();
      prepareCudaToolkit();
    } else if (targetName == "gpu") {
      return fail("--target=gpu: " + toString(gpu.takeError()));
    } else {
      llvm::errs() << "nvfp4-runner: no GPU (" << toString(gpu.takeError())
                   << "); running on the CPU\n";
    }
  }
  if (!device) {
    options.target = Target::CPU;
    device = createHostDevice();
  }
  options.pipelineOptions = pipelineOptions;
  options.dumpLowered = dumpLowered ? &llvm::outs() : nullptr;
  llvm::Expected<std::unique_ptr<Program>> program =
      Program::compile(*module, entryName, options);
  if (!program)
    return fail(toString(program.takeError()));

  // Buffers and the packed argument list of _mlir_ciface_<entry>.
  size_t numArgs = signature->inputs.size() + signature->outputs.size();
  std::vector<Buffer> buffers(numArgs);
  std::vector<std::vector<int64_t>> descriptors(numArgs);
  std::vector<void *> descriptorPtrs(numArgs);
  std::vector<uint64_t> scalars(numArgs);
  std::vector<void *> args(numArgs);
  auto setUp = [&](size_t slot, const ValueSpec &spec) -> llvm::Error {
    if (spec.isScalar) {
      args[slot] = &scalars[slot];
      return llvm::Error::success();
    }
    llvm::Expected<void *> ptr = device->allocate(spec.numBytes());
    if (!ptr)
      return ptr.takeError();
    buffers[slot] = Buffer{device.get(), *ptr};
    descriptors[slot] = makeDescriptor(*ptr, spec.storageShape);
    descriptorPtrs[slot] = descriptors[slot].data();
    args[slot] = &descriptorPtrs[slot];
    return llvm::Error::success();
  };
  for (auto [i, spec] : llvm::enumerate(signature->inputs)) {
    if (llvm::Error err = setUp(i, spec))
      return fail(toString(std::move(err)));
    if (spec.isScalar) {
      if (llvm::Error err = loadScalar(spec, inputs[i], scalars[i]))
        return fail(toString(std::move(err)));
    } else if (llvm::Error err = device->upload(
                   buffers[i].ptr, inputs[i].data.data(), spec.numBytes())) {
      return fail(toString(std::move(err)));
    }
  }
  size_t firstOutput = signature->inputs.size();
  for (auto [i, spec] : llvm::enumerate(signature->outputs)) {
    if (llvm::Error err = setUp(firstOutput + i, spec))
      return fail(toString(std::move(err)));
    if (poison)
      if (llvm::Error err = device->fill(buffers[firstOutput + i].ptr, *poison,
                                         spec.numBytes()))
        return fail(toString(std::move(err)));
  }

  // The checked run.
  if (llvm::Error err = (*program)->invoke(args))
    return fail("running @" + entryName + ": " + toString(std::move(err)));
  if (llvm::Error err = device->synchronize())
    return fail(toString(std::move(err)));
  llvm::errs() << "nvfp4-runner: ran @" << entryName << " on "
               << device->describe() << "\n";

  for (auto [i, spec] : llvm::enumerate(signature->outputs)) {
    std::vector<uint8_t> bytes(spec.numBytes());
    if (llvm::Error err = device->download(
            bytes.data(), buffers[firstOutput + i].ptr, bytes.size()))
      return fail(toString(std::move(err)));
    if (!outputFiles.empty())
      if (llvm::Error err = writeNpy(outputFiles[i], spec.descr,
                                     spec.storageShape, bytes))
        return fail(toString(std::move(err)));
    if (printOutputs)
      printSummary(llvm::outs(), i, spec, bytes);
  }

  if (benchmark) {
    if (warmup < 0 || reps < 1)
      return fail("--warmup must be >= 0 and --reps >= 1");
    auto call = [&]() { return (*program)->invoke(args); };
    for (int i = 0; i < warmup; ++i)
      if (llvm::Error err = call())
        return fail(toString(std::move(err)));
    llvm::Expected<std::vector<double>> times = device->time(call, reps, graphTiming);
    if (!times)
      return fail(toString(times.takeError()));
    std::vector<double> sorted = *times;
    std::sort(sorted.begin(), sorted.end());
    double mean =
        std::accumulate(sorted.begin(), sorted.end(), 0.0) / sorted.size();
    llvm::outs() << llvm::format(
        "benchmark: @%s on %s: median %.3f us, min %.3f us, mean %.3f us "
        "over %d reps (%d warm-up)%s\n",
        entryName.c_str(), device->describe().c_str(),
        sorted[sorted.size() / 2], sorted.front(), mean, reps.getValue(),
        warmup.getValue(),
        graphTiming && options.target == Target::GPU ? ", CUDA graph replays"
                                                     : "");
  }
  return 0;
}
