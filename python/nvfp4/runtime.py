"""The in-process runtime under the Python API: compile once, launch in place.

``nvfp4._runtime`` (nanobind, over libnvfp4_runtime.so, the runtime that
nvfp4-runner uses too) compiles a program once per (program, options, chip,
compiler build) and keeps it in memory and in an on-disk cache
(``$NVFP4_CACHE_DIR``, else ``~/.cache/nvfp4``): a second process neither
lowers nor runs ptxas. Calls check their arrays against the program's
signature and launch on the arrays' memory:

* numpy arrays and torch CPU tensors run on the CPU target;
* torch CUDA tensors run on the GPU, on torch's current stream, in torch's
  (primary) CUDA context, with no copies and no host synchronization, so a
  call can be captured into a CUDA graph;
* numpy arrays with ``target="gpu"`` are copied to the GPU and back (a
  convenience for tests; torch CUDA tensors are the fast path).

Outputs are allocated by the caller's framework on the caller's device
(torch in, torch out; numpy in, numpy out), or written into ``out=``. A
call that fails raises :class:`RunnerError` with the verifier's or the
runtime's message and writes nothing.
"""

from __future__ import annotations

import dataclasses
import os
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
_TORCH_CODES = None
_RAW_STREAM = None  # torch._C._cuda_getCurrentRawStream, looked up once


def _torch_module():
    global _torch, _TORCH_CODES, _RAW_STREAM
    if _torch is None:
        import torch
        _torch = torch
        _RAW_STREAM = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        codes = {torch.float32: (_FLOAT, 32), torch.float16: (_FLOAT, 16),
                 torch.bfloat16: (_BFLOAT, 16), torch.float64: (_FLOAT, 64),
                 torch.uint8: (_UINT, 8), torch.int8: (_INT, 8),
                 torch.int16: (_INT, 16), torch.int32: (_INT, 32),
                 torch.int64: (_INT, 64), torch.bool: (6, 8)}
        # narrow float types: their bytes, as the runtime stores them
        for name in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu",
                     "float4_e2m1fn_x2"):
            if hasattr(torch, name):
                codes[getattr(torch, name)] = (_UINT, 8)
        _TORCH_CODES = codes
    return _torch


def is_torch(x) -> bool:
    return type(x).__module__ == "torch" or (
        type(x).__module__.startswith("torch") and hasattr(x, "data_ptr"))


def _torch_item(t):
    """The launch item of a torch tensor: (pointer, shape, code, bits,
    on_device), read without DLPack (which costs microseconds per tensor)."""
    if _TORCH_CODES is None:
        _torch_module()
    code = _TORCH_CODES.get(t.dtype)
    if code is None:
        raise TypeError(f"unsupported torch dtype {t.dtype}")
    if not t.is_contiguous():
        raise ValueError(f"a tensor of shape {tuple(t.shape)} and strides "
                         f"{t.stride()} is not contiguous: pass .contiguous()")
    return (t.data_ptr(), tuple(t.shape), code[0], code[1], t.is_cuda)


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

    __slots__ = ("kernel", "outputs", "is_gpu", "num_inputs", "scalar_inputs")

    def __init__(self, kernel):
        self.kernel = kernel
        self.is_gpu = kernel.is_gpu
        ins = kernel.inputs
        self.num_inputs = len(ins)
        self.scalar_inputs = [i for i, v in enumerate(ins) if v[2]]
        self.outputs = [(tuple(shape), _element_of(t)) for shape, _, _, t in kernel.outputs]

    def empty_outputs(self, like, poison=None):
        """Outputs allocated by the framework of `like` (a torch tensor: on
        its device; else numpy)."""
        outs = []
        if like is not None:
            torch = _torch
            for shape, element in self.outputs:
                np_dtype, name = _STORAGE[element]
                dtype = getattr(torch, name, None) or torch.uint8
                t = torch.empty(shape, dtype=dtype, device=like.device)
                if poison is not None:
                    t.view(torch.uint8).fill_(poison) if t.numel() else None
                outs.append(t)
            return outs
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


def compile_program(program: str, target: str, entry="main", *, chip="",
                    portable=None, pipeline_options=None) -> Program:
    """Compiles `program` for 'cpu' or 'gpu' (cached in memory and on disk).

    portable: the portable SIMT kernels even where the chip has its own
    (default: $NVFP4_PORTABLE_KERNELS); pipeline_options: the pipeline's
    options as nvfp4-opt takes them (default: $NVFP4_PIPELINE_OPTIONS), for
    tuning sweeps and tests.
    """
    if portable is None:
        portable = target == "gpu" and bool(os.environ.get("NVFP4_PORTABLE_KERNELS"))
    if pipeline_options is None:
        pipeline_options = os.environ.get("NVFP4_PIPELINE_OPTIONS", "")
    key = (program, target, entry, chip, portable, pipeline_options)
    prog = _PROGRAMS.get(key)
    if prog is None:
        prog = Program(_native().compile(program, entry, target, chip, portable, 0,
                                         pipeline_options))
        _PROGRAMS[key] = prog
    return prog


