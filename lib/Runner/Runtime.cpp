//===- Runtime.cpp - compile once, launch on caller-owned memory ----------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runner/Runtime.h"

#include "nvfp4/InitAll.h"
#include "nvfp4/Runner/CudaRuntime.h"
#include "nvfp4/Runner/Device.h"
#include "nvfp4/Runner/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

using namespace mlir;
using namespace mlir::nvfp4;

#ifndef NVFP4_VERSION
#define NVFP4_VERSION "unknown"
#endif

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

Kernel::~Kernel() {
  if (options_.target != Target::GPU)
    return;
  // Its workspaces and modules go while no other thread launches, in the
  // runtime's context (this thread may have none current).
  std::unique_lock<std::recursive_mutex> lock = lockCudaRuntime();
  makeCudaContextCurrent();
  releaseCudaWorkspaces(this);
  program_.reset();
}

/// Whether an array of (code, bits) can hold elements of `spec`'s type:
/// the storage of docs/spec.md section 1, given as numpy or torch dtypes.
static bool acceptsDType(const ValueSpec &spec, DTypeCode code,
                         unsigned bits) {
  Type element = spec.type;
  if (auto shaped = dyn_cast<ShapedType>(element))
    element = shaped.getElementType();
  unsigned expected = spec.elementBytes * 8;
  if (bits != expected)
    return false;
  bool narrow = uint8_t(code) >= uint8_t(DTypeCode::FirstNarrowFloat) &&
                uint8_t(code) <= uint8_t(DTypeCode::LastNarrowFloat);
  if (element.isF32() || element.isF16() || element.isF64())
    return code == DTypeCode::Float;
  if (element.isBF16()) // bf16 tensors, or their bits as (u)int16
    return code == DTypeCode::BFloat || code == DTypeCode::UInt ||
           code == DTypeCode::Int;
  if (isa<FloatType>(element)) // FP4 bytes, f8 scales: any byte type
    return code == DTypeCode::UInt || code == DTypeCode::Int || narrow ||
           code == DTypeCode::Opaque;
  if (element.isInteger())
    return code == DTypeCode::Int || code == DTypeCode::UInt ||
           (element.isInteger(1) && code == DTypeCode::Bool);
  return false;
}

static std::string describeDType(DTypeCode code, unsigned bits) {
  const char *kind = "type code " ;
  switch (code) {
  case DTypeCode::Int: kind = "int"; break;
  case DTypeCode::UInt: kind = "uint"; break;
  case DTypeCode::Float: kind = "float"; break;
  case DTypeCode::BFloat: kind = "bfloat"; break;
  case DTypeCode::Bool: kind = "bool"; break;
  case DTypeCode::Opaque: kind = "opaque"; break;
  default:
    return "narrow float (DLPack code " + std::to_string(int(code)) + ", " +
           std::to_string(bits) + " bits)";
  }
  return kind + std::to_string(bits);
}

