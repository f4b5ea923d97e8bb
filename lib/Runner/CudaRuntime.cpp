//===- CudaRuntime.cpp - the runner's CUDA driver runtime ------------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runner/CudaRuntime.h"
#include "nvfp4/Conversion/GPUCommon/DependentLaunch.h"
#include "nvfp4/Conversion/GPUCommon/KeptZero.h"
#include "nvfp4/Conversion/GPUCommon/TensorMapWords.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

// The lock over the runtime's state (CudaRuntime.h), in both builds: every
// CudaLaunchScope takes it.
std::unique_lock<std::recursive_mutex> mlir::nvfp4::lockCudaRuntime() {
  static std::recursive_mutex mutex;
  return std::unique_lock<std::recursive_mutex>(mutex);
}

#ifdef NVFP4_HAVE_CUDA_H

#include <cuda.h>
#include <dlfcn.h>

#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

using namespace mlir::nvfp4;

namespace {

/// The driver entry points we use, resolved from libcuda.so.1 with
/// cuGetProcAddress for the CUDA version the runner was built against.
struct Driver {
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driverGetVersion = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetCount) deviceGetCount = nullptr;
  decltype(&::cuDeviceGetName) deviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primaryCtxRetain = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuModuleLoadData) moduleLoadData = nullptr;
  decltype(&::cuModuleUnload) moduleUnload = nullptr;
  decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&::cuFuncSetAttribute) funcSetAttribute = nullptr;
  decltype(&::cuLaunchKernelEx) launchKernelEx = nullptr;
  decltype(&::cuModuleGetGlobal) moduleGetGlobal = nullptr;
  decltype(&::cuMemAllocAsync) memAllocAsync = nullptr;
  decltype(&::cuMemFreeAsync) memFreeAsync = nullptr;
  decltype(&::cuMemcpyAsync) memcpyAsync = nullptr;
  decltype(&::cuMemcpyHtoDAsync) memcpyHtoDAsync = nullptr;
  decltype(&::cuMemcpyDtoHAsync) memcpyDtoHAsync = nullptr;
  decltype(&::cuMemsetD8Async) memsetD8Async = nullptr;
  decltype(&::cuMemsetD16Async) memsetD16Async = nullptr;
  decltype(&::cuMemsetD32Async) memsetD32Async = nullptr;
  decltype(&::cuStreamCreate) streamCreate = nullptr;
  decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::cuStreamWaitEvent) streamWaitEvent = nullptr;
  decltype(&::cuEventCreate) eventCreate = nullptr;
  decltype(&::cuEventDestroy) eventDestroy = nullptr;
  decltype(&::cuEventRecord) eventRecord = nullptr;
  decltype(&::cuEventSynchronize) eventSynchronize = nullptr;
  decltype(&::cuEventElapsedTime) eventElapsedTime = nullptr;
  decltype(&::cuTensorMapEncodeTiled) tensorMapEncodeTiled = nullptr;
  decltype(&::cuMemAlloc) memAlloc = nullptr;
  decltype(&::cuMemcpyHtoD) memcpyHtoD = nullptr;
  decltype(&::cuStreamBeginCapture) streamBeginCapture = nullptr;
  decltype(&::cuStreamEndCapture) streamEndCapture = nullptr;
  decltype(&::cuGraphInstantiateWithFlags) graphInstantiate = nullptr;
  decltype(&::cuGraphLaunch) graphLaunch = nullptr;
  decltype(&::cuGraphExecDestroy) graphExecDestroy = nullptr;
  decltype(&::cuGraphDestroy) graphDestroy = nullptr;
  decltype(&::cuMemFree) memFree = nullptr;
  decltype(&::cuThreadExchangeStreamCaptureMode) exchangeCaptureMode = nullptr;
  decltype(&::cuStreamIsCapturing) streamIsCapturing = nullptr;
};

/// Temporaries of one program on one caller stream (a CudaLaunchScope's
/// owner): the i-th allocation of a call reuses the i-th buffer of the
/// previous call, so a call allocates nothing once warm and can be
/// captured into a CUDA graph.
struct Workspace {
  struct Slot {
    CUdeviceptr ptr = 0;
    size_t bytes = 0;
    /// Allocated by the handout of the current call (nothing has used it).
    bool fresh = false;
    /// Zero when handed out in the current call: its previous user declared
    /// it kept zero (nvfp4KeptZero) and so left it zero.
    bool zero = false;
    /// Whether the current call's user declared it kept zero.
    bool keptZero = false;
  };
  std::vector<Slot> slots;
  /// Buffers outgrown while earlier work may still read them; freed with
  /// the workspace.
  std::vector<CUdeviceptr> retired;
  size_t next = 0;
};

/// Process-wide runtime state: the driver, the device, its one stream, and
/// the first error an ABI call ran into.
struct Runtime {
  Driver cu;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  /// Zeroes buffers no queued work uses yet, outside any stream's order
  /// (never recorded into a graph: nothing is captured on it).
  CUstream zeroStream = nullptr;
  int major = 0, minor = 0, multiprocessors = 0;
  std::string name;
  std::string firstError;
  /// While timing, programs must not synchronize the stream after each
  /// call: back-to-back calls keep the GPU busy and the events exact.
  bool deferSynchronize = false;
  /// Tensor maps already in device memory, by everything that defines them:
  /// repeated calls reuse them instead of allocating and copying each time.
  std::map<std::vector<int64_t>, CUdeviceptr> tensorMaps;
  /// The stream of the CudaLaunchScope in effect (null: `stream`), whether
  /// it is a caller's (then the runtime never synchronizes it), and the
  /// workspace its calls allocate from (null: stream-ordered allocations).
  CUstream launchStream = nullptr;
  bool callerStream = false;
  Workspace *workspace = nullptr;
  /// By (owner, stream, thread): the thread only for CU_STREAM_PER_THREAD,
  /// whose handle names another stream on each thread.
  std::map<std::tuple<const void *, CUstream, std::thread::id>, Workspace>
      workspaces;
  /// Each launch of lowered host code looks its kernel up by name and
  /// (above 48 KiB) raises its shared-memory limit: both are done once per
  /// kernel, not per launch (each is a driver call).
  std::map<std::pair<CUmodule, const char *>, CUfunction> functions;
  std::map<CUfunction, int32_t> sharedMemoryLimits;
  /// Modules whose kernels all wait for the kernels ahead of them (they
  /// carry kDependentLaunchMarker), and those kernels: launched as
  /// programmatic dependents (DependentLaunch.h).
  std::set<CUmodule> dependentModules;
  std::set<CUfunction> dependentFunctions;
};

