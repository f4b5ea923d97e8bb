"""The in-process runtime under the Python API: compile once, launch in place.

``nvfp4._runtime`` (nanobind, over libnvfp4_runtime.so, the runtime that
nvfp4-runner uses too) compiles a program once per (program, options, chip,
compiler build) and keeps it in memory and in an on-disk cache
(``$NVFP4_CACHE_DIR``, else ``~/.cache/nvfp4``): a second process neither
lowers nor runs ptxas. Calls check their arrays against the program's
signature and launch on the arrays' memory:

* numpy arrays and torch CPU tensors run on the CPU target;
* torch CUDA tensors (among the inputs or in ``out=``) run on the GPU, on
  torch's current stream (its default stream included), in torch's
  (primary) CUDA context, with no host synchronization, so a call can be
  captured into a CUDA graph; host arrays given with them (GPU-mode keeps
  scales on the CPU) are copied to their device first;
* numpy arrays with ``target="gpu"`` are copied to the GPU and back (a
  convenience for tests; torch CUDA tensors are the fast path).

Group tables (contiguous offsets, masked counts) are checked against their
contract before a launch; on the GPU that reads them back, a
synchronization that ``check_tables=False`` skips (and must skip while a
CUDA graph is recorded: a checked call is refused then, the capture going
on).

Outputs are allocated by the caller's framework on the caller's device
(torch in, torch out; numpy in, numpy out), or written into ``out=``. A
call that fails raises :class:`RunnerError` with the verifier's or the
runtime's message and writes nothing.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Sequence

import numpy as np

__all__ = ["RunnerError", "Timing", "available", "gpu_available", "run_program",
           "cache_stats", "cache_directory", "clear_memory_cache", "Program"]

try:
    from . import _runtime as _rt
    _IMPORT_ERROR = None
except ImportError as e:  # not built: a clear message at the first call
    _rt = None
    _IMPORT_ERROR = e


if _rt is not None:
    RunnerError = _rt.Error
else:
    class RunnerError(RuntimeError):
        """The compiler or the runtime rejected a program or its inputs."""


def available() -> bool:
    """Whether the native runtime (nvfp4._runtime) is built and loadable."""
    return _rt is not None


def _native():
    if _rt is None:
        raise RunnerError(
            "nvfp4._runtime is not built: run scripts/setup.sh (it builds "
            f"<build>/python/nvfp4/_runtime*.so); import failed with: {_IMPORT_ERROR}")
    return _rt


_GPU = None


def gpu_available() -> bool:
    """Whether a CUDA GPU is usable by the runtime."""
    global _GPU
    if _GPU is None:
        _GPU = _native().gpu_info()
    return _GPU[0]


def cache_stats() -> dict:
    return _native().cache_stats()


def cache_directory() -> str:
    return _native().cache_directory()


def clear_memory_cache():
    """Drops the runtime's in-memory kernels (the disk cache stays)."""
    _native().clear_memory_cache()
    _PROGRAMS.clear()


@dataclasses.dataclass
class Timing:
    median_us: float
    min_us: float
    mean_us: float
    reps: int
    device: str


# ---------------------------------------------------------------------------
# Element types: MLIR storage <-> numpy / torch
# ---------------------------------------------------------------------------

# MLIR element type -> (numpy storage dtype, torch dtype name)
_STORAGE = {
    "f32": (np.float32, "float32"),
    "f16": (np.float16, "float16"),
    "bf16": (np.uint16, "bfloat16"),
    "f64": (np.float64, "float64"),
    "f4E2M1FN": (np.uint8, "float4_e2m1fn_x2"),
    "f8E4M3FN": (np.uint8, "float8_e4m3fn"),
    "f8E8M0FNU": (np.uint8, "float8_e8m0fnu"),
    "i32": (np.int32, "int32"),
    "i64": (np.int64, "int64"),
}

# DLPack codes (dlpack.h): kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4.
_INT, _UINT, _FLOAT, _BFLOAT = 0, 1, 2, 4


def _element_of(mlir_type: str) -> str:
    """'tensor<2x4xf32, #enc>' -> 'f32'; 'i64' -> 'i64'."""
    if not mlir_type.startswith("tensor<"):
        return mlir_type
    body = mlir_type[len("tensor<"):].split(",")[0].rstrip(">")
    return body.split("x")[-1]


_torch = None
_TENSOR = None      # torch.Tensor once torch is imported
_RAW_STREAM = None  # torch._C._cuda_getCurrentRawStream, looked up once
_TORCH_DTYPES = {}  # MLIR element -> torch dtype

