"""Python API over the nvfp4 compiler: numpy in, numpy out.

Each function writes a small nvfp4 program for the shapes it is given,
compiles and runs it with ``nvfp4-runner`` (on the GPU when there is one,
else on the CPU; ``target=`` chooses) and returns the outputs::

    from nvfp4 import compiler
    q, s, d = compiler.quantize(x)                     # NVFP4, swizzled scales
    c = compiler.matmul(qa, sa, qb, sb, a_decode=da, b_decode=db)

Storage conventions (docs/spec.md section 1): packed FP4 is ``uint8
[..., K/2]`` (even element in the low nibble), E4M3/UE8M0 scales are
``uint8`` (row-major ``[..., R, K/bs]`` or swizzled ``[..., R/128, C/4, 32,
4, 4]``), bf16 is ``uint16`` bit patterns (``ml_dtypes.bfloat16`` and torch
tensors are accepted as inputs). Results come back in the same storage.

Every function also accepts ``benchmark=True`` (then it returns
``(outputs, timing)`` with the runner's median/min/mean microseconds per
call), ``target``, ``warmup`` and ``reps``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = [
    "RunnerError", "find_runner", "run_program", "quantize", "dequantize",
    "swizzle_scales", "unswizzle_scales", "matmul", "grouped_matmul",
    "element_type_of",
]

_REPO = Path(__file__).resolve().parents[2]


class RunnerError(RuntimeError):
    """nvfp4-runner rejected the program or its inputs (the message says why)."""


def find_runner() -> str:
    """$NVFP4_RUNNER, the repository's build/bin, or nvfp4-runner on PATH."""
    for candidate in (os.environ.get("NVFP4_RUNNER"),
                      _REPO / "build" / "bin" / "nvfp4-runner",
                      shutil.which("nvfp4-runner")):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    raise RunnerError("nvfp4-runner not found: build it (scripts/setup.sh) or "
                      "set NVFP4_RUNNER")


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------

def _to_numpy(x):
    """numpy array from numpy / ml_dtypes / torch input (bf16 -> uint16 bits)."""
    if type(x).__module__.startswith("torch"):
        import torch  # only when given a torch tensor
        t = x.detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:
            return t.view(torch.int16).numpy().view(np.uint16)
        return t.numpy()
    a = np.ascontiguousarray(x)
    if a.dtype.name == "bfloat16":
        return a.view(np.uint16)
    return a


def element_type_of(a: np.ndarray) -> str:
    """MLIR element type of a high-precision input (uint16 = bf16 bits)."""
    table = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
             np.dtype(np.uint16): "bf16"}
    if a.dtype not in table:
        raise TypeError(f"expected float32, float16 or bf16 (uint16 bits) input, "
                        f"got {a.dtype}")
    return table[a.dtype]


def _tensor(shape, element, encoding=None) -> str:
    dims = "x".join(str(d) for d in shape)
    body = f"{dims}x{element}" if dims else element
    return f"tensor<{body}{', ' + encoding if encoding else ''}>"


_SWZ = "#nvfp4.swizzled_128x4"


def _fp4_type(q: np.ndarray) -> str:
    return _tensor(q.shape[:-1] + (q.shape[-1] * 2,), "f4E2M1FN")


def _scale_type(s: np.ndarray, fmt: str, batch_rank: int) -> str:
    element = "f8E4M3FN" if fmt == "nvfp4" else "f8E8M0FNU"
    swizzled = s.ndim == batch_rank + 5
    return _tensor(s.shape, element, _SWZ if swizzled else None)


