//===- Runtime.cpp - C API of the nvfp4 runtime ---------------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4-c/Runtime.h"

#include "nvfp4/Runner/Runtime.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::nvfp4;

struct nvfp4_kernel {
  std::shared_ptr<Kernel> kernel;
};

#define NVFP4_EXPORT extern "C" __attribute__((visibility("default")))

static char *copyString(llvm::StringRef s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (out) {
    std::memcpy(out, s.data(), s.size());
    out[s.size()] = '\0';
  }
  return out;
}

static int fail(char **error, llvm::Error err) {
  std::string message = llvm::toString(std::move(err));
  if (error)
    *error = copyString(message);
  return 1;
}

static int fail(char **error, llvm::StringRef message) {
  if (error)
    *error = copyString(message);
  return 1;
}

NVFP4_EXPORT int nvfp4_api_version(void) { return NVFP4_C_API_VERSION; }

NVFP4_EXPORT const char *nvfp4_compiler_version(void) {
  return Runtime::get().compilerVersion().c_str();
}

NVFP4_EXPORT void nvfp4_free(void *ptr) { std::free(ptr); }

NVFP4_EXPORT int nvfp4_gpu_info(char **info) {
  Runtime &rt = Runtime::get();
  llvm::Error err = rt.requireGPU();
  if (err) {
    std::string message = llvm::toString(std::move(err));
    if (info)
      *info = copyString(message);
    return 0;
  }
  if (info)
    *info = copyString(rt.gpuDescription());
  return 1;
}

NVFP4_EXPORT char *nvfp4_cache_directory(void) {
  return copyString(Runtime::get().cacheDirectory());
}

NVFP4_EXPORT void nvfp4_cache_stats(int64_t counts[4]) {
  RuntimeStats stats = Runtime::get().stats();
  counts[0] = stats.memoryHits;
  counts[1] = stats.diskHits;
  counts[2] = stats.compiles;
  counts[3] = stats.diskWrites;
}

NVFP4_EXPORT void nvfp4_clear_memory_cache(void) {
  Runtime::get().clearMemoryCache();
}

NVFP4_EXPORT int nvfp4_compile(const char *program, size_t programSize,
                               const char *entry,
                               const nvfp4_compile_options *options,
                               nvfp4_kernel **kernel, char **error) {
  if (!program || !entry || !options || !options->target || !kernel)
    return fail(error, "nvfp4_compile: null argument");
  ProgramOptions programOptions;
  llvm::StringRef target = options->target;
  if (target == "gpu")
    programOptions.target = Target::GPU;
  else if (target != "cpu")
    return fail(error, "target must be 'cpu' or 'gpu', got '" + target.str() +
                           "'");
  if (options->chip)
    programOptions.chip = options->chip;
  programOptions.portableKernels = options->portable_kernels != 0;
  programOptions.emulateTcgen05 = options->emulate_tcgen05 != 0;
  if (programOptions.emulateTcgen05 && programOptions.target != Target::GPU)
    return fail(error, "emulate_tcgen05 runs the sm_100a GPU kernels: it "
                       "needs target 'gpu'");
  if (options->ctas < 0)
    return fail(error, "ctas must be >= 0");
  programOptions.ctas = options->ctas;
  if (options->pipeline_options)
    programOptions.pipelineOptions = options->pipeline_options;
  llvm::Expected<std::shared_ptr<Kernel>> compiled = Runtime::get().compile(
      llvm::StringRef(program, programSize), entry, programOptions);
  if (!compiled)
    return fail(error, compiled.takeError());
  *kernel = new nvfp4_kernel{std::move(*compiled)};
  return 0;
}

NVFP4_EXPORT void nvfp4_kernel_release(nvfp4_kernel *kernel) { delete kernel; }

NVFP4_EXPORT int32_t nvfp4_kernel_num_inputs(const nvfp4_kernel *kernel) {
  return int32_t(kernel->kernel->signature().inputs.size());
}

NVFP4_EXPORT int32_t nvfp4_kernel_num_outputs(const nvfp4_kernel *kernel) {
  return int32_t(kernel->kernel->signature().outputs.size());
}

NVFP4_EXPORT int nvfp4_kernel_value(const nvfp4_kernel *kernel, int32_t index,
                                    nvfp4_value_info *info) {
  const EntrySignature &signature = kernel->kernel->signature();
  size_t numInputs = signature.inputs.size();
  if (index < 0 || size_t(index) >= numInputs + signature.outputs.size())
    return 1;
  const ValueSpec &spec = size_t(index) < numInputs
                              ? signature.inputs[index]
                              : signature.outputs[index - numInputs];
  std::vector<int64_t> shape =
      spec.isScalar ? std::vector<int64_t>{} : spec.storageShape;
  if (shape.size() > NVFP4_MAX_RANK)
    return 1;
  std::memset(info, 0, sizeof(*info));
  info->ndim = int32_t(shape.size());
  std::copy(shape.begin(), shape.end(), info->shape);
  info->element_bytes = spec.elementBytes;
  info->is_scalar = spec.isScalar;
  std::string type;
  llvm::raw_string_ostream(type) << spec.type;
  std::strncpy(info->type, type.c_str(), sizeof(info->type) - 1);
  return 0;
}

NVFP4_EXPORT int32_t nvfp4_kernel_is_gpu(const nvfp4_kernel *kernel) {
  return kernel->kernel->target() == Target::GPU;
}

NVFP4_EXPORT int32_t nvfp4_kernel_from_disk_cache(const nvfp4_kernel *kernel) {
  return kernel->kernel->fromDiskCache();
}

NVFP4_EXPORT double nvfp4_kernel_compile_seconds(const nvfp4_kernel *kernel) {
  return kernel->kernel->compileSeconds();
}

NVFP4_EXPORT int nvfp4_launch(nvfp4_kernel *kernel, const nvfp4_array *args,
                              size_t count,
                              const nvfp4_launch_options *launchOptions,
                              char **error) {
  if (!kernel || (count && !args))
    return fail(error, "nvfp4_launch: null argument");
  llvm::SmallVector<ArrayArg, 16> arrays(count);
  for (size_t i = 0; i < count; ++i) {
    const nvfp4_array &in = args[i];
    if (in.ndim < 0 || in.ndim > NVFP4_MAX_RANK ||
        (in.ndim && !in.shape))
      return fail(error, "array #" + std::to_string(i) + ": bad rank");
    ArrayArg &out = arrays[i];
    out.data = in.data;
    out.shape.assign(in.shape, in.shape + in.ndim);
    if (in.strides)
      out.strides.assign(in.strides, in.strides + in.ndim);
    out.code = DTypeCode(in.code);
    out.bits = in.bits;
    out.onDevice = in.on_device != 0;
  }
  LaunchOptions options;
  std::vector<double> times;
  if (launchOptions) {
    options.stream = launchOptions->stream;
    options.checkTables = launchOptions->check_tables != 0;
    options.stageHostArrays = launchOptions->stage_host_arrays != 0;
    if (launchOptions->times) {
      options.warmup = launchOptions->warmup;
      options.reps = launchOptions->reps;
      options.graph = launchOptions->graph != 0;
      options.times = &times;
    }
  }
  if (llvm::Error err = kernel->kernel->launch(arrays, options))
    return fail(error, std::move(err));
  if (launchOptions && launchOptions->times)
    std::copy(times.begin(), times.end(), launchOptions->times);
  return 0;
}