#: CU_STREAM_LEGACY: what a framework's stream handle 0 (the default
#: stream) means to the CUDA driver; the runtime reads a null stream as
#: "my own stream, waited for".
_CU_STREAM_LEGACY = 1


def _torch_module():
    """torch, imported once; registers its tensor type and dtypes with the
    bindings, which then read torch tensors directly."""
    global _torch, _TENSOR, _RAW_STREAM
    if _torch is None:
        import torch
        _RAW_STREAM = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        codes = {torch.float32: (_FLOAT, 32), torch.float16: (_FLOAT, 16),
                 torch.bfloat16: (_BFLOAT, 16), torch.float64: (_FLOAT, 64),
                 torch.uint8: (_UINT, 8), torch.int8: (_INT, 8),
                 torch.int16: (_INT, 16), torch.int32: (_INT, 32),
                 torch.int64: (_INT, 64), torch.uint16: (_UINT, 16),
                 torch.bool: (6, 8)}
        # narrow float types: their bytes, as the runtime stores them
        for name in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu",
                     "float4_e2m1fn_x2"):
            if hasattr(torch, name):
                codes[getattr(torch, name)] = (_UINT, 8)
        for element, (_, name) in _STORAGE.items():
            _TORCH_DTYPES[element] = getattr(torch, name, torch.uint8)
        if _rt is not None:
            _rt.register_torch(torch.Tensor, codes)
        _torch = torch
        _TENSOR = torch.Tensor
    return _torch


def _tensor_type():
    """torch.Tensor once the caller has imported torch, else None (torch is
    never imported here for a numpy caller)."""
    if _TENSOR is None and "torch" in sys.modules:
        _torch_module()
    return _TENSOR


def is_torch(x) -> bool:
    """Whether x is a torch tensor (without importing torch)."""
    tensor = _tensor_type()
    return tensor is not None and isinstance(x, tensor)


def _numpy_item(a):
    """numpy arrays cross through the buffer protocol (bf16 of ml_dtypes as
    its uint16 bits)."""
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if a.dtype.name == "bfloat16":
        a = a.view(np.uint16)
    if not a.flags.c_contiguous:
        raise ValueError(f"an array of shape {a.shape} is not C-contiguous: "
                         "pass np.ascontiguousarray(...)")
    return a


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------

class Program:
    """One compiled program and the storage of its outputs."""

    __slots__ = ("kernel", "outputs", "is_gpu", "num_inputs", "scalar_inputs",
                 "_torch_outputs")

    def __init__(self, kernel):
        self.kernel = kernel
        self.is_gpu = kernel.is_gpu
        ins = kernel.inputs
        self.num_inputs = len(ins)
        self.scalar_inputs = frozenset(i for i, v in enumerate(ins) if v[2])
        self.outputs = [(tuple(shape), _element_of(t)) for shape, _, _, t in kernel.outputs]
        self._torch_outputs = None  # (shape, torch dtype) per output

    def empty_outputs(self, like, poison=None):
        """Outputs allocated by the framework of `like` (a torch tensor: on
        its device; else numpy)."""
        if like is not None:
            # Allocated on every call, nothing kept: a tensor cached here on
            # a first call inside a CUDA graph capture (torch.compile's
            # cudagraph trees warm up in the graph's pool) would be a live
            # allocation of that pool that the graph does not own.
            specs = self._torch_outputs
            if specs is None:
                specs = self._torch_outputs = [(shape, _TORCH_DTYPES[element])
                                               for shape, element in self.outputs]
            device, empty = like.device, _torch.empty
            outs = [empty(shape, dtype=dtype, device=device) for shape, dtype in specs]
            if poison is not None:
                for t in outs:
                    if t.numel():
                        t.reshape(-1).view(_torch.uint8).fill_(poison)
            return outs
        outs = []
        for shape, element in self.outputs:
            a = np.empty(shape, dtype=_STORAGE[element][0])
            if poison is not None:
                a.reshape(-1).view(np.uint8).fill(poison)
            outs.append(a)
        return outs


_PROGRAMS: dict = {}

#: The byte outputs are filled with before each call when a call gives no
#: `poison` (None: not filled). Test drivers set it (nvfp4_testing.selfcheck:
#: 0xFF), so an element a kernel leaves unwritten cannot pass a check.
DEFAULT_POISON = None


