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

#include "TestPasses.h"
#include "nvfp4/InitAll.h"
#include "nvfp4/Runner/CudaRuntime.h"
#include "nvfp4/Runner/Device.h"
#include "nvfp4/Runner/Inputs.h"
#include "nvfp4/Runner/Npy.h"
#include "nvfp4/Runner/Program.h"
#include "nvfp4/Runner/Runtime.h"
#include "nvfp4/Runner/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
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
static cl::opt<bool> emulateTcgen05(
    "emulate-tcgen05",
    cl::desc("GPU: run the sm_100a (tcgen05) kernels on this GPU under "
             "nvfp4-emulate-tcgen05 (any chip with TMA; for testing the "
             "Blackwell kernels without Blackwell)"),
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

/// The DLPack element type of a value's .npy storage (what Kernel::launch
/// checks the arrays against).
void storageDType(const ValueSpec &spec, ArrayArg &arg) {
  arg.bits = spec.elementBytes * 8;
  switch (spec.descr.empty() ? 'u' : spec.descr[1]) {
  case 'f':
    arg.code = DTypeCode::Float;
    break;
  case 'i':
    arg.code = DTypeCode::Int;
    break;
  case 'b':
    arg.code = DTypeCode::Bool;
    break;
  default:
    arg.code = DTypeCode::UInt;
  }
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
  // Tests name them in pipeline options (emulation-passes=...).
  mlir::nvfp4::test::registerTestPasses();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "compile and run an nvfp4 program\n");

  // The runtime's context: the program is parsed once here (for the
  // signature and the input checks) and once more by Runtime::compile().
  MLIRContext &context = Runtime::get().context();
  context.loadAllAvailableDialects();

  // Parse and find the entry.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(programFile, /*IsText=*/true);
  if (!file)
    return fail("cannot read " + programFile + ": " +
                file.getError().message());
  std::string programText = (*file)->getBuffer().str();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  OwningOpRef<ModuleOp> module;
  {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context, parseErrorStream);
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  }
  if (!module)
    return fail("cannot parse " + programFile + "\n" + parseErrors);
  auto entry = module->lookupSymbol<func::FuncOp>(entryName);
  if (!entry)
    return fail("no function @" + entryName + " in " + programFile);
  llvm::Expected<EntrySignature> signature = getEntrySignature(entry);
  if (!signature)
    return fail("@" + entryName + ": " + toString(signature.takeError()));

  if (emulateTcgen05 && targetName == "cpu")
    return fail("--emulate-tcgen05 runs GPU kernels; it needs --target=gpu "
                "or auto");
  if ((!chipName.empty() || portable) && targetName == "cpu")
    return fail(llvm::Twine(!chipName.empty() ? "--chip" : "--portable") +
                " chooses GPU code; it needs --target=gpu or auto");
  if (compileOnly) {
    if (targetName == "auto")
      return fail("--compile-only needs --target=cpu or --target=gpu");
    ProgramOptions options;
    options.target = targetName == "gpu" ? Target::GPU : Target::CPU;
    options.chip = chipName.empty() ? "sm_90a" : chipName.getValue();
    options.portableKernels = portable;
    options.emulateTcgen05 = emulateTcgen05;
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

  // Target: --target=auto takes the GPU when there is one.
  ProgramOptions options;
  if (targetName != "cpu" && targetName != "gpu" && targetName != "auto")
    return fail("--target must be cpu, gpu or auto, got '" + targetName + "'");
  Runtime &runtime = Runtime::get();
  if (targetName != "cpu") {
    if (llvm::Error err = runtime.requireGPU()) {
      if (targetName == "gpu")
        return fail("--target=gpu: " + toString(std::move(err)));
      // The CPU code is not what --emulate-tcgen05 asks to run.
      if (emulateTcgen05)
        return fail("--emulate-tcgen05 runs GPU kernels: " +
                    toString(std::move(err)));
      llvm::errs() << "nvfp4-runner: no GPU (" << toString(std::move(err))
                   << "); running on the CPU\n";
    } else {
      options.target = Target::GPU;
      options.chip = chipName;
      options.portableKernels = portable;
      options.emulateTcgen05 = emulateTcgen05;
      prepareCudaToolkit();
    }
  }
  options.pipelineOptions = pipelineOptions;
  options.dumpLowered = dumpLowered ? &llvm::outs() : nullptr;
  if (benchmark && (warmup < 0 || reps < 1))
    return fail("--warmup must be >= 0 and --reps >= 1");

  // Compile (or find in the runtime's caches) and call it on host arrays:
  // the runtime stages them through device memory for the GPU, outputs
  // too, so elements the program leaves unwritten keep the poison.
  llvm::Expected<std::shared_ptr<Kernel>> kernel =
      runtime.compile(programText, entryName, options);
  if (!kernel)
    return fail(toString(kernel.takeError()));
  std::vector<std::vector<uint8_t>> outputs;
  for (const ValueSpec &spec : signature->outputs)
    outputs.emplace_back(spec.numBytes(), poison.value_or(0));
  std::vector<ArrayArg> args;
  auto addArray = [&](void *data, const ValueSpec &spec) {
    ArrayArg arg;
    arg.data = data;
    if (!spec.isScalar)
      arg.shape.assign(spec.storageShape.begin(), spec.storageShape.end());
    storageDType(spec, arg);
    args.push_back(std::move(arg));
  };
  for (auto [i, spec] : llvm::enumerate(signature->inputs))
    addArray(inputs[i].data.data(), spec);
  for (auto [i, spec] : llvm::enumerate(signature->outputs))
    addArray(outputs[i].data(), spec);
  LaunchOptions launch;
  launch.checkTables = !uncheckedGroupTables;
  launch.stageHostArrays = true;
  std::vector<double> times;
  if (benchmark) {
    launch.warmup = warmup;
    launch.reps = reps;
    launch.graph = graphTiming;
    launch.times = &times;
  }
  if (llvm::Error err = (*kernel)->launch(args, launch))
    return fail("running @" + entryName + ": " + toString(std::move(err)));
  std::string where = options.target == Target::GPU
                          ? runtime.gpuDescription()
                          : createHostDevice()->describe();
  llvm::errs() << "nvfp4-runner: ran @" << entryName << " on " << where
               << "\n";

  for (auto [i, spec] : llvm::enumerate(signature->outputs)) {
    if (!outputFiles.empty())
      if (llvm::Error err = writeNpy(outputFiles[i], spec.descr,
                                     spec.storageShape, outputs[i]))
        return fail(toString(std::move(err)));
    if (printOutputs)
      printSummary(llvm::outs(), i, spec, outputs[i]);
  }

  if (benchmark) {
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    double mean =
        std::accumulate(sorted.begin(), sorted.end(), 0.0) / sorted.size();
    llvm::outs() << llvm::format(
        "benchmark: @%s on %s: median %.3f us, min %.3f us, mean %.3f us "
        "over %d reps (%d warm-up)%s\n",
        entryName.c_str(), where.c_str(), sorted[sorted.size() / 2],
        sorted.front(), mean, reps.getValue(), warmup.getValue(),
        graphTiming && options.target == Target::GPU ? ", CUDA graph replays"
                                                     : "");
  }
  return 0;
}
