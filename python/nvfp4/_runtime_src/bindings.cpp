//===- bindings.cpp - Python bindings of the nvfp4 runtime ----------------===//
//
// Part of nvfp4-mlir, under the Apache License v2.0 with LLVM Exceptions.
//
//===----------------------------------------------------------------------===//
//
// nvfp4._runtime: the C API of libnvfp4_runtime.so (nvfp4-c/Runtime.h) for
// Python. Arrays cross as nanobind ndarrays, i.e. through the buffer
// protocol (numpy) or DLPack (torch, CuPy, JAX...): their memory is used in
// place, never copied.
//
// nanobind rather than pybind11: its ndarray type takes numpy and DLPack
// producers (CUDA tensors included) without depending on either library, and
// its per-call overhead is a fraction of pybind11's, which matters for a
// launch that must cost microseconds.
//
//===----------------------------------------------------------------------===//

#include "nvfp4-c/Runtime.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// The runtime's message as a Python exception (nvfp4._runtime.Error).
struct RuntimeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void raise(char *message) {
  std::string text = message ? message : "unknown error";
  nvfp4_free(message);
  throw RuntimeFailure(text);
}

/// torch.Tensor and its dtypes' (DLPack code, bits), registered by
/// nvfp4.runtime once torch is imported (the bindings do not depend on
/// torch).
struct TorchTypes {
  nb::object tensorType; // torch.Tensor
  nb::dict dtypes;       // torch.dtype -> (code, bits)
};

TorchTypes &torchTypes() {
  static TorchTypes *types = new TorchTypes(); // outlives the interpreter
  return *types;
}

bool isTorchTensor(nb::handle item) {
  PyObject *type = torchTypes().tensorType.ptr();
  return type && PyType_IsSubtype(Py_TYPE(item.ptr()),
                                  reinterpret_cast<PyTypeObject *>(type));
}

/// A torch tensor's pointer, shape, dtype and device, read through its
/// attributes; non-contiguous tensors and unknown dtypes are rejected.
void readTorchTensor(nb::handle t, size_t index, nvfp4_array &out,
                     int64_t *shape) {
  // Interned once and never released (a static nb::str would be released
  // by C++ static destruction, after the interpreter is gone).
  static PyObject *dtypeName = PyUnicode_InternFromString("dtype");
  static PyObject *shapeName = PyUnicode_InternFromString("shape");
  static PyObject *contiguousName = PyUnicode_InternFromString("is_contiguous");
  static PyObject *cudaName = PyUnicode_InternFromString("is_cuda");
  static PyObject *pointerName = PyUnicode_InternFromString("data_ptr");
  nb::object dtype = t.attr(dtypeName);
  // (code, bits), read at once: the dict entry is borrowed.
  PyObject *codeBits = PyDict_GetItem(torchTypes().dtypes.ptr(), dtype.ptr());
  if (!codeBits)
    throw nb::type_error(("array #" + std::to_string(index) +
                          ": unsupported torch dtype " +
                          nb::cast<std::string>(nb::str(dtype)))
                             .c_str());
  out.code = nb::cast<uint8_t>(nb::handle(PyTuple_GET_ITEM(codeBits, 0)));
  out.bits = nb::cast<uint8_t>(nb::handle(PyTuple_GET_ITEM(codeBits, 1)));
  nb::object dims = t.attr(shapeName); // torch.Size, a tuple
  if (!PyTuple_Check(dims.ptr()))
    throw nb::type_error("torch tensor shape is not a tuple");
  Py_ssize_t rank = PyTuple_GET_SIZE(dims.ptr());
  if (rank > NVFP4_MAX_RANK)
    throw nb::value_error("rank above 8");
  for (Py_ssize_t d = 0; d < rank; ++d)
    shape[d] = nb::cast<int64_t>(nb::handle(PyTuple_GET_ITEM(dims.ptr(), d)));
  if (!nb::cast<bool>(t.attr(contiguousName)()))
    throw nb::value_error(
        ("array #" + std::to_string(index) + ": a tensor of shape " +
         nb::cast<std::string>(nb::str(dims)) +
         " and strides " + nb::cast<std::string>(nb::str(t.attr("stride")())) +
         " is not contiguous: pass .contiguous()")
            .c_str());
  out.on_device = nb::cast<bool>(t.attr(cudaName));
  out.data = reinterpret_cast<void *>(
      nb::cast<uintptr_t>(t.attr(pointerName)()));
  out.shape = shape;
  out.strides = nullptr; // contiguous, checked above
  out.ndim = int32_t(rank);
}