def compile_settings(target: str, portable=None, pipeline_options=None,
                     emulate_tcgen05=None) -> tuple:
    """What a program compiles with besides its text: (portable,
    pipeline_options, emulate_tcgen05), each the argument where given, else
    the environment's ($NVFP4_PORTABLE_KERNELS, $NVFP4_PIPELINE_OPTIONS,
    $NVFP4_EMULATE_TCGEN05) as it is now. Anything that keeps compiled
    programs keys them by it too: a changed variable compiles anew."""
    if portable is None:
        portable = target == "gpu" and bool(os.environ.get("NVFP4_PORTABLE_KERNELS"))
    if pipeline_options is None:
        pipeline_options = os.environ.get("NVFP4_PIPELINE_OPTIONS", "")
    if emulate_tcgen05 is None:
        emulate_tcgen05 = target == "gpu" and bool(os.environ.get("NVFP4_EMULATE_TCGEN05"))
    return portable, pipeline_options, emulate_tcgen05


def compile_program(program: str, target: str, entry="main", *, chip="",
                    portable=None, pipeline_options=None, emulate_tcgen05=None) -> Program:
    """Compiles `program` for 'cpu' or 'gpu' (cached in memory and on disk).

    portable: the portable SIMT kernels even where the chip has its own
    (default: $NVFP4_PORTABLE_KERNELS); pipeline_options: the pipeline's
    options as nvfp4-opt takes them (default: $NVFP4_PIPELINE_OPTIONS), for
    tuning sweeps and tests; emulate_tcgen05: the sm_100a (Blackwell)
    kernels with their tcgen05 ops emulated, on this GPU (any with TMA, e.g.
    an H100/H200), for testing them without Blackwell (default:
    $NVFP4_EMULATE_TCGEN05).
    """
    portable, pipeline_options, emulate_tcgen05 = compile_settings(
        target, portable, pipeline_options, emulate_tcgen05)
    key = (program, target, entry, chip, portable, pipeline_options, emulate_tcgen05)
    prog = _PROGRAMS.get(key)
    if prog is None:
        prog = Program(_native().compile(program, entry, target, chip, portable, 0,
                                         pipeline_options, emulate_tcgen05))
        _PROGRAMS[key] = prog
    return prog


def _on_cuda(arrays) -> bool:
    tensor = _tensor_type()
    if tensor is not None:
        for a in arrays:
            if isinstance(a, tensor) and a.is_cuda:
                return True
    return False


def _resolve_target(target, arrays):
    """'auto': the GPU when a CUDA tensor is among `arrays` (inputs and
    out=), else the CPU."""
    if target == "auto":
        return "gpu" if _on_cuda(arrays) else "cpu"
    if target not in ("cpu", "gpu"):
        raise ValueError(f"target must be 'auto', 'cpu' or 'gpu', got {target!r}")
    if target == "cpu" and _on_cuda(arrays):
        raise ValueError("target='cpu' with CUDA tensors: move them to the CPU "
                         "or use target='gpu'")
    return target


def _torch_stream(stream, like):
    """The torch stream of an explicit `stream` (a torch.cuda.Stream or a
    CUstream handle, 0 the default stream) on the device of `like`."""
    if not isinstance(stream, int):
        return stream
    if stream in (0, _CU_STREAM_LEGACY):
        return _torch.cuda.default_stream(like.device)
    return _torch.cuda.ExternalStream(stream, device=like.device)


def _stream_handle(stream, like):
    """The CUstream a GPU call launches on: `stream` (a torch.cuda.Stream or
    a handle), else torch's current stream on the device of `like`."""
    if stream is None:
        raw = _RAW_STREAM
        if raw is not None:
            handle = raw(like.get_device())
        else:
            handle = _torch.cuda.current_stream(like.device).cuda_stream
    else:
        handle = stream if isinstance(stream, int) else stream.cuda_stream
    return handle or _CU_STREAM_LEGACY


def _prepare(prog, items, outs, like, move, poison, tensor):
    """Completes `items` for a launch on the current stream: host arrays
    moved to the device of `like` (move=True), then the outputs (`outs`, or
    allocated); returns the outputs."""
    if move:
        device = like.device
        scalars = prog.scalar_inputs
        for i, a in enumerate(items):
            if i in scalars:
                continue
            if isinstance(a, np.ndarray):
                items[i] = _torch.from_numpy(a).to(device)
            elif not a.is_cuda:
                items[i] = a.to(device)
    if outs is None:
        outs = prog.empty_outputs(like, poison)
        items += outs
    else:
        for o in outs:
            items.append(o if tensor is not None and isinstance(o, tensor)
                         else _numpy_item(o))
    return outs