llvm::Error Kernel::checkArgs(llvm::ArrayRef<ArrayArg> args,
                              const LaunchOptions &options) const {
  size_t numInputs = signature_.inputs.size();
  size_t expected = numInputs + signature_.outputs.size();
  if (args.size() != expected)
    return makeError("@" + entry_ + " takes " + llvm::Twine(numInputs) +
                     " input(s) and " +
                     llvm::Twine(signature_.outputs.size()) +
                     " output(s), got " + llvm::Twine(args.size()) +
                     " array(s)");
  bool gpu = options_.target == Target::GPU;
  for (auto [i, arg] : llvm::enumerate(args)) {
    bool isInput = i < numInputs;
    const ValueSpec &spec = isInput ? signature_.inputs[i]
                                    : signature_.outputs[i - numInputs];
    // Messages are built only on failure: this runs on every launch.
    auto what = [&]() {
      return (isInput ? "input #" + llvm::Twine(i)
                      : "output #" + llvm::Twine(i - numInputs))
          .str();
    };
    auto typeText = [&]() {
      std::string text;
      llvm::raw_string_ostream(text) << spec.type;
      return text;
    };
    llvm::ArrayRef<int64_t> shape =
        spec.isScalar ? llvm::ArrayRef<int64_t>()
                      : llvm::ArrayRef<int64_t>(spec.storageShape);
    auto mismatch = [&]() {
      return makeError(what() + ": " + typeText() + " expects " + spec.what +
                       " " + formatShape(shape) + ", got " +
                       describeDType(arg.code, arg.bits) + " " +
                       formatShape(arg.shape));
    };
    if (!llvm::equal(arg.shape, shape) ||
        !acceptsDType(spec, arg.code, arg.bits))
      return mismatch();
    if (!arg.data && spec.numElements() > 0)
      return makeError(what() + ": null data pointer");
    if (spec.isScalar) {
      if (arg.onDevice)
        return makeError(what() + ": the scalar " + typeText() +
                         " must be in host memory");
      continue;
    }
    // C-contiguous (size-1 dimensions may have any stride, and an empty
    // array any strides at all).
    if (!arg.strides.empty() && spec.numElements() > 0) {
      int64_t stride = 1;
      for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
        if (shape[d] != 1 && arg.strides[d] != stride)
          return makeError(what() + ": not C-contiguous (strides " +
                           formatShape(arg.strides) + " for shape " +
                           formatShape(shape) +
                           "); make it contiguous first");
        stride *= shape[d];
      }
    }
    if (arg.onDevice != (gpu && !options.stageHostArrays))
      return makeError(what() + ": the program was compiled for " +
                       (gpu ? "the GPU" : "the CPU") + " and needs " +
                       (arg.onDevice ? "host" : "CUDA device") +
                       " memory here, got " +
                       (arg.onDevice ? "CUDA device" : "host") + " memory");
  }

  // The group tables' run-time contract (docs/spec.md section 3).
  if (!options.checkTables)
    return llvm::Error::success();
  for (const GroupTable &table : tables_) {
    if (table.argument < 0)
      continue; // constants were checked at compile time
    const ArrayArg &arg = args[table.argument];
    const ValueSpec &spec = signature_.inputs[table.argument];
    std::vector<int32_t> values(spec.numElements());
    if (arg.onDevice) {
      if (llvm::Error err =
              copyFromCuda(values.data(), arg.data,
                           values.size() * sizeof(int32_t), options.stream))
        return err;
    } else {
      std::memcpy(values.data(), arg.data, values.size() * sizeof(int32_t));
    }
    if (llvm::Error err = checkGroupTable(
            table, values, "input #" + llvm::Twine(table.argument)))
      return err;
  }
  return llvm::Error::success();
}

/// A memref descriptor (allocated and aligned pointer, offset, sizes,
/// strides) of a C-contiguous array: the C interface of a lowered memref.
static void fillDescriptor(llvm::SmallVectorImpl<int64_t> &words, void *ptr,
                           llvm::ArrayRef<int64_t> shape) {
  words.clear();
  words.append({reinterpret_cast<int64_t>(ptr), reinterpret_cast<int64_t>(ptr),
                0});
  words.append(shape.begin(), shape.end());
  size_t first = words.size();
  words.resize(first + shape.size());
  int64_t stride = 1;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    words[first + d] = stride;
    stride *= shape[d];
  }
}

llvm::Error Kernel::launch(llvm::ArrayRef<ArrayArg> args,
                           const LaunchOptions &options) {
  // A GPU launch, checks (tables read back), staging and timing included,
  // runs while no other thread uses the CUDA runtime's state.
  std::unique_lock<std::recursive_mutex> lock;
  if (options_.target == Target::GPU)
    lock = lockCudaRuntime();
  if (llvm::Error err = checkArgs(args, options))
    return err;
  if (options.times && options.stream)
    return makeError("timing runs on the runtime's own stream: give no "
                     "stream");
  if (options_.target == Target::GPU && options.stageHostArrays) {
    if (options.stream)
      return makeError("staged host arrays go through the runtime's own "
                       "stream: give no stream");
    return launchStaged(args, options);
  }
  return call(args, options);
}