Runtime &runtime() {
  // Never destroyed: programs may be released by other static destructors
  // (Python's) after this one would have run.
  static Runtime *rt = new Runtime();
  return *rt;
}

std::string errorName(CUresult result) {
  const char *name = nullptr;
  if (runtime().cu.getErrorName &&
      runtime().cu.getErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUresult " + std::to_string(static_cast<int>(result));
}

/// Records the first failing call (ABI functions cannot return errors).
bool check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  Runtime &rt = runtime();
  if (rt.firstError.empty())
    rt.firstError = std::string(what) + " failed: " + errorName(result);
  return false;
}

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Opens libcuda and resolves every entry point once.
llvm::Error initialize() {
  Runtime &rt = runtime();
  if (rt.stream)
    return llvm::Error::success();
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return makeError("no CUDA driver (libcuda.so.1 not found)");
  using GetProcAddress = CUresult (*)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);
  auto getProc = reinterpret_cast<GetProcAddress>(
      dlsym(lib, "cuGetProcAddress_v2"));
  if (!getProc)
    return makeError("libcuda.so.1 has no cuGetProcAddress_v2 (driver too "
                     "old for CUDA " +
                     llvm::Twine(CUDA_VERSION / 1000) + ")");
  std::string missing;
  auto resolve = [&](auto &fn, const char *symbol) {
    void *ptr = nullptr;
    CUdriverProcAddressQueryResult status;
    if (getProc(symbol, &ptr, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT,
                &status) != CUDA_SUCCESS ||
        !ptr)
      missing += std::string(missing.empty() ? "" : ", ") + symbol;
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(ptr);
  };
  Driver &cu = rt.cu;
  resolve(cu.getErrorName, "cuGetErrorName");
  resolve(cu.init, "cuInit");
  resolve(cu.driverGetVersion, "cuDriverGetVersion");
  resolve(cu.deviceGet, "cuDeviceGet");
  resolve(cu.deviceGetCount, "cuDeviceGetCount");
  resolve(cu.deviceGetName, "cuDeviceGetName");
  resolve(cu.deviceGetAttribute, "cuDeviceGetAttribute");
  resolve(cu.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(cu.ctxSetCurrent, "cuCtxSetCurrent");
  resolve(cu.moduleLoadData, "cuModuleLoadData");
  resolve(cu.moduleUnload, "cuModuleUnload");
  resolve(cu.moduleGetFunction, "cuModuleGetFunction");
  resolve(cu.funcSetAttribute, "cuFuncSetAttribute");
  resolve(cu.launchKernelEx, "cuLaunchKernelEx");
  resolve(cu.moduleGetGlobal, "cuModuleGetGlobal");
  resolve(cu.memAllocAsync, "cuMemAllocAsync");
  resolve(cu.memFreeAsync, "cuMemFreeAsync");
  resolve(cu.memcpyAsync, "cuMemcpyAsync");
  resolve(cu.memcpyHtoDAsync, "cuMemcpyHtoDAsync");
  resolve(cu.memcpyDtoHAsync, "cuMemcpyDtoHAsync");
  resolve(cu.memsetD8Async, "cuMemsetD8Async");
  resolve(cu.memsetD16Async, "cuMemsetD16Async");
  resolve(cu.memsetD32Async, "cuMemsetD32Async");
  resolve(cu.streamCreate, "cuStreamCreate");
  resolve(cu.streamSynchronize, "cuStreamSynchronize");
  resolve(cu.streamWaitEvent, "cuStreamWaitEvent");
  resolve(cu.eventCreate, "cuEventCreate");
  resolve(cu.eventDestroy, "cuEventDestroy");
  resolve(cu.eventRecord, "cuEventRecord");
  resolve(cu.eventSynchronize, "cuEventSynchronize");
  resolve(cu.eventElapsedTime, "cuEventElapsedTime");
  resolve(cu.tensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  resolve(cu.memAlloc, "cuMemAlloc");
  resolve(cu.memcpyHtoD, "cuMemcpyHtoD");
  resolve(cu.streamBeginCapture, "cuStreamBeginCapture");
  resolve(cu.streamEndCapture, "cuStreamEndCapture");
  // cuGraphInstantiate is the CUDA 11 five-argument entry point.
  resolve(cu.graphInstantiate, "cuGraphInstantiateWithFlags");
  resolve(cu.graphLaunch, "cuGraphLaunch");
  resolve(cu.graphExecDestroy, "cuGraphExecDestroy");
  resolve(cu.graphDestroy, "cuGraphDestroy");
  resolve(cu.memFree, "cuMemFree");
  resolve(cu.exchangeCaptureMode, "cuThreadExchangeStreamCaptureMode");
  resolve(cu.streamIsCapturing, "cuStreamIsCapturing");
  if (!missing.empty())
    return makeError("the CUDA driver lacks " + missing);

  auto fail = [&](CUresult r, const char *what) {
    return makeError(llvm::Twine(what) + " failed: " + errorName(r));
  };
  if (CUresult r = cu.init(0))
    return fail(r, "cuInit");
  int count = 0;
  if (CUresult r = cu.deviceGetCount(&count))
    return fail(r, "cuDeviceGetCount");
  if (count == 0)
    return makeError("the CUDA driver sees no GPU");
  if (CUresult r = cu.deviceGet(&rt.device, 0))
    return fail(r, "cuDeviceGet");
  char name[256] = {0};
  cu.deviceGetName(name, sizeof(name) - 1, rt.device);
  rt.name = name;
  cu.deviceGetAttribute(&rt.major,
                        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                        rt.device);
  cu.deviceGetAttribute(&rt.minor,
                        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                        rt.device);
  cu.deviceGetAttribute(&rt.multiprocessors,
                        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, rt.device);
  if (CUresult r = cu.primaryCtxRetain(&rt.context, rt.device))
    return fail(r, "cuDevicePrimaryCtxRetain");
  if (CUresult r = cu.ctxSetCurrent(rt.context))
    return fail(r, "cuCtxSetCurrent");
  if (CUresult r = cu.streamCreate(&rt.stream, CU_STREAM_NON_BLOCKING))
    return fail(r, "cuStreamCreate");
  if (CUresult r = cu.streamCreate(&rt.zeroStream, CU_STREAM_NON_BLOCKING))
    return fail(r, "cuStreamCreate");
  return llvm::Error::success();
}

llvm::Error takeFirstError() {
  Runtime &rt = runtime();
  if (rt.firstError.empty())
    return llvm::Error::success();
  std::string message = std::move(rt.firstError);
  rt.firstError.clear();
  return makeError(message);
}

/// Lets this thread make a call that stream capture in global mode forbids
/// (cuMemAlloc, synchronizing the runtime's own stream) while a caller
/// records a graph on another stream: the call is not part of the graph.
class RelaxedCapture {
public:
  RelaxedCapture() {
    mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    runtime().cu.exchangeCaptureMode(&mode);
  }
  ~RelaxedCapture() { runtime().cu.exchangeCaptureMode(&mode); }

private:
  CUstreamCaptureMode mode;
};

/// Device memory allocated outside any stream's order (and outside any
/// graph being recorded).
CUdeviceptr allocateUnordered(size_t bytes, const char *what) {
  RelaxedCapture relaxed;
  CUdeviceptr ptr = 0;
  if (!check(runtime().cu.memAlloc(&ptr, bytes ? bytes : 1), what))
    return 0;
  return ptr;
}

/// The stream program calls launch on now.
CUstream launchStream() {
  Runtime &rt = runtime();
  return rt.launchStream ? rt.launchStream : rt.stream;
}

class CudaDevice : public Device {
public:
  std::string describe() const override {
    Runtime &rt = runtime();
    return rt.name + " (" + getCudaChip() + ")";
  }
  llvm::Expected<void *> allocate(size_t bytes) override {
    CUdeviceptr ptr = 0;
    Runtime &rt = runtime();
    if (!check(rt.cu.memAllocAsync(&ptr, bytes ? bytes : 1, rt.stream),
               "cuMemAllocAsync"))
      return takeFirstError();
    return reinterpret_cast<void *>(ptr);
  }
  void release(void *ptr) override {
    Runtime &rt = runtime();
    check(rt.cu.memFreeAsync(reinterpret_cast<CUdeviceptr>(ptr), rt.stream),
          "cuMemFreeAsync");
  }
  llvm::Error upload(void *dst, const void *src, size_t bytes) override {
    if (bytes == 0)
      return llvm::Error::success();
    Runtime &rt = runtime();
    check(rt.cu.memcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src,
                                bytes, rt.stream),
          "cuMemcpyHtoDAsync");
    return synchronize();
  }
  llvm::Error download(void *dst, const void *src, size_t bytes) override {
    if (bytes == 0)
      return llvm::Error::success();
    Runtime &rt = runtime();
    check(rt.cu.memcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src),
                                bytes, rt.stream),
          "cuMemcpyDtoHAsync");
    return synchronize();
  }
  llvm::Error fill(void *dst, uint8_t byte, size_t bytes) override {
    if (bytes == 0)
      return llvm::Error::success();
    Runtime &rt = runtime();
    check(rt.cu.memsetD8Async(reinterpret_cast<CUdeviceptr>(dst), byte, bytes,
                              rt.stream),
          "cuMemsetD8Async");
    return synchronize();
  }
  llvm::Error synchronize() override {
    Runtime &rt = runtime();
    check(rt.cu.streamSynchronize(rt.stream), "cuStreamSynchronize");
    return takeFirstError();
  }

  llvm::Expected<std::vector<double>>
  time(llvm::function_ref<llvm::Error()> call, int reps,
       bool replayGraph) override {
    Runtime &rt = runtime();
    std::vector<CUevent> events(reps + 1);
    for (CUevent &e : events)
      if (!check(rt.cu.eventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate"))
        return takeFirstError();
    if (llvm::Error err = synchronize())
      return std::move(err);
    // Programs must not synchronize the stream while they are timed (or
    // recorded): calls queue back to back.
    rt.deferSynchronize = true;
    llvm::Error failed = llvm::Error::success();
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    if (replayGraph) {
      // Record one call; relaxed mode lets a first-time tensor map be
      // created (cuMemAlloc) during the recording.
      check(rt.cu.streamBeginCapture(rt.stream, CU_STREAM_CAPTURE_MODE_RELAXED),
            "cuStreamBeginCapture");
      failed = call();
      check(rt.cu.streamEndCapture(rt.stream, &graph), "cuStreamEndCapture");
      if (graph)
        check(rt.cu.graphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
    }
    if (!rt.firstError.empty() && !failed)
      failed = takeFirstError();
    check(rt.cu.eventRecord(events[0], rt.stream), "cuEventRecord");
    for (int i = 0; i < reps && !failed; ++i) {
      if (exec)
        check(rt.cu.graphLaunch(exec, rt.stream), "cuGraphLaunch");
      else
        failed = call();
      check(rt.cu.eventRecord(events[i + 1], rt.stream), "cuEventRecord");
    }
    rt.deferSynchronize = false;
    if (failed)
      return std::move(failed);
    if (llvm::Error err = synchronize())
      return std::move(err);
    if (exec)
      rt.cu.graphExecDestroy(exec);
    if (graph)
      rt.cu.graphDestroy(graph);
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
      float ms = 0;
      check(rt.cu.eventElapsedTime(&ms, events[i], events[i + 1]),
            "cuEventElapsedTime");
      times.push_back(ms * 1e3);
    }
    for (CUevent e : events)
      rt.cu.eventDestroy(e);
    if (llvm::Error err = takeFirstError())
      return std::move(err);
    return times;
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// The mgpu* ABI emitted by gpu-to-llvm
//===----------------------------------------------------------------------===//

extern "C" {

static void *mgpuModuleLoad(void *data, size_t size) {
  Runtime &rt = runtime();
  CUmodule module = nullptr;
  if (!check(rt.cu.moduleLoadData(&module, data), "cuModuleLoadData"))
    return module;
  // The marker of nvfp4-gpu-dependent-launch; a module without it (no such
  // global) launches its kernels in plain stream order. Only a module whose
  // image names the marker is asked for it: asking one without it fails,
  // an API error that compute-sanitizer reports as one (seen on imported
  // CuTe DSL kernels). A module the search missed would only launch in
  // plain stream order.
  std::string_view image(static_cast<const char *>(data), size);
  CUdeviceptr marker = 0;
  size_t bytes = 0;
  if (image.find(kDependentLaunchMarker) != std::string_view::npos &&
      rt.cu.moduleGetGlobal(&marker, &bytes, module, kDependentLaunchMarker) ==
          CUDA_SUCCESS)
    rt.dependentModules.insert(module);
  return module;
}

static void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  Runtime &rt = runtime();
  auto cuModule = static_cast<CUmodule>(module);
  for (auto it = rt.functions.begin(); it != rt.functions.end();) {
    if (it->first.first != cuModule) {
      ++it;
      continue;
    }
    rt.sharedMemoryLimits.erase(it->second);
    rt.dependentFunctions.erase(it->second);
    it = rt.functions.erase(it);
  }
  rt.dependentModules.erase(cuModule);
  // At teardown: a failure here has no call to be reported by (recorded,
  // it would fail the next, unrelated one).
  (void)rt.cu.moduleUnload(cuModule);
}

/// `name` is a constant of the lowered host code, which lives as long as
/// its module: the pair is a stable key.
static void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module)
    return nullptr;
  Runtime &rt = runtime();
  auto key = std::make_pair(static_cast<CUmodule>(module), name);
  auto cached = rt.functions.find(key);
  if (cached != rt.functions.end())
    return cached->second;
  CUfunction function = nullptr;
  if (!check(rt.cu.moduleGetFunction(&function, key.first, name),
             "cuModuleGetFunction")) {
    rt.firstError += std::string(" (kernel ") + name + ")";
    return nullptr;
  }
  rt.functions[key] = function;
  if (rt.dependentModules.count(key.first))
    rt.dependentFunctions.insert(function);
  return function;
}

/// A launch of `function` with clusters of clusterX x clusterY x clusterZ
/// CTAs (1 x 1 x 1: none).
static void launchFunction(void *function, intptr_t clusterX, intptr_t clusterY,
                           intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                           intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                           intptr_t blockZ, int32_t smem, void *stream,
                           void **params, void **extra) {
  Runtime &rt = runtime();
  // After a failed call (a module, a tensor map) the kernel could wait
  // forever on data that never comes: launch nothing more, the error is
  // reported when the program returns.
  if (!function || !rt.firstError.empty())
    return;
  auto fn = static_cast<CUfunction>(function);
  // Kernels asking for more than the default 48 KiB must opt in (once: the
  // limit stays with the function).
  if (smem > 48 * 1024) {
    int32_t &limit = rt.sharedMemoryLimits[fn];
    if (smem > limit) {
      if (!check(rt.cu.funcSetAttribute(
                     fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
                 "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"))
        return;
      limit = smem;
    }
  }
  // A kernel that waits for the kernels ahead of it (griddepcontrol.wait)
  // may launch before they finish: its launch and prologue overlap them.
  CUlaunchAttribute attrs[2];
  unsigned numAttrs = 0;
  if (rt.dependentFunctions.count(fn)) {
    attrs[numAttrs].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[numAttrs++].value.programmaticStreamSerializationAllowed = 1;
  }
  bool clustered = clusterX * clusterY * clusterZ > 1;
  if (clustered) {
    attrs[numAttrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[numAttrs].value.clusterDim.x = static_cast<unsigned>(clusterX);
    attrs[numAttrs].value.clusterDim.y = static_cast<unsigned>(clusterY);
    attrs[numAttrs++].value.clusterDim.z = static_cast<unsigned>(clusterZ);
  }
  CUlaunchConfig config = {};
  config.gridDimX = gridX;
  config.gridDimY = gridY;
  config.gridDimZ = gridZ;
  config.blockDimX = blockX;
  config.blockDimY = blockY;
  config.blockDimZ = blockZ;
  config.sharedMemBytes = smem;
  config.hStream = static_cast<CUstream>(stream);
  config.attrs = attrs;
  config.numAttrs = numAttrs;
  if (!check(rt.cu.launchKernelEx(&config, fn, params, extra),
             "cuLaunchKernelEx"))
    rt.firstError +=
        " (grid " + std::to_string(gridX) + "x" + std::to_string(gridY) + "x" +
        std::to_string(gridZ) + ", block " + std::to_string(blockX) + "x" +
        std::to_string(blockY) + "x" + std::to_string(blockZ) +
        (clustered
             ? ", cluster " + std::to_string(clusterX) + "x" +
                   std::to_string(clusterY) + "x" + std::to_string(clusterZ)
             : std::string()) +
        ", " + std::to_string(smem) + " B shared)";
}

static void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                             intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                             intptr_t blockZ, int32_t smem, void *stream,
                             void **params, void **extra,
                             size_t /*paramsCount*/) {
  launchFunction(function, 1, 1, 1, gridX, gridY, gridZ, blockX, blockY, blockZ,
                 smem, stream, params, extra);
}

/// A launch with thread-block clusters (gpu.launch_func `clusters in`).
static void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                                    intptr_t clusterY, intptr_t clusterZ,
                                    intptr_t gridX, intptr_t gridY,
                                    intptr_t gridZ, intptr_t blockX,
                                    intptr_t blockY, intptr_t blockZ,
                                    int32_t smem, void *stream, void **params,
                                    void **extra, size_t /*paramsCount*/) {
  launchFunction(function, clusterX, clusterY, clusterZ, gridX, gridY, gridZ,
                 blockX, blockY, blockZ, smem, stream, params, extra);
}

/// Programs run on the stream of the launch scope (the runtime's own one by
/// default): "creating" one returns it.
static void *mgpuStreamCreate() { return launchStream(); }

static void mgpuStreamDestroy(void * /*stream*/) {}

/// Whether the lowered host code's synchronizations are skipped: while a
/// caller's stream is used (the caller orders its own work) or calls are
/// timed or recorded.
static bool skipSynchronize() {
  Runtime &rt = runtime();
  return rt.deferSynchronize || rt.callerStream;
}

static void mgpuStreamSynchronize(void *stream) {
  if (!skipSynchronize())
    check(runtime().cu.streamSynchronize(static_cast<CUstream>(stream)),
          "cuStreamSynchronize");
}

static void mgpuStreamWaitEvent(void *stream, void *event) {
  check(runtime().cu.streamWaitEvent(static_cast<CUstream>(stream),
                                     static_cast<CUevent>(event), 0),
        "cuStreamWaitEvent");
}

static void *mgpuEventCreate() {
  CUevent event = nullptr;
  check(runtime().cu.eventCreate(&event, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  return event;
}

static void mgpuEventDestroy(void *event) {
  check(runtime().cu.eventDestroy(static_cast<CUevent>(event)),
        "cuEventDestroy");
}

static void mgpuEventSynchronize(void *event) {
  if (!skipSynchronize())
    check(runtime().cu.eventSynchronize(static_cast<CUevent>(event)),
          "cuEventSynchronize");
}

static void mgpuEventRecord(void *event, void *stream) {
  check(runtime().cu.eventRecord(static_cast<CUevent>(event),
                                 static_cast<CUstream>(stream)),
        "cuEventRecord");
}

static void *mgpuMemAlloc(uint64_t bytes, void *stream, bool /*hostShared*/) {
  Runtime &rt = runtime();
  if (Workspace *ws = rt.workspace) {
    if (ws->next == ws->slots.size())
      ws->slots.emplace_back();
    Workspace::Slot &slot = ws->slots[ws->next++];
    slot.fresh = slot.bytes < bytes;
    if (slot.fresh) {
      if (slot.ptr)
        ws->retired.push_back(slot.ptr);
      slot.ptr = allocateUnordered(bytes, "cuMemAlloc(workspace)");
      slot.bytes = slot.ptr ? bytes : 0;
    }
    slot.zero = slot.keptZero && !slot.fresh;
    slot.keptZero = false;
    return reinterpret_cast<void *>(slot.ptr);
  }
  CUdeviceptr ptr = 0;
  check(runtime().cu.memAllocAsync(&ptr, bytes ? bytes : 1,
                                   static_cast<CUstream>(stream)),
        "cuMemAllocAsync");
  return reinterpret_cast<void *>(ptr);
}

static void mgpuMemFree(void *ptr, void *stream) {
  if (runtime().workspace) // a workspace slot, kept for the next call
    return;
  check(runtime().cu.memFreeAsync(reinterpret_cast<CUdeviceptr>(ptr),
                                  static_cast<CUstream>(stream)),
        "cuMemFreeAsync");
}

/// The host code's promise about `bytes` at device address `ptr` (a buffer
/// it has just allocated): the call's kernels need it zero and leave it zero
/// (the stream-K arrival flags: the last CTA of a tile resets its flag). It
/// is zeroed here unless it is a workspace slot whose previous user made the
/// same promise, so a warm call queues no memset, and a CUDA graph recorded
/// from it holds none. A slot allocated by this call is zeroed on the
/// runtime's zeroing stream, outside any graph being recorded (nothing has
/// used it yet); any other buffer in the order of the call's stream.
static void nvfp4KeptZero(int64_t ptr, int64_t bytes) {
  Runtime &rt = runtime();
  auto dptr = static_cast<CUdeviceptr>(ptr);
  if (Workspace *ws = rt.workspace) {
    for (size_t i = 0; i < ws->next; ++i) {
      Workspace::Slot &slot = ws->slots[i];
      if (slot.ptr != dptr)
        continue;
      slot.keptZero = true;
      if (slot.zero)
        return;
      if (slot.fresh) {
        RelaxedCapture relaxed;
        check(rt.cu.memsetD8Async(dptr, 0, bytes, rt.zeroStream),
              "cuMemsetD8Async(workspace)");
        check(rt.cu.streamSynchronize(rt.zeroStream), "cuStreamSynchronize");
        return;
      }
      break;
    }
  }
  check(rt.cu.memsetD8Async(dptr, 0, bytes, launchStream()), "cuMemsetD8Async");
}

// Zero-size buffers (a dimension of 0) are legal; copying or filling them is
// nothing to do.
static void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  if (bytes == 0)
    return;
  check(runtime().cu.memcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                 reinterpret_cast<CUdeviceptr>(src), bytes,
                                 static_cast<CUstream>(stream)),
        "cuMemcpyAsync");
}

static void mgpuMemset32(void *dst, unsigned value, size_t count,
                         void *stream) {
  if (count == 0)
    return;
  check(runtime().cu.memsetD32Async(reinterpret_cast<CUdeviceptr>(dst),
                                    value, count,
                                    static_cast<CUstream>(stream)),
        "cuMemsetD32Async");
}

static void mgpuMemset16(void *dst, unsigned short value, size_t count,
                         void *stream) {
  if (count == 0)
    return;
  check(runtime().cu.memsetD16Async(reinterpret_cast<CUdeviceptr>(dst),
                                    value, count,
                                    static_cast<CUstream>(stream)),
        "cuMemsetD16Async");
}

static void mgpuSetDefaultDevice(int32_t /*device*/) {}

/// nvgpu.tma.create.descriptor: a CUtensorMap for a ranked memref
/// (descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}),
/// boxes given outermost first; returns a device pointer to the map, which
/// kernels read from global memory.
static void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                            int64_t dataType,
                                            int64_t interleave, int64_t swizzle,
                                            int64_t l2Promotion, int64_t oobFill,
                                            int64_t *boxDims) {
  Runtime &rt = runtime();
  if (rank < 1 || rank > 5) {
    check(CUDA_ERROR_INVALID_VALUE, "mgpuTensorMapEncodeTiledMemref(rank)");
    return nullptr;
  }
  auto *words = static_cast<int64_t *>(descriptor);
  char *aligned = reinterpret_cast<char *>(words[1]);
  int64_t offset = words[2];
  const int64_t *sizes = words + 3;
  const int64_t *strides = words + 3 + rank;
  static const int64_t elementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  int64_t bytes =
      dataType >= 0 && dataType < 13 ? elementBytes[dataType] : 1;
  std::vector<int64_t> key = {rank,       words[1] + offset * bytes, dataType,
                              interleave, swizzle,  l2Promotion,     oobFill};
  for (int64_t i = 0; i < rank; ++i)
    key.insert(key.end(), {sizes[i], strides[i], boxDims[i]});
  auto cached = rt.tensorMaps.find(key);
  if (cached != rt.tensorMaps.end())
    return reinterpret_cast<void *>(cached->second);

  // CUDA wants the innermost dimension first and byte strides of the outer
  // dimensions.
  cuuint64_t globalDim[5], globalStrides[4];
  cuuint32_t box[5], elementStrides[5];
  for (int64_t i = 0; i < rank; ++i) {
    globalDim[i] = sizes[rank - 1 - i];
    box[i] = static_cast<cuuint32_t>(boxDims[rank - 1 - i]);
    elementStrides[i] = 1;
  }
  for (int64_t i = 0; i + 1 < rank; ++i)
    globalStrides[i] = strides[rank - 2 - i] * bytes;
  CUtensorMap map;
  if (!check(rt.cu.tensorMapEncodeTiled(
                 &map, static_cast<CUtensorMapDataType>(dataType),
                 static_cast<cuuint32_t>(rank), aligned + offset * bytes,
                 globalDim, globalStrides, box, elementStrides,
                 static_cast<CUtensorMapInterleave>(interleave),
                 static_cast<CUtensorMapSwizzle>(swizzle),
                 static_cast<CUtensorMapL2promotion>(l2Promotion),
                 static_cast<CUtensorMapFloatOOBfill>(oobFill)),
             "cuTensorMapEncodeTiled"))
    return nullptr;
  // Allocated and copied outside the caller's stream and any graph it
  // records (through the runtime's own stream, which the host waits for:
  // the map is in place before any stream launches a kernel that reads it,
  // and no other work is waited for). The map stays cached for the life of
  // the process, so a recorded graph finds it there when replayed.
  CUdeviceptr dmap = allocateUnordered(sizeof(map), "cuMemAlloc(tensor map)");
  if (!dmap)
    return nullptr;
  {
    RelaxedCapture relaxed;
    if (!check(rt.cu.memcpyHtoDAsync(dmap, &map, sizeof(map), rt.stream),
               "cuMemcpyHtoDAsync(tensor map)") ||
        !check(rt.cu.streamSynchronize(rt.stream),
               "cuStreamSynchronize(tensor map)"))
      return nullptr;
  }
  rt.tensorMaps[key] = dmap;
  return reinterpret_cast<void *>(dmap);
}