def launch(prog: Program, inputs: Sequence, out=None, *, stream=None,
           check_tables=True, poison=None, benchmark=False, warmup=10,
           reps=100, graph=False):
    """Calls `prog` on `inputs` (storage arrays, scalars for scalar
    arguments); returns its outputs (`out` when given), and the Timing with
    benchmark=True.

    torch tensors are handed to the runtime as they are (it reads their
    pointer, shape and dtype). A GPU program runs on the device of the CUDA
    tensors among the inputs and `out`; CPU torch tensors and numpy arrays
    given with them are copied there first (scales kept on the host, as
    GPU-mode's are), and outputs are allocated there. With no CUDA tensor at
    all, a GPU program's arrays are staged through the runtime (copied in
    and out). Copies, output allocation and poisoning go on the stream the
    kernels launch on.
    """
    if poison is None:
        poison = DEFAULT_POISON
    gpu = prog.is_gpu
    scalars = prog.scalar_inputs
    items = list(inputs)
    outs = None
    if out is not None:
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(outs) != len(prog.outputs):
            raise ValueError(f"out= takes {len(prog.outputs)} array(s), got {len(outs)}")
        for o in outs:
            if isinstance(o, np.ndarray) and not o.flags.writeable:
                raise ValueError(f"out=: the array of shape {o.shape} is read-only")
    if benchmark and (int(reps) < 1 or int(warmup) < 0):
        raise ValueError(f"benchmark takes reps >= 1 and warmup >= 0, got reps={reps}, "
                         f"warmup={warmup}")
    tensor = _tensor_type()
    like = None      # the tensor whose framework and device outputs follow
    host = False     # inputs that a GPU call must move (numpy, CPU tensors)
    for i, a in enumerate(items):
        if i in scalars:
            items[i] = np.asarray(a, dtype=np.int64).reshape(())
        elif tensor is not None and isinstance(a, tensor):
            if like is None or (gpu and a.is_cuda and not like.is_cuda):
                like = a
            if gpu and not a.is_cuda:
                host = True
        else:
            items[i] = _numpy_item(a)
            host = host or gpu
    if gpu and outs is not None and tensor is not None and not (
            like is not None and like.is_cuda):
        like = next((o for o in outs if isinstance(o, tensor) and o.is_cuda), like)
    # A GPU program with no CUDA tensor: host arrays copied in and out.
    staged = gpu and not (like is not None and like.is_cuda)
    if gpu and not staged and stream is not None and (host or outs is None):
        with _torch.cuda.stream(_torch_stream(stream, like)):
            outs = _prepare(prog, items, outs, like, host, poison, tensor)
    else:
        outs = _prepare(prog, items, outs, like, host and not staged, poison, tensor)
    handle = 0
    if gpu and not staged:
        if benchmark:
            # timed on the runtime's own stream, after the caller's work
            _torch.cuda.current_stream(like.device).synchronize()
        else:
            handle = _stream_handle(stream, like)
    times = prog.kernel.launch(items, handle, check_tables, staged,
                               warmup if benchmark else 0, reps if benchmark else 0,
                               graph)
    if not benchmark:
        return outs
    t = sorted(times)
    device = (_native().gpu_info()[1] if gpu else "cpu")
    return outs, Timing(t[len(t) // 2], t[0], sum(t) / len(t), len(t), device)


def run_program(program: str, inputs: Sequence, num_outputs=None, *, target="auto",
                entry="main", out=None, stream=None, check_tables=True,
                poison=None, benchmark=False, warmup=10, reps=100, graph=False,
                **_ignored):
    """Compiles (cached) and runs `program` on `inputs` (storage arrays, see
    nvfp4.compiler); returns the list of outputs, or (outputs, Timing) with
    benchmark=True. `num_outputs` is checked when given."""
    outs = [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]
    target = _resolve_target(target, list(inputs) + outs)
    prog = compile_program(program, target, entry)
    if num_outputs is not None and num_outputs != len(prog.outputs):
        raise ValueError(f"the program returns {len(prog.outputs)} result(s), "
                         f"expected {num_outputs}")
    return launch(prog, inputs, out, stream=stream, check_tables=check_tables,
                  poison=poison, benchmark=benchmark, warmup=warmup, reps=reps,
                  graph=graph)