llvm::Error Kernel::launchStaged(llvm::ArrayRef<ArrayArg> args,
                                 const LaunchOptions &options) {
  llvm::Expected<std::unique_ptr<Device>> device = createCudaDevice();
  if (!device)
    return device.takeError();
  /// Device copies of the arrays, freed on every path out.
  struct Buffers {
    Device &device;
    std::vector<void *> ptrs;
    ~Buffers() {
      for (void *ptr : ptrs)
        if (ptr)
          device.release(ptr);
    }
  } buffers{**device, std::vector<void *>(args.size())};
  size_t numInputs = signature_.inputs.size();
  auto specOf = [&](size_t i) -> const ValueSpec & {
    return i < numInputs ? signature_.inputs[i]
                         : signature_.outputs[i - numInputs];
  };
  llvm::SmallVector<ArrayArg, 16> staged(args.begin(), args.end());
  for (auto [i, arg] : llvm::enumerate(args)) {
    const ValueSpec &spec = specOf(i);
    if (spec.isScalar)
      continue;
    llvm::Expected<void *> ptr = (*device)->allocate(spec.numBytes());
    if (!ptr)
      return ptr.takeError();
    buffers.ptrs[i] = *ptr;
    if (llvm::Error err =
            (*device)->upload(*ptr, arg.data, spec.numBytes()))
      return err;
    staged[i].data = *ptr;
    staged[i].onDevice = true;
  }
  LaunchOptions deviceOptions = options;
  deviceOptions.stageHostArrays = false;
  if (llvm::Error err = call(staged, deviceOptions))
    return err;
  for (size_t i = numInputs; i < args.size(); ++i)
    if (llvm::Error err = (*device)->download(args[i].data, buffers.ptrs[i],
                                              specOf(i).numBytes()))
      return err;
  return llvm::Error::success();
}

llvm::Error Kernel::call(llvm::ArrayRef<ArrayArg> args,
                         const LaunchOptions &options) {
  size_t numInputs = signature_.inputs.size();
  llvm::SmallVector<llvm::SmallVector<int64_t, 16>, 16> descriptors(
      args.size());
  llvm::SmallVector<void *, 16> descriptorPtrs(args.size());
  llvm::SmallVector<uint64_t, 16> scalars(args.size());
  llvm::SmallVector<void *, 16> slots(args.size());
  for (auto [i, arg] : llvm::enumerate(args)) {
    const ValueSpec &spec = i < numInputs ? signature_.inputs[i]
                                          : signature_.outputs[i - numInputs];
    if (spec.isScalar) {
      std::memcpy(&scalars[i], arg.data, spec.elementBytes);
      slots[i] = &scalars[i];
      continue;
    }
    fillDescriptor(descriptors[i], arg.data, spec.storageShape);
    descriptorPtrs[i] = descriptors[i].data();
    slots[i] = &descriptorPtrs[i];
  }
  bool gpu = options_.target == Target::GPU;
  auto invoke = [&]() -> llvm::Error {
    if (!gpu)
      return program_->invoke(slots);
    // The CUDA runtime's launch state is process-wide: the scope holds its
    // lock.
    CudaLaunchScope scope(options.stream, this);
    if (llvm::Error err = program_->invoke(slots))
      return err;
    return takeCudaError();
  };
  if (llvm::Error err = invoke())
    return err;
  if (!options.times)
    return llvm::Error::success();

  if (options.warmup < 0 || options.reps < 1)
    return makeError("timing needs warmup >= 0 and reps >= 1");
  std::unique_ptr<Device> device;
  if (gpu) {
    llvm::Expected<std::unique_ptr<Device>> cuda = createCudaDevice();
    if (!cuda)
      return cuda.takeError();
    device = std::move(*cuda);
  } else {
    device = createHostDevice();
  }
  for (int i = 0; i < options.warmup; ++i)
    if (llvm::Error err = invoke())
      return err;
  llvm::Expected<std::vector<double>> times =
      device->time(invoke, options.reps, options.graph);
  if (!times)
    return times.takeError();
  *options.times = std::move(*times);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

struct Runtime::Impl {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Kernel>> kernels;
  std::string version;
  std::optional<std::string> gpuError; // set once the GPU was looked for
  std::string gpuName;
};

/// The compiler's identity in cache keys: the project version and the
/// binary this code was loaded from (path, size, modification time), so a
/// rebuilt compiler never reuses another build's kernels.
static std::string computeVersion() {
  std::string version = NVFP4_VERSION;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&computeVersion), &info) &&
      info.dli_fname) {
    struct stat st;
    if (stat(info.dli_fname, &st) == 0)
      version += llvm::formatv(" {0} {1} {2}.{3}", info.dli_fname,
                               int64_t(st.st_size), int64_t(st.st_mtim.tv_sec),
                               int64_t(st.st_mtim.tv_nsec))
                     .str();
  }
  return version;
}