/// Bits of word 1 the DSL's sm_100 maps set and Hopper's format does not
/// have: bit 1 (every map), bit 21 (maps of more than 64 KiB). What they
/// mean on sm_100 is not documented; the execution under emulation checks
/// that the maps without them move the right bytes.
constexpr uint64_t kSM100OnlyBits = (1ull << 1) | (1ull << 21);

/// A CUtensorMap that NVIDIA's CuTe DSL encoded itself, in the sm_100
/// format, made one this GPU's TMA takes (nvfp4_testing.cutedsl inserts the
/// call, in place, before the DSL's host code passes the map to its kernel,
/// for running the kernel on Hopper under the tcgen05 emulation). It is
/// decoded and encoded again by cuTensorMapEncodeTiled: the two formats share
/// the fields of words 0-7 (address; rank, element type, swizzle, out-of-bounds
/// fill, L2 promotion and the first stride in word 1; the other strides in
/// words 2-3; dimensions in 4-6; element strides and boxes in 6-7), Hopper's
/// adds derived fields in words 8-15, which the DSL leaves undefined, and
/// has no 4-bit element types: a dense 4-bit map (the DSL's element code
/// 11, CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, what it uses for FP4 operands)
/// becomes the byte map of half the inner dimension and box, the same bytes
/// into the same swizzled shared memory (the importer halves the kernel's
/// TMA coordinates along that dimension to match). The decoding is checked, not
/// trusted: words 0-7 of the new map must equal the DSL's with only those
/// changes (and kSM100OnlyBits of word 1 clear), or
/// the map is refused (the kernel is then not launched and the program
/// fails with the difference named).
static void nvfp4TensorMapFromSM100(void *map) {
  Runtime &rt = runtime();
  if (!map || !rt.firstError.empty())
    return;
  auto *words = static_cast<uint64_t *>(map);
  uint64_t w1 = words[1];
  auto fail = [&](const std::string &why) {
    if (rt.firstError.empty())
      rt.firstError = "a CuTe DSL tensor map cannot be made one for sm_" +
                      std::to_string(rt.major * 10 + rt.minor) + ": " + why;
  };
  namespace tm = mlir::nvfp4::tensormap;
  auto bits = [](uint64_t word, unsigned shift, unsigned width) {
    return static_cast<unsigned>((word >> shift) & ((1ull << width) - 1));
  };
  unsigned rank = bits(w1, tm::kRankShift, tm::kRankBits) + 1;
  unsigned code = bits(w1, tm::kCodeShift, tm::kCodeBits);
  if (rank > 5)
    return fail("rank " + std::to_string(rank));
  const auto *known = llvm::find_if(
      tm::kElementCodes, [&](const auto &c) { return c.code == code; });
  if (known == std::end(tm::kElementCodes))
    return fail("element code " + std::to_string(code) + " in word 1 (0x" +
                llvm::utohexstr(w1) + ")");
  bool fourBit = code == tm::kFourBitCode;
  auto type = fourBit ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                      : static_cast<CUtensorMapDataType>(known->cuDataType);
  if (bits(w1, tm::kTf32Shift, 1))
    return fail("a TF32 map (word 1 bit 16)");
  cuuint64_t dims[5] = {(words[4] & 0xffffffff) + 1, (words[4] >> 32) + 1,
                        (words[5] & 0xffffffff) + 1, (words[5] >> 32) + 1,
                        (words[6] & 0xffffffff) + 1};
  cuuint64_t strides[4] = {(w1 >> 32) << 4, (words[2] & 0xffffffff) << 4,
                           (words[2] >> 32) << 4, (words[3] & 0xffffffff) << 4};
  cuuint32_t box[5], elementStrides[5];
  box[0] =
      static_cast<cuuint32_t>((words[tm::kBox0Word] >> tm::kBox0Shift) + 1);
  for (unsigned i = 1; i < 5; ++i)
    box[i] =
        bits(words[tm::kBoxWord], tm::kBoxBits * (i - 1), tm::kBoxBits) + 1;
  for (unsigned i = 0; i < 5; ++i)
    elementStrides[i] =
        bits(words[tm::kElementStrideWord],
             tm::kElementStrideShift + tm::kElementStrideBits * i,
             tm::kElementStrideBits) +
        1;
  if (fourBit) {
    if (dims[0] % 2 || box[0] % 2 || elementStrides[0] != 1)
      return fail("a 4-bit map of inner dimension " + std::to_string(dims[0]) +
                  ", box " + std::to_string(box[0]) + ", element stride " +
                  std::to_string(elementStrides[0]) + " is no byte map");
    dims[0] /= 2;
    box[0] /= 2;
  }
  auto swizzle = static_cast<CUtensorMapSwizzle>(
      bits(w1, tm::kSwizzleShift, tm::kSwizzleBits));
  auto oobFill =
      static_cast<CUtensorMapFloatOOBfill>(bits(w1, tm::kOobFillShift, 1));
  auto l2 =
      static_cast<CUtensorMapL2promotion>(bits(w1, tm::kL2Shift, tm::kL2Bits));
  CUtensorMap encoded; // the type carries its alignment (128 bytes)
  if (!check(rt.cu.tensorMapEncodeTiled(
                 &encoded, type, rank, reinterpret_cast<void *>(words[0]), dims,
                 strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                 swizzle, l2, oobFill),
             "cuTensorMapEncodeTiled(CuTe DSL map)"))
    return;
  // What the new map's words 0-7 must be: the DSL's, with the changes above.
  uint64_t expected[8];
  std::memcpy(expected, words, sizeof(expected));
  expected[1] &= ~kSM100OnlyBits;
  if (fourBit) {
    expected[1] &= ~(((1ull << tm::kCodeBits) - 1) << tm::kCodeShift);
    expected[4] = (expected[4] & ~0xffffffffull) | (dims[0] - 1);
    expected[tm::kBox0Word] =
        (expected[tm::kBox0Word] & ~(0xffull << tm::kBox0Shift)) |
        (static_cast<uint64_t>(box[0] - 1) << tm::kBox0Shift);
  }
  const auto *got = reinterpret_cast<const uint64_t *>(&encoded);
  for (unsigned i = 0; i < 8; ++i)
    if (got[i] != expected[i])
      return fail("word " + std::to_string(i) +
                  " decoded and encoded again is 0x" + llvm::utohexstr(got[i]) +
                  ", expected 0x" + llvm::utohexstr(expected[i]) +
                  " (the DSL's 0x" + llvm::utohexstr(words[i]) + ")");
  std::memcpy(map, &encoded, sizeof(encoded));
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool mlir::nvfp4::isCudaRuntimeAvailable() { return true; }

mlir::nvfp4::CudaLaunchScope::CudaLaunchScope(void *stream, const void *workspaceOwner)
    : lock(lockCudaRuntime()) {
  Runtime &rt = runtime();
  // The caller's thread may have another context current (or none).
  check(rt.cu.ctxSetCurrent(rt.context), "cuCtxSetCurrent");
  auto cuStream = static_cast<CUstream>(stream);
  rt.launchStream = cuStream;
  rt.callerStream = cuStream != nullptr;
  rt.workspace = nullptr;
  if (workspaceOwner) {
    CUstream key = launchStream();
    std::thread::id thread =
        key == CU_STREAM_PER_THREAD ? std::this_thread::get_id()
                                    : std::thread::id();
    Workspace &ws = rt.workspaces[{workspaceOwner, key, thread}];
    ws.next = 0;
    rt.workspace = &ws;
  }
}

mlir::nvfp4::CudaLaunchScope::~CudaLaunchScope() {
  Runtime &rt = runtime();
  rt.launchStream = nullptr;
  rt.callerStream = false;
  rt.workspace = nullptr;
}

void mlir::nvfp4::makeCudaContextCurrent() {
  Runtime &rt = runtime();
  if (rt.context)
    (void)rt.cu.ctxSetCurrent(rt.context);
}

llvm::Error mlir::nvfp4::takeCudaError() {
  if (!runtime().stream)
    return llvm::Error::success();
  return takeFirstError();
}

llvm::Error mlir::nvfp4::copyFromCuda(void *dst, const void *src, size_t bytes,
                                      void *stream) {
  if (bytes == 0)
    return llvm::Error::success();
  Runtime &rt = runtime();
  auto cuStream = stream ? static_cast<CUstream>(stream) : rt.stream;
  // A read back waits for the stream: while a graph is being recorded on it
  // (or, in global capture mode, on another stream) that would invalidate
  // the recording. Refused before anything is queued: the capture goes on.
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult capturing = rt.cu.streamIsCapturing(cuStream, &status);
  if (capturing == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT ||
      (capturing == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a CUDA graph is being recorded: device memory cannot be read back "
        "(group tables are checked by reading them; check them before the "
        "capture and launch with check_tables off while recording)");
  if (!check(capturing, "cuStreamIsCapturing"))
    return takeFirstError();
  check(rt.cu.memcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src), bytes,
                              cuStream),
        "cuMemcpyDtoHAsync");
  check(rt.cu.streamSynchronize(cuStream), "cuStreamSynchronize");
  return takeFirstError();
}