def _ceil(a, b):
    return -(-a // b)


# ---------------------------------------------------------------------------
# Running programs
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class Timing:
    median_us: float
    min_us: float
    mean_us: float
    reps: int
    device: str


def run_program(program: str, inputs: Sequence[np.ndarray], num_outputs: int, *,
                target="auto", entry="main", benchmark=False, warmup=10, reps=100,
                poison="0xff", graph=False):
    """Runs `program` on `inputs` (storage-format arrays, see the module doc).

    Returns the list of the entry's `num_outputs` results, or
    (outputs, Timing) with benchmark=True. Raises RunnerError with the
    runner's message on any failure.
    """
    runner = find_runner()
    with tempfile.TemporaryDirectory(prefix="nvfp4-") as tmp:
        tmp = Path(tmp)
        (tmp / "program.mlir").write_text(program)
        # e.g. NVFP4_RUNNER_PREFIX="compute-sanitizer --tool memcheck"
        prefix = shlex.split(os.environ.get("NVFP4_RUNNER_PREFIX", ""))
        cmd = prefix + [runner, str(tmp / "program.mlir"), f"--entry={entry}",
               f"--target={target}", f"--poison={poison}"]
        # e.g. NVFP4_RUNNER_ARGS="--portable" (the SIMT kernels on sm_90a)
        cmd += shlex.split(os.environ.get("NVFP4_RUNNER_ARGS", ""))
        for i, a in enumerate(inputs):
            path = tmp / f"in{i}.npy"
            np.save(path, a)
            cmd.append(f"--input={path}")
        outs = [tmp / f"out{i}.npy" for i in range(num_outputs)]
        cmd += [f"--output={p}" for p in outs]
        if benchmark:
            cmd += ["--benchmark", f"--warmup={warmup}", f"--reps={reps}"]
            if graph:  # time CUDA graph replays of one call (GPU)
                cmd.append("--graph")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RunnerError(proc.stderr.strip() or proc.stdout.strip())
        results = [np.load(p) for p in outs]
    if not benchmark:
        return results
    m = re.search(r"on (.*): median ([\d.]+) us, min ([\d.]+) us, mean ([\d.]+) us "
                  r"over (\d+) reps", proc.stdout)
    if not m:
        raise RunnerError("no timing in runner output:\n" + proc.stdout)
    return results, Timing(float(m.group(2)), float(m.group(3)), float(m.group(4)),
                           int(m.group(5)), m.group(1))


def _func(args, results, body) -> str:
    sig = ", ".join(f"%{n}: {t}" for n, t in args)
    res = ", ".join(results)
    return (f"func.func @main({sig}) -> ({res}) {{\n{body}\n}}\n")


def _run(args, results, body, inputs, run_options, pick=lambda outs: outs):
    """Builds @main, runs it, and returns pick(outputs) (plus the Timing when
    benchmarking)."""
    res = run_program(_func(args, results, body), inputs, len(results), **run_options)
    if run_options.get("benchmark"):
        outs, timing = res
        return pick(outs), timing
    return pick(res)


# ---------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------

def quantize(x, fmt="nvfp4", *, block=None, rounding="nearest_even", seed=None,
             hadamard=False, scale_rule=None, error_metric=None, e4m3_max=None,
             amax=None, swizzle=True, **run_options):
    """nvfp4.quantize of x ([R, K] or [B, R, K]).

    Returns (q, scales, s_dec) for NVFP4, (q, scales) for MXFP4.
    """
    x = _to_numpy(x)
    element = element_type_of(x)
    if x.ndim not in (2, 3):
        raise ValueError("quantize expects [R, K] or [B, R, K]")
    batch = x.shape[:-2]
    rows, k = x.shape[-2:]
    nv = fmt == "nvfp4"
    if fmt not in ("nvfp4", "mxfp4"):
        raise ValueError("fmt must be 'nvfp4' or 'mxfp4'")
    bw = 16 if nv else 32
    stochastic = rounding == "stochastic"
    args = [("x", _tensor(x.shape, element))]
    inputs = [x]
    operands = "%x"
    if amax is not None:
        amax_arr = np.asarray(amax, dtype=np.float32).reshape(batch)
        args.append(("amax", _tensor(batch, "f32")))
        inputs.append(amax_arr)
        operands += f" amax %amax : {_tensor(batch, 'f32')}"
    if stochastic:
        args.append(("seed", "i64"))
        inputs.append(np.asarray(0 if seed is None else seed, dtype=np.uint64).astype(np.int64))
        operands += " seed %seed"
    attrs = []
    if block is not None:
        blk = {"1x16": (1, 16), "16x16": (16, 16), "1x32": (1, 32)}.get(block, block)
        attrs.append(f"block = array<i64: {blk[0]}, {blk[1]}>")
    if stochastic:
        attrs.append("rounding = #nvfp4.rounding<stochastic>")
    if hadamard:
        attrs.append("hadamard")
    if scale_rule:
        attrs.append(f"scale_rule = #nvfp4.scale_rule<{scale_rule}>")
    if error_metric:
        attrs.append(f"error_metric = #nvfp4.error_metric<{error_metric}>")
    if e4m3_max is not None:
        attrs.append(f"e4m3_max = {int(e4m3_max)}")
    cols = k // bw
    scale_elt = "f8E4M3FN" if nv else "f8E8M0FNU"
    if swizzle:
        scale_t = _tensor(batch + (_ceil(rows, 128), _ceil(cols, 4), 32, 4, 4), scale_elt, _SWZ)
    else:
        scale_t = _tensor(batch + (rows, cols), scale_elt)
    results = [_tensor(x.shape, "f4E2M1FN"), scale_t]
    names = "%q, %s"
    if nv:
        results.append(_tensor(batch, "f32"))
        names += ", %d"
    attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
    body = (f"  {names} = nvfp4.quantize {fmt} {operands}{attr_text} : "
            f"{args[0][1]} -> {', '.join(results)}\n"
            f"  return {names} : {', '.join(results)}")
    return _run(args, results, body, inputs, run_options, tuple)


def dequantize(q, scales, s_dec=None, *, fmt="nvfp4", out="f32", **run_options):
    """nvfp4.dequantize: values (packed), scales (either layout) -> float."""
    q, scales = _to_numpy(q), _to_numpy(scales)
    batch_rank = q.ndim - 2
    args = [("q", _fp4_type(q)), ("s", _scale_type(scales, fmt, batch_rank))]
    inputs = [q, scales]
    decode = ""
    if s_dec is not None:
        d = np.asarray(s_dec, dtype=np.float32).reshape(q.shape[:-2])
        args.append(("d", _tensor(d.shape, "f32")))
        inputs.append(d)
        decode = f" decode_scale %d : {args[-1][1]}"
    result = _tensor(q.shape[:-1] + (q.shape[-1] * 2,), out)
    body = (f"  %r = nvfp4.dequantize %q, %s{decode} : {args[0][1]}, {args[1][1]} -> {result}\n"
            f"  return %r : {result}")
    return _run(args, [result], body, inputs, run_options, lambda o: o[0])


def swizzle_scales(s, fmt="nvfp4", **run_options):
    """nvfp4.swizzle_scales of row-major scales [..., R, C]."""
    s = _to_numpy(s)
    element = "f8E4M3FN" if fmt == "nvfp4" else "f8E8M0FNU"
    rows, cols = s.shape[-2:]
    src = _tensor(s.shape, element)
    dst = _tensor(s.shape[:-2] + (_ceil(rows, 128), _ceil(cols, 4), 32, 4, 4), element, _SWZ)
    body = (f"  %r = nvfp4.swizzle_scales %s : {src} -> {dst}\n  return %r : {dst}")
    return _run([("s", src)], [dst], body, [s], run_options, lambda o: o[0])


def unswizzle_scales(sw, rows, cols, fmt="nvfp4", **run_options):
    """nvfp4.unswizzle_scales back to row-major [..., rows, cols]."""
    sw = _to_numpy(sw)
    element = "f8E4M3FN" if fmt == "nvfp4" else "f8E8M0FNU"
    src = _tensor(sw.shape, element, _SWZ)
    dst = _tensor(sw.shape[:-5] + (rows, cols), element)
    body = (f"  %r = nvfp4.unswizzle_scales %s : {src} -> {dst}\n  return %r : {dst}")
    return _run([("s", src)], [dst], body, [sw], run_options, lambda o: o[0])


def _scalar_operand(name, value, shape, args, inputs, keyword):
    if value is None:
        return ""
    arr = np.asarray(value, dtype=np.float32)
    arr = arr.reshape(shape) if arr.size == int(np.prod(shape)) else arr
    t = _tensor(arr.shape, "f32")
    args.append((name, t))
    inputs.append(arr)
    return f" {keyword}(%{name} : {t})"


def matmul(a_q, a_s, b_q, b_s, *, fmt="nvfp4", a_decode=None, b_decode=None,
           alpha=None, acc=None, beta=None, out="bf16", **run_options):
    """nvfp4.matmul: C[M, N] = alpha_eff * A * B^T (+ beta * acc).

    a_s, b_s are swizzled scales; a_decode/b_decode the NVFP4 decode scales.
    """
    a_q, a_s, b_q, b_s = map(_to_numpy, (a_q, a_s, b_q, b_s))
    m, n = a_q.shape[0], b_q.shape[0]
    types = [_fp4_type(a_q), _scale_type(a_s, fmt, 0), _fp4_type(b_q),
             _scale_type(b_s, fmt, 0)]
    args = list(zip(["a", "sa", "b", "sb"], types))
    inputs = [a_q, a_s, b_q, b_s]
    extra = _scalar_operand("da", a_decode, (), args, inputs, "a_decode_scale")
    extra += _scalar_operand("db", b_decode, (), args, inputs, "b_decode_scale")
    extra += _scalar_operand("al", alpha, (), args, inputs, "alpha")
    result = _tensor((m, n), out)
    attrs = ""
    if acc is not None:
        acc = _to_numpy(acc)
        args.append(("c", result))
        inputs.append(acc)
        extra += f" acc(%c : {result})"
        if beta is not None:
            attrs = f" {{beta = {float(beta)!r} : f32}}"
    body = (f"  %r = nvfp4.matmul %a, %sa, %b, %sb{extra}{attrs} : "
            f"{', '.join(types)} -> {result}\n  return %r : {result}")
    return _run(args, [result], body, inputs, run_options, lambda o: o[0])


def grouped_matmul(mode, a, a_scales, b, b_scales, *, fmt="nvfp4",
                   group_offsets=None, masked_m=None, a_decode=None,
                   b_decode=None, alpha=None, acc=None, beta=None, out="bf16",
                   **run_options):
    """nvfp4.grouped_matmul in `mode` independent | contiguous | masked.

    independent: a, a_scales, b, b_scales (and acc) are lists, one per group;
    returns a list of C_g. contiguous: a [S, K], b [G, N, K],
    group_offsets [G+1]; returns C [S, N]. masked: a [G, maxM, K], b [G, N, K],
    masked_m [G]; returns C [G, maxM, N]. a_decode/b_decode: scalar or [G];
    alpha: [G]. group_offsets must start at 0, never decrease and end at S;
    0 <= masked_m[g] <= maxM (docs/spec.md section 3): the runner checks
    them and RunnerError carries its message otherwise.
    """
    independent = mode == "independent"
    if mode not in ("independent", "contiguous", "masked"):
        raise ValueError("mode must be independent, contiguous or masked")
    lists = [a, a_scales, b, b_scales] if independent else [[a], [a_scales], [b], [b_scales]]
    A, SA, B, SB = ([_to_numpy(v) for v in lst] for lst in lists)
    G = len(A) if independent else B[0].shape[0]
    args, inputs, clauses = [], [], []
    a_batch = 1 if mode == "masked" else 0

    def group(kw, arrays, typer):
        names = []
        for i, arr in enumerate(arrays):
            names.append(f"%{kw}{i}")
            args.append((f"{kw}{i}", typer(arr)))
            inputs.append(arr)
        clauses.append(f"{kw}({', '.join(names)} : {', '.join(typer(v) for v in arrays)})")

    group("a", A, _fp4_type)
    group("a_scales", SA, lambda s: _scale_type(s, fmt, a_batch))
    group("b", B, _fp4_type)
    group("b_scales", SB, lambda s: _scale_type(s, fmt, 0 if independent else 1))
    if mode == "contiguous":
        off = np.asarray(group_offsets, dtype=np.int32)
        args.append(("off", _tensor(off.shape, "i32")))
        inputs.append(off)
        clauses.append(f"group_offsets(%off : {args[-1][1]})")
    if mode == "masked":
        mm = np.asarray(masked_m, dtype=np.int32)
        args.append(("mm", _tensor(mm.shape, "i32")))
        inputs.append(mm)
        clauses.append(f"masked_m(%mm : {args[-1][1]})")
    for name, value, kw in (("da", a_decode, "a_decode_scale"), ("db", b_decode, "b_decode_scale"),
                            ("al", alpha, "alpha")):
        if value is not None:
            arr = np.asarray(value, dtype=np.float32)
            t = _tensor(arr.shape, "f32")
            args.append((name, t))
            inputs.append(arr)
            clauses.append(f"{kw}(%{name} : {t})")
    if independent:
        results = [_tensor((x.shape[0], y.shape[0]), out) for x, y in zip(A, B)]
    elif mode == "contiguous":
        results = [_tensor((A[0].shape[0], B[0].shape[1]), out)]
    else:
        results = [_tensor((G, A[0].shape[1], B[0].shape[1]), out)]
    attrs = ""
    if acc is not None:
        accs = [_to_numpy(v) for v in (acc if independent else [acc])]
        names = []
        for i, (arr, t) in enumerate(zip(accs, results)):
            args.append((f"c{i}", t))
            inputs.append(arr)
            names.append(f"%c{i}")
        clauses.append(f"acc({', '.join(names)} : {', '.join(results)})")
        if beta is not None:
            attrs = f" {{beta = {float(beta)!r} : f32}}"
    rnames = ", ".join(f"%r{i}" for i in range(len(results)))
    body = (f"  {rnames} = nvfp4.grouped_matmul {mode} {' '.join(clauses)}{attrs} -> "
            f"{', '.join(results)}\n  return {rnames} : {', '.join(results)}")
    return _run(args, results, body, inputs, run_options,
                (lambda o: o) if independent else (lambda o: o[0]))