Runtime::Runtime() : impl(std::make_unique<Impl>()) {
  registerAllDialects(impl->registry); // translations to LLVM IR included
  impl->context = std::make_unique<MLIRContext>(impl->registry);
  impl->version = computeVersion();
}

Runtime::~Runtime() = default;

Runtime &Runtime::get() {
  // Never destroyed: kernels may be released by other static destructors
  // (Python's) after this one would have run.
  static Runtime *runtime = new Runtime();
  return *runtime;
}

MLIRContext &Runtime::context() { return *impl->context; }

const std::string &Runtime::compilerVersion() const { return impl->version; }

llvm::Error Runtime::requireGPU() {
  if (!impl->gpuError) {
    llvm::Expected<std::unique_ptr<Device>> device = createCudaDevice();
    if (device) {
      impl->gpuError = "";
      impl->gpuName = (*device)->describe();
    } else {
      impl->gpuError = llvm::toString(device.takeError());
    }
  }
  if (!impl->gpuError->empty())
    return makeError(*impl->gpuError);
  return llvm::Error::success();
}

bool Runtime::hasGPU() {
  llvm::Error err = requireGPU();
  bool ok = !err;
  llvm::consumeError(std::move(err));
  return ok;
}

std::string Runtime::gpuDescription() {
  return hasGPU() ? impl->gpuName : "";
}

std::string Runtime::cacheDirectory() const {
  if (const char *dir = std::getenv("NVFP4_CACHE_DIR"))
    return llvm::StringRef(dir) == "off" ? "" : dir;
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    path = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(path, home, ".cache");
  else
    return "";
  llvm::sys::path::append(path, "nvfp4");
  return path.str().str();
}

void Runtime::clearMemoryCache() {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->kernels.clear();
}

/// The on-disk entry: a header naming the key it was written for (checked
/// on load, so a hash collision or a truncated file is a miss), then the
/// host module's bitcode.
static constexpr llvm::StringLiteral kCacheMagic = "nvfp4-kernel-cache-1\n";

static std::string cacheEntry(llvm::StringRef key, llvm::StringRef bitcode) {
  std::string entry = kCacheMagic.str();
  entry += std::to_string(key.size()) + "\n";
  entry += key;
  entry += bitcode;
  return entry;
}

/// The bitcode of an entry written for `key`, or nothing.
static std::optional<llvm::StringRef> cachedBitcode(llvm::StringRef entry,
                                                    llvm::StringRef key) {
  if (!entry.consume_front(kCacheMagic))
    return std::nullopt;
  auto [length, rest] = entry.split('\n');
  size_t size;
  if (length.getAsInteger(10, size) || size != key.size() ||
      !rest.starts_with(key))
    return std::nullopt;
  return rest.drop_front(size);
}

/// Writes `contents` to `path` through a unique temporary file renamed into
/// place: readers see the old file, no file, or the whole new one, also
/// when several processes fill the cache at once.
static void writeAtomically(const std::string &path, llvm::StringRef contents) {
  llvm::SmallString<256> temp;
  int fd;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.flush();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return;
    }
  }
  if (llvm::sys::fs::rename(temp, path))
    llvm::sys::fs::remove(temp);
}