void mlir::nvfp4::releaseCudaWorkspaces(const void *owner) {
  Runtime &rt = runtime();
  if (!rt.stream)
    return;
  for (auto it = rt.workspaces.begin(); it != rt.workspaces.end();) {
    if (std::get<0>(it->first) != owner) {
      ++it;
      continue;
    }
    // cuMemFree waits for the work that may still use the buffers.
    for (const Workspace::Slot &slot : it->second.slots)
      if (slot.ptr)
        rt.cu.memFree(slot.ptr);
    for (CUdeviceptr ptr : it->second.retired)
      rt.cu.memFree(ptr);
    it = rt.workspaces.erase(it);
  }
}

int mlir::nvfp4::getCudaDeviceOrdinal() { return runtime().device; }

llvm::Expected<std::unique_ptr<Device>> mlir::nvfp4::createCudaDevice() {
  if (llvm::Error err = initialize())
    return std::move(err);
  return std::make_unique<CudaDevice>();
}

std::string mlir::nvfp4::getCudaChip() {
  Runtime &rt = runtime();
  std::string chip =
      "sm_" + std::to_string(rt.major) + std::to_string(rt.minor);
  // Hopper and Blackwell datacenter parts: the arch-specific features
  // (wgmma, setmaxnreg, tcgen05) need the 'a' target.
  if ((rt.major == 9 && rt.minor == 0) || (rt.major == 10 && rt.minor == 0))
    chip += "a";
  return chip;
}