class Kernel {
public:
  explicit Kernel(nvfp4_kernel *kernel) : kernel(kernel) {}
  ~Kernel() { nvfp4_kernel_release(kernel); }
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  /// (shape, element bytes, is scalar, MLIR type) of each input / output.
  std::vector<std::tuple<std::vector<int64_t>, uint32_t, bool, std::string>>
  values(bool outputs) const {
    int32_t first = outputs ? nvfp4_kernel_num_inputs(kernel) : 0;
    int32_t count = outputs ? nvfp4_kernel_num_outputs(kernel)
                            : nvfp4_kernel_num_inputs(kernel);
    std::vector<std::tuple<std::vector<int64_t>, uint32_t, bool, std::string>>
        result;
    for (int32_t i = 0; i < count; ++i) {
      nvfp4_value_info info;
      if (nvfp4_kernel_value(kernel, first + i, &info))
        throw RuntimeFailure("bad value index");
      result.emplace_back(
          std::vector<int64_t>(info.shape, info.shape + info.ndim),
          info.element_bytes, info.is_scalar != 0, std::string(info.type));
    }
    return result;
  }

  /// Calls the program on `args`; with reps > 0 also times it and returns
  /// the microseconds of each timed call. Each argument is a torch tensor
  /// (read through its attributes: DLPack export costs microseconds per
  /// tensor) or an array of the buffer protocol or DLPack (numpy, CuPy...).
  std::vector<double> launch(const nb::list &args, uintptr_t stream,
                             bool checkTables, bool stage, int warmup,
                             int reps, bool graph) {
    size_t count = nb::len(args);
    std::vector<nvfp4_array> arrays(count);
    // Shapes and strides of every array; sized up front (pointers into it
    // are kept).
    std::vector<int64_t> dims(2 * NVFP4_MAX_RANK * count);
    std::vector<nb::ndarray<nb::ro>> keep; // the ndarrays stay alive
    keep.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      nb::handle item = args[i];
      nvfp4_array &out = arrays[i];
      out.reserved = 0;
      int64_t *shape = dims.data() + 2 * NVFP4_MAX_RANK * i;
      int64_t *strides = shape + NVFP4_MAX_RANK;
      if (isTorchTensor(item)) {
        readTorchTensor(item, i, out, shape);
        continue;
      }
      keep.push_back(nb::cast<nb::ndarray<nb::ro>>(item));
      const nb::ndarray<nb::ro> &a = keep.back();
      size_t rank = a.ndim();
      if (rank > NVFP4_MAX_RANK)
        throw nb::value_error("rank above 8");
      for (size_t d = 0; d < rank; ++d) {
        shape[d] = int64_t(a.shape(d));
        strides[d] = int64_t(a.stride(d));
      }
      out.data = const_cast<void *>(a.data());
      out.shape = shape;
      out.strides = strides;
      out.ndim = int32_t(rank);
      out.code = a.dtype().code;
      out.bits = a.dtype().bits;
      int device = a.device_type();
      out.on_device = device == nb::device::cuda::value ||
                      device == nb::device::cuda_managed::value;
    }
    std::vector<double> times(reps > 0 ? reps : 0);
    nvfp4_launch_options options{};
    options.stream = reinterpret_cast<void *>(stream);
    options.check_tables = checkTables;
    options.stage_host_arrays = stage;
    options.warmup = warmup;
    options.reps = reps;
    options.graph = graph;
    options.times = reps > 0 ? times.data() : nullptr;
    char *error = nullptr;
    int failed;
    {
      // CPU programs run for as long as they compute: let other Python
      // threads run meanwhile (GPU launches return at once).
      nb::gil_scoped_release release;
      failed = nvfp4_launch(kernel, arrays.data(), count, &options, &error);
    }
    if (failed)
      raise(error);
    return times;
  }

  nvfp4_kernel *kernel;
};

std::unique_ptr<Kernel> compile(const std::string &program,
                                const std::string &entry,
                                const std::string &target,
                                const std::string &chip, bool portable,
                                int64_t ctas,
                                const std::string &pipelineOptions,
                                bool emulateTcgen05) {
  nvfp4_compile_options options{target.c_str(),          chip.c_str(),
                                int32_t(portable),       ctas,
                                pipelineOptions.c_str(), int32_t(emulateTcgen05)};
  nvfp4_kernel *kernel = nullptr;
  char *error = nullptr;
  int failed;
  {
    nb::gil_scoped_release release;
    failed = nvfp4_compile(program.data(), program.size(), entry.c_str(),
                           &options, &kernel, &error);
  }
  if (failed)
    raise(error);
  return std::make_unique<Kernel>(kernel);
}