llvm::Expected<std::shared_ptr<Kernel>>
Runtime::compile(llvm::StringRef program, llvm::StringRef entry,
                 ProgramOptions options) {
  auto start = std::chrono::steady_clock::now();
  if (options.target == Target::GPU) {
    if (llvm::Error err = requireGPU())
      return std::move(err);
    if (options.chip.empty())
      options.chip = getCudaChip();
    if (options.ctas == 0)
      options.ctas = getCudaMultiprocessorCount();
  }
  bool useCaches = options.dumpLowered == nullptr;

  // Everything that defines the compiled program.
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    os << impl->version << '\0' << entry << '\0'
       << (options.target == Target::GPU ? "gpu " + options.chip : "cpu")
       << '\0' << options.portableKernels << '\0' << options.emulateTcgen05
       << '\0' << options.ctas << '\0'
       << options.pipelineOptions << '\0' << program;
  }
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (useCaches) {
    auto it = impl->kernels.find(key);
    if (it != impl->kernels.end()) {
      ++stats_.memoryHits;
      return it->second;
    }
  }

  // Parse; the signature and the group tables come from the source.
  MLIRContext &ctx = *impl->context;
  std::shared_ptr<Kernel> kernel(new Kernel());
  {
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, errorStream);
    kernel->module_ = parseSourceString<ModuleOp>(program, ParserConfig(&ctx),
                                                  "program");
    if (!kernel->module_)
      return makeError("invalid program (parser or verifier):\n" + errors);
  }
  auto func = kernel->module_->lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return makeError("no function @" + entry + " in the program");
  llvm::Expected<EntrySignature> signature = getEntrySignature(func);
  if (!signature)
    return makeError("@" + entry + ": " + toString(signature.takeError()));
  kernel->signature_ = std::move(*signature);
  kernel->tables_ = getGroupTables(func);
  for (const GroupTable &table : kernel->tables_) {
    DenseIntElementsAttr constant;
    if (table.argument >= 0 || !matchPattern(table.value, m_Constant(&constant)))
      continue;
    std::vector<int32_t> values;
    for (const APInt &v : constant.getValues<APInt>())
      values.push_back(int32_t(v.getSExtValue()));
    if (llvm::Error err = checkGroupTable(table, values, "a constant table"))
      return std::move(err);
  }
  kernel->entry_ = entry.str();
  kernel->options_ = options;

  // The disk cache, then the compiler.
  std::string path;
  std::string dir = useCaches ? cacheDirectory() : "";
  if (!dir.empty()) {
    llvm::SHA256 hash;
    hash.update(key);
    std::array<uint8_t, 32> digest = hash.final();
    path = (dir + "/" + llvm::toHex(digest, /*LowerCase=*/true) + ".bc");
    if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
            llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false)) {
      if (std::optional<llvm::StringRef> bitcode =
              cachedBitcode((*file)->getBuffer(), key)) {
        llvm::Expected<std::unique_ptr<Program>> loaded =
            Program::load(&ctx, *bitcode, entry, options);
        if (loaded) {
          kernel->program_ = std::move(*loaded);
          kernel->fromDiskCache_ = true;
          ++stats_.diskHits;
        } else {
          llvm::consumeError(loaded.takeError()); // recompiled below
        }
      }
    }
  }
  if (!kernel->program_) {
    std::string bitcode;
    llvm::Expected<std::unique_ptr<Program>> compiled = Program::compile(
        *kernel->module_, entry, options, path.empty() ? nullptr : &bitcode);
    if (!compiled)
      return compiled.takeError();
    kernel->program_ = std::move(*compiled);
    ++stats_.compiles;
    if (!path.empty() && !bitcode.empty() &&
        !llvm::sys::fs::create_directories(dir)) {
      writeAtomically(path, cacheEntry(key, bitcode));
      ++stats_.diskWrites;
    }
  }
  kernel->compileSeconds_ = std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start)
                                .count();
  if (useCaches)
    impl->kernels[key] = kernel;
  return kernel;
}