int mlir::nvfp4::getCudaMultiprocessorCount() {
  return runtime().multiprocessors;
}

llvm::StringMap<void *> mlir::nvfp4::getCudaRuntimeSymbols() {
  llvm::StringMap<void *> symbols;
  auto add = [&](const char *name, auto *fn) {
    symbols[name] = reinterpret_cast<void *>(fn);
  };
  add("mgpuModuleLoad", mgpuModuleLoad);
  add("mgpuModuleUnload", mgpuModuleUnload);
  add("mgpuModuleGetFunction", mgpuModuleGetFunction);
  add("mgpuLaunchKernel", mgpuLaunchKernel);
  add("mgpuLaunchClusterKernel", mgpuLaunchClusterKernel);
  add("mgpuStreamCreate", mgpuStreamCreate);
  add("mgpuStreamDestroy", mgpuStreamDestroy);
  add("mgpuStreamSynchronize", mgpuStreamSynchronize);
  add("mgpuStreamWaitEvent", mgpuStreamWaitEvent);
  add("mgpuEventCreate", mgpuEventCreate);
  add("mgpuEventDestroy", mgpuEventDestroy);
  add("mgpuEventSynchronize", mgpuEventSynchronize);
  add("mgpuEventRecord", mgpuEventRecord);
  add("mgpuMemAlloc", mgpuMemAlloc);
  add("mgpuMemFree", mgpuMemFree);
  add("mgpuMemcpy", mgpuMemcpy);
  add("mgpuMemset32", mgpuMemset32);
  add("mgpuMemset16", mgpuMemset16);
  add(kKeptZeroFunction, nvfp4KeptZero);
  add("mgpuSetDefaultDevice", mgpuSetDefaultDevice);
  add("mgpuTensorMapEncodeTiledMemref", mgpuTensorMapEncodeTiledMemref);
  add("nvfp4TensorMapFromSM100", nvfp4TensorMapFromSM100);
  return symbols;
}

#else // !NVFP4_HAVE_CUDA_H

bool mlir::nvfp4::isCudaRuntimeAvailable() { return false; }

llvm::Expected<std::unique_ptr<mlir::nvfp4::Device>>
mlir::nvfp4::createCudaDevice() {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "this nvfp4-runner was built without CUDA (no cuda.h at configure "
      "time)");
}

std::string mlir::nvfp4::getCudaChip() { return ""; }

int mlir::nvfp4::getCudaMultiprocessorCount() { return 0; }

llvm::StringMap<void *> mlir::nvfp4::getCudaRuntimeSymbols() { return {}; }

mlir::nvfp4::CudaLaunchScope::CudaLaunchScope(void *, const void *)
    : lock(lockCudaRuntime()) {}
mlir::nvfp4::CudaLaunchScope::~CudaLaunchScope() {}

llvm::Error mlir::nvfp4::takeCudaError() { return llvm::Error::success(); }

llvm::Error mlir::nvfp4::copyFromCuda(void *, const void *, size_t, void *) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "built without CUDA");
}

void mlir::nvfp4::releaseCudaWorkspaces(const void *) {}

int mlir::nvfp4::getCudaDeviceOrdinal() { return -1; }

#endif // NVFP4_HAVE_CUDA_H