std::tuple<bool, std::string> gpuInfo() {
  char *info = nullptr;
  bool has = nvfp4_gpu_info(&info) != 0;
  std::string text = info ? info : "";
  nvfp4_free(info);
  return {has, text};
}

std::string cacheDirectory() {
  char *dir = nvfp4_cache_directory();
  std::string text = dir ? dir : "";
  nvfp4_free(dir);
  return text;
}

nb::dict cacheStats() {
  int64_t counts[4];
  nvfp4_cache_stats(counts);
  nb::dict stats;
  stats["memory_hits"] = counts[0];
  stats["disk_hits"] = counts[1];
  stats["compiles"] = counts[2];
  stats["disk_writes"] = counts[3];
  return stats;
}

} // namespace

NB_MODULE(_runtime, m) {
  m.doc() = "The nvfp4 runtime (libnvfp4_runtime.so): compile once, launch on "
            "caller-owned arrays.";
  if (nvfp4_api_version() != NVFP4_C_API_VERSION)
    throw std::runtime_error("libnvfp4_runtime.so has another C API version "
                             "than these bindings");
  nb::exception<RuntimeFailure>(m, "Error", PyExc_RuntimeError);
  // Compiled kernels live in module-level caches (nvfp4.runtime) until the
  // interpreter tears its modules down, after nanobind's leak check.
  nb::set_leak_warnings(false);

  nb::class_<Kernel>(m, "Kernel")
      .def_prop_ro("inputs", [](const Kernel &k) { return k.values(false); })
      .def_prop_ro("outputs", [](const Kernel &k) { return k.values(true); })
      .def_prop_ro("is_gpu",
                   [](const Kernel &k) {
                     return nvfp4_kernel_is_gpu(k.kernel) != 0;
                   })
      .def_prop_ro("from_disk_cache",
                   [](const Kernel &k) {
                     return nvfp4_kernel_from_disk_cache(k.kernel) != 0;
                   })
      .def_prop_ro("compile_seconds",
                   [](const Kernel &k) {
                     return nvfp4_kernel_compile_seconds(k.kernel);
                   })
      .def("launch", &Kernel::launch, "args"_a, "stream"_a = 0,
           "check_tables"_a = true, "stage"_a = false, "warmup"_a = 0,
           "reps"_a = 0, "graph"_a = false,
           "Checks the arrays (inputs, then outputs) and calls the program on "
           "them in place; GPU programs launch on `stream` (a CUstream "
           "handle: 1 is CU_STREAM_LEGACY, the default stream; 0: the "
           "runtime's own stream, waited for). stage: a GPU "
           "program on host arrays (copied in and out). reps > 0: also time "
           "it (warmup, then reps calls, graph replays with graph=True) and "
           "return the microseconds of each timed call.");

  m.def("compile", &compile, "program"_a, "entry"_a = "main",
        "target"_a = "cpu", "chip"_a = "", "portable"_a = false, "ctas"_a = 0,
        "pipeline_options"_a = "", "emulate_tcgen05"_a = false,
        "Compiles (or finds in the memory or disk cache) `entry` of "
        "`program` for `target` ('cpu' or 'gpu').");
  m.def(
      "register_torch",
      [](nb::object tensorType, nb::dict dtypes) {
        for (auto [key, value] : dtypes)
          if (!nb::isinstance<nb::tuple>(value) || nb::len(value) != 2)
            throw nb::value_error("dtypes: torch.dtype -> (code, bits)");
        torchTypes().tensorType = tensorType;
        torchTypes().dtypes = dtypes;
      },
      "tensor_type"_a, "dtypes"_a,
      "Lets launch read torch tensors directly: torch.Tensor and a dict "
      "torch.dtype -> (DLPack code, bits).");
  m.def("gpu_info", &gpuInfo,
        "(True, description) when a CUDA GPU is usable, else (False, why).");
  m.def("cache_directory", &cacheDirectory);
  m.def("cache_stats", &cacheStats);
  m.def("clear_memory_cache", &nvfp4_clear_memory_cache);
  m.def("compiler_version",
        []() { return std::string(nvfp4_compiler_version()); });
}