def _resolve_target(target, arrays):
    on_cuda = any(is_torch(a) and a.is_cuda for a in arrays)
    if target == "auto":
        return "gpu" if on_cuda else "cpu"
    if target not in ("cpu", "gpu"):
        raise ValueError(f"target must be 'auto', 'cpu' or 'gpu', got {target!r}")
    if target == "cpu" and on_cuda:
        raise ValueError("target='cpu' with CUDA tensors: move them to the CPU "
                         "or use target='gpu'")
    return target


def _current_stream(device):
    """torch's current CUDA stream handle (its raw accessor when it has one:
    the public one builds a Stream object per call)."""
    raw = _RAW_STREAM
    if raw is not None:
        return raw(device.index if device is not None and device.index is not None
                   else _torch.cuda.current_device())
    return _torch.cuda.current_stream(device).cuda_stream


def launch(prog: Program, inputs: Sequence, out=None, *, stream=None,
           check_tables=True, poison=None, benchmark=False, warmup=10,
           reps=100, graph=False):
    """Calls `prog` on `inputs` (storage arrays, scalars for scalar
    arguments); returns its outputs (`out` when given), and the Timing with
    benchmark=True."""
    if poison is None:
        poison = DEFAULT_POISON
    torch_like = next((a for a in inputs if is_torch(a)), None)
    if torch_like is not None:
        _torch_module()
    # On the GPU every torch input must be on the device; CPU torch tensors
    # given to a GPU program (scales kept on the host, as GPU-mode's are)
    # are moved there.
    if prog.is_gpu and torch_like is not None and not torch_like.is_cuda:
        torch_like = next((a for a in inputs if is_torch(a) and a.is_cuda), None)
    items = []
    staged = False
    for i, a in enumerate(inputs):
        if i in prog.scalar_inputs:
            items.append(np.asarray(a, dtype=np.int64).reshape(()))
        elif is_torch(a):
            if prog.is_gpu and not a.is_cuda:
                a = a.to(torch_like.device if torch_like is not None else "cuda")
            items.append(_torch_item(a))
        else:
            a = _numpy_item(a)
            if prog.is_gpu:
                if torch_like is not None:
                    a = _torch.from_numpy(a).to(torch_like.device)
                    items.append(_torch_item(a))
                    continue
                staged = True
            items.append(a)
    if out is None:
        outs = prog.empty_outputs(torch_like if not staged else None, poison)
    else:
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(outs) != len(prog.outputs):
            raise ValueError(f"out= takes {len(prog.outputs)} array(s), got {len(outs)}")
    for o in outs:
        items.append(_torch_item(o) if is_torch(o) else _numpy_item(o))
    stream_handle = 0
    if prog.is_gpu and not staged and not benchmark:
        stream_handle = stream if isinstance(stream, int) and stream else (
            stream.cuda_stream if stream is not None else
            _current_stream(torch_like.device if torch_like is not None else None))
    if benchmark and prog.is_gpu and torch_like is not None:
        _torch.cuda.current_stream(torch_like.device).synchronize()
    times = prog.kernel.launch(items, stream_handle, check_tables, staged,
                               warmup if benchmark else 0, reps if benchmark else 0,
                               graph)
    if not benchmark:
        return outs
    t = sorted(times)
    device = (_native().gpu_info()[1] if prog.is_gpu else "cpu")
    return outs, Timing(t[len(t) // 2], t[0], sum(t) / len(t), len(t), device)


def run_program(program: str, inputs: Sequence, num_outputs=None, *, target="auto",
                entry="main", out=None, stream=None, check_tables=True,
                poison=None, benchmark=False, warmup=10, reps=100, graph=False,
                **_ignored):
    """Compiles (cached) and runs `program` on `inputs` (storage arrays, see
    nvfp4.compiler); returns the list of outputs, or (outputs, Timing) with
    benchmark=True. `num_outputs` is checked when given."""
    target = _resolve_target(target, inputs)
    prog = compile_program(program, target, entry)
    if num_outputs is not None and num_outputs != len(prog.outputs):
        raise ValueError(f"the program returns {len(prog.outputs)} result(s), "
                         f"expected {num_outputs}")
    return launch(prog, inputs, out, stream=stream, check_tables=check_tables,
                  poison=poison, benchmark=benchmark, warmup=warmup, reps=reps,
                  graph=graph)
