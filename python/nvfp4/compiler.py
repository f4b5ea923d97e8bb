"""Python API over the nvfp4 compiler: numpy arrays and torch tensors in place.

Each function describes its operation as a small nvfp4 program, compiles it
once (the runtime keeps it in memory and on disk, see nvfp4.runtime) and
calls it on the caller's arrays::

    import torch
    from nvfp4 import compiler
    q, s, d = compiler.quantize(x)                 # x: bf16 CUDA tensor
    c = compiler.matmul(q, s, wq, ws, a_decode=d, b_decode=wd)

Where it runs: torch CUDA tensors on the GPU (torch's current stream, no
copies, no synchronization; CUDA-graph capturable), numpy arrays and torch
CPU tensors on the CPU; ``target="gpu"`` with numpy arrays copies them to the
GPU and back. Outputs come from the inputs' framework (torch in, torch out)
or are written into ``out=``.

Storage (docs/spec.md section 1): packed FP4 is ``[..., K/2]`` bytes (even
element in the low nibble: numpy uint8, torch uint8 or float4_e2m1fn_x2),
E4M3/UE8M0 scales are bytes (torch float8_e4m3fn / float8_e8m0fnu accepted),
row-major ``[..., R, K/bs]`` or swizzled ``[..., R/128, C/4, 32, 4, 4]``
(GPU-mode's pre-tiled 6-D form ``[32, 4, R/128, 4, C/4, L]`` too); bf16 is a
torch bfloat16 tensor or numpy uint16 bits (ml_dtypes.bfloat16 accepted).
torch outputs carry the torch dtypes; numpy outputs the storage dtypes.

Every function also takes ``target`` ('auto', 'cpu', 'gpu'), ``out``,
``stream`` (a torch.cuda.Stream or CUstream handle), ``check_tables``,
``poison`` (fill the outputs with this byte first: tests) and
``benchmark=True`` (then it returns ``(outputs, Timing)``; ``warmup``,
``reps``, ``graph``).
"""

from __future__ import annotations

import collections

import numpy as np

from . import runtime as _runtime
from .runtime import RunnerError, Timing, is_torch, run_program  # noqa: F401

__all__ = [
    "RunnerError", "Timing", "run_program", "quantize", "dequantize",
    "swizzle_scales", "unswizzle_scales", "swiglu", "matmul", "grouped_matmul",
    "element_type_of", "quantize_to_fp4", "fp4_matmul", "FP4Tensor", "swizzled_shape",
    "linear", "grouped_linear", "moe_route", "moe_dispatch", "moe_combine",
]


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------

#: torch dtype -> MLIR element of the high-precision inputs, made from
#: runtime's dtype table once torch is in use.
_TORCH_ELEMENT: dict = {}


def element_type_of(a) -> str:
    """MLIR element type of a high-precision input (numpy uint16 = bf16 bits)."""
    if is_torch(a):
        if not _TORCH_ELEMENT:
            _TORCH_ELEMENT.update({_runtime._TORCH_DTYPES[e]: e for e in ("f32", "f16", "bf16")})
        element = _TORCH_ELEMENT.get(a.dtype)
        if element is None:
            raise TypeError(f"expected a float32, float16 or bfloat16 tensor, got {a.dtype}")
        return element
    dtype = np.asarray(a).dtype if not isinstance(a, np.ndarray) else a.dtype
    table = {"float32": "f32", "float16": "f16", "uint16": "bf16", "bfloat16": "bf16"}
    if dtype.name not in table:
        raise TypeError(f"expected float32, float16 or bf16 (uint16 bits) input, "
                        f"got {dtype}")
    return table[dtype.name]


def _tensor(shape, element, encoding=None) -> str:
    dims = "x".join(str(d) for d in shape)
    body = f"{dims}x{element}" if dims else element
    return f"tensor<{body}{', ' + encoding if encoding else ''}>"


_SWZ = "#nvfp4.swizzled_128x4"


def _shape(a):
    return tuple(a.shape)


def _fp4_type(q) -> str:
    shape = _shape(q)
    return _tensor(shape[:-1] + (shape[-1] * 2,), "f4E2M1FN")


def _activation(a, what):
    """bf16/f16 activations of a weight-only (W4A16) matmul: the array as
    the program takes it and its MLIR element type."""
    a = _host(a)
    element = element_type_of(a)
    if element not in ("bf16", "f16"):
        raise TypeError(f"{what}: weight-only matmuls take bf16 or f16 activations, "
                        f"got {element}")
    return a, element


def _scale_element(fmt):
    if fmt not in ("nvfp4", "mxfp4"):
        raise ValueError("fmt must be 'nvfp4' or 'mxfp4'")
    return "f8E4M3FN" if fmt == "nvfp4" else "f8E8M0FNU"


def block_width(fmt: str) -> int:
    """Values per block scale along K: 16 (nvfp4), 32 (mxfp4)."""
    _scale_element(fmt)
    return 16 if fmt == "nvfp4" else 32


def _scale_type(s, fmt: str, batch_rank: int) -> str:
    swizzled = len(s.shape) == batch_rank + 5
    return _tensor(_shape(s), _scale_element(fmt), _SWZ if swizzled else None)


def _ceil(a, b):
    return -(-a // b)


def swizzled_shape(batch, rows, cols):
    """The 128x4 layout's shape of [*batch, rows, cols] scales:
    [*batch, ceil(rows/128), ceil(cols/4), 32, 4, 4] (docs/spec.md)."""
    return tuple(batch) + (_ceil(rows, 128), _ceil(cols, 4), 32, 4, 4)


def _sig(a):
    """What of an array the compiled program depends on."""
    return (a.shape, a.dtype)


def _host(x):
    """numpy arrays (and lists) as contiguous numpy; torch tensors as they are."""
    if is_torch(x):
        return x
    a = np.ascontiguousarray(x)
    if a.dtype.byteorder == (">" if np.little_endian else "<"):
        raise ValueError(f"a {a.dtype.str} array is not in this machine's byte order: pass "
                         "a.astype(a.dtype.newbyteorder('='))")
    return a.view(np.uint16) if a.dtype.name == "bfloat16" else a


def _values(x):
    """A values operand as the program takes it: GPU-mode's per-group [M,
    K/2, L] with L = 1 -> [M, K/2] (a view). Packed FP4 bytes are uint8."""
    if not is_torch(x):
        a = _host(x)
        if a.dtype != np.uint8:
            raise TypeError(f"packed FP4 values are uint8 bytes (two codes each), got "
                            f"{a.dtype}")
        return a
    return x[..., 0] if x.dim() == 3 and x.shape[2] == 1 else x


def _scales(s):
    """A scales operand as the program takes it; GPU-mode's forms for one
    group: row-major [R, C, 1] -> [R, C]; pre-tiled [32, 4, R/128, 4, C/4,
    1] -> swizzled [R/128, C/4, 32, 4, 4] (the same bytes when it is the
    permuted view GPU-mode makes)."""
    torch_in = is_torch(s)
    if not torch_in:
        s = _host(s)
    rank = s.ndim
    if rank not in (3, 6):
        return s
    shape = tuple(s.shape)
    if len(shape) == 3 and shape[-1] == 1:
        return s[..., 0] if torch_in else s.reshape(shape[:2])
    if len(shape) == 6 and shape[:2] == (32, 4) and shape[3] == 4 and shape[5] == 1:
        if torch_in:
            t = s.permute(5, 2, 4, 0, 1, 3)[0]
            return t if t.is_contiguous() else t.contiguous()
        return np.ascontiguousarray(s.transpose(5, 2, 4, 0, 1, 3)[0])
    return s


# ---------------------------------------------------------------------------
# Calling programs
# ---------------------------------------------------------------------------

_OPS: dict = {}
_RUN_KEYS = ("out", "stream", "check_tables", "poison", "benchmark", "warmup",
             "reps", "graph")
_RUN_KEYS_SET = frozenset(_RUN_KEYS + ("target",))


def _func(args, results, body) -> str:
    sig = ", ".join(f"%{n}: {t}" for n, t in args)
    res = ", ".join(results)
    return f"func.func @main({sig}) -> ({res}) {{\n{body}\n}}\n"


def _call(key, build, inputs, run_options, pick):
    """Runs the program `build()` describes (args, results, body; built only
    the first time `key` is seen for a target) on `inputs`."""
    options = run_options
    target = "auto"
    arrays = inputs
    if options:
        if not options.keys() <= _RUN_KEYS_SET:
            raise TypeError("unexpected keyword argument(s) "
                            f"{sorted(options.keys() - _RUN_KEYS_SET)}")
        if "target" in options:
            options = dict(options)
            target = options.pop("target")
        out = options.get("out")
        if out is not None:
            arrays = [*inputs, *out] if isinstance(out, (list, tuple)) else [*inputs, out]
    target = _runtime._resolve_target(target, arrays)
    # The environment's compile settings are part of the key: a program
    # compiled under other pipeline options is another program.
    full_key = (key, target, _runtime.compile_settings(target))
    prog = _OPS.get(full_key)
    if prog is None:
        args, results, body = build()
        prog = _runtime.compile_program(_func(args, results, body), target)
        _OPS[full_key] = prog
    res = _runtime.launch(prog, inputs, **options)
    if options.get("benchmark"):
        outs, timing = res
        return pick(outs), timing
    return pick(res)


def _table(value, what):
    """group_offsets / masked_m as int32: integers within int32's range
    (a wider or float table would wrap or be truncated into range)."""
    if is_torch(value):
        if str(value.dtype) != "torch.int32":
            raise TypeError(f"{what}: an int32 tensor, got {value.dtype}")
        return value
    a = np.asarray(value)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{what}: integers, got {a.dtype}")
    info = np.iinfo(np.int32)
    if a.size and (a.min() < info.min or a.max() > info.max):
        raise ValueError(f"{what}: values beyond int32 ({int(a.min())}..{int(a.max())})")
    return _host(a.astype(np.int32))


def _check_beta(acc, beta):
    if beta is None:
        return
    if acc is None:
        raise ValueError("beta scales acc: pass acc too")
    if not np.isfinite(float(beta)):
        raise ValueError(f"beta must be finite, got {beta}")


def _scalar_f32(value, shape):
    """A decode scale / alpha operand: an array as given, or a Python number
    (or list) made an f32 numpy array (runtime.launch moves host arrays to
    the device of a GPU call's tensors)."""
    if value is None or is_torch(value) or isinstance(value, np.ndarray):
        return value
    arr = np.asarray(value, dtype=np.float32)
    return arr.reshape(shape) if arr.size == int(np.prod(shape)) else arr


def _bias(bias, shape, what):
    """A matmul's bias: the array as the program takes it (bf16, f16 or
    f32, of `shape`) and its MLIR type; (None, None) without one."""
    if bias is None:
        return None, None
    bias = _host(bias)
    element = element_type_of(bias)
    if tuple(_shape(bias)) != tuple(shape):
        raise ValueError(f"{what}: bias of shape {list(_shape(bias))}, expected {list(shape)}")
    # The GPU epilogues read two neighbouring bias values at once: a CUDA
    # tensor (used in place) must start at a multiple of two elements.
    if is_torch(bias) and bias.is_cuda and bias.data_ptr() % (2 * bias.element_size()):
        raise ValueError(f"{what}: a CUDA bias must start at a multiple of "
                         f"{2 * bias.element_size()} bytes (a view at an odd offset: pass "
                         "bias.clone())")
    return bias, _tensor(tuple(shape), element)


# ---------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------

def _check_given_scale(fmt, amax, encode_scale, decode_scale, scale_rule, row_scaled):
    """The rules of a calibrated scale (docs/spec.md Q15), checked before
    anything is compiled."""
    given = [n for n, v in (("encode_scale", encode_scale), ("decode_scale", decode_scale))
             if v is not None]
    if not given:
        return None
    if len(given) > 1:
        raise ValueError("pass encode_scale or decode_scale, not both")
    if amax is not None:
        raise ValueError(f"{given[0]} replaces the amax: pass one of them, not both")
    if fmt != "nvfp4":
        raise ValueError(f"{given[0]} applies to nvfp4 only (mxfp4 has no per-tensor scale)")
    if scale_rule not in (None, "max6"):
        raise ValueError(f"{given[0]} needs scale_rule 'max6' (four_over_six measures its "
                         "errors against the tensor amax)")
    if row_scaled:
        raise ValueError(f"{given[0]} is one scale per tensor (batch entry): not with "
                         "row_scaled")
    return given[0]


_BLOCKS = {"1x16": (1, 16), "16x16": (16, 16), "1x32": (1, 32)}


def _block(block):
    """A quantize block as (rows, cols): "1x16" / "16x16" / "1x32" or a
    pair of ints (a list too); None: the format's default."""
    if block is None:
        return None
    if isinstance(block, str):
        if block not in _BLOCKS:
            raise ValueError(f"block must be one of {sorted(_BLOCKS)} or (rows, cols), "
                             f"got {block!r}")
        return _BLOCKS[block]
    try:
        pair = tuple(int(v) for v in block)
    except (TypeError, ValueError):
        pair = ()
    if len(pair) != 2 or list(pair) != list(block):
        raise ValueError(f"block must be one of {sorted(_BLOCKS)} or (rows, cols), "
                         f"got {block!r}")
    return pair


class _Result:
    """A value a program computes (not an input): its shape and element
    type, what a quantize of it needs to know."""

    def __init__(self, shape, element):
        self.shape, self.element = tuple(shape), element


class _QuantizeOp:
    """One nvfp4.quantize of a program: the inputs it takes after x, its
    arguments and its text. quantize() runs it alone; linear() and
    grouped_linear() feed it to a matmul in the same program."""

    def __init__(self, x, fmt="nvfp4", *, block=None, rounding="nearest_even", seed=None,
                 hadamard=False, scale_rule=None, error_metric=None, e4m3_max=None,
                 amax=None, swizzle=True, row_scaled=False, encode_scale=None,
                 decode_scale=None):
        if isinstance(x, _Result):
            self.shape = shape = x.shape
            self.element = x.element
        else:
            self.shape = shape = _shape(x)
            self.element = element_type_of(x)
        if len(shape) not in (2, 3):
            raise ValueError("quantize expects [R, K] or [B, R, K]")
        self.fmt, self.nv = fmt, fmt == "nvfp4"
        _scale_element(fmt)
        if rounding not in ("nearest_even", "stochastic"):
            raise ValueError(f"rounding must be 'nearest_even' or 'stochastic', got "
                             f"{rounding!r}")
        self.stochastic = rounding == "stochastic"
        if seed is not None and not self.stochastic:
            raise ValueError("seed applies to rounding='stochastic' only")
        block = _block(block)
        if e4m3_max is not None and (not np.isfinite(float(e4m3_max)) or
                                     float(e4m3_max) != int(e4m3_max)):
            raise ValueError(f"e4m3_max must be a whole number, got {e4m3_max}")
        self.batch = shape[:-2]
        if row_scaled and not self.nv:
            raise ValueError("row_scaled applies to nvfp4 only")
        self.given = _check_given_scale(fmt, amax, encode_scale, decode_scale, scale_rule,
                                        row_scaled)
        # The shape of the decode scales and the amax: per tensor or per row.
        self.per = shape[:-1] if row_scaled else self.batch
        self.inputs = []
        self.amax = _scalar_f32(amax, self.per)
        if self.amax is not None:
            self.inputs.append(self.amax)
        if self.given is not None:
            given_arr = _scalar_f32(encode_scale if self.given == "encode_scale"
                                    else decode_scale, self.per)
            self.inputs.append(given_arr)
        if self.stochastic:
            self.inputs.append(np.asarray(0 if seed is None else seed,
                                          dtype=np.uint64).astype(np.int64))
        self.options = (block, rounding, hadamard, scale_rule, error_metric, e4m3_max,
                        swizzle, row_scaled)
        self.key = (shape, self.element, fmt, block, rounding, hadamard, scale_rule,
                    error_metric, e4m3_max, self.amax is not None, self.given, swizzle,
                    row_scaled)

    def build(self, names="%q, %s, %d", source="%x", prefix=""):
        """(args after x, result types, the op's line) with results `names`
        (two for MXFP4), quantizing `source`; its own arguments are named
        with `prefix`."""
        block, rounding, hadamard, scale_rule, error_metric, e4m3_max, swizzle, _ = self.options
        rows, k = self.shape[-2:]
        per_t = _tensor(self.per, "f32")
        args, operands = [], source
        if self.amax is not None:
            args.append((f"{prefix}amax", per_t))
            operands += f" amax %{prefix}amax : {per_t}"
        if self.given is not None:
            args.append((f"{prefix}scale", per_t))
            operands += f" {self.given} %{prefix}scale : {per_t}"
        if self.stochastic:
            args.append((f"{prefix}seed", "i64"))
            operands += f" seed %{prefix}seed"
        attrs = []
        if block is not None:
            attrs.append(f"block = array<i64: {block[0]}, {block[1]}>")
        if self.stochastic:
            attrs.append("rounding = #nvfp4.rounding<stochastic>")
        if hadamard:
            attrs.append("hadamard")
        if scale_rule:
            attrs.append(f"scale_rule = #nvfp4.scale_rule<{scale_rule}>")
        if error_metric:
            attrs.append(f"error_metric = #nvfp4.error_metric<{error_metric}>")
        if e4m3_max is not None:
            attrs.append(f"e4m3_max = {int(e4m3_max)}")
        cols = k // block_width(self.fmt)
        scale_elt = _scale_element(self.fmt)
        if swizzle:
            scale_t = _tensor(swizzled_shape(self.batch, rows, cols), scale_elt, _SWZ)
        else:
            scale_t = _tensor(self.batch + (rows, cols), scale_elt)
        results = [_tensor(self.shape, "f4E2M1FN"), scale_t]
        if self.nv:
            results.append(per_t)
        else:
            names = ", ".join(names.split(", ")[:2])
        attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
        line = (f"  {names} = nvfp4.quantize {self.fmt} {operands}{attr_text} : "
                f"{_tensor(self.shape, self.element)} -> {', '.join(results)}")
        return args, results, line


def quantize(x, fmt="nvfp4", *, block=None, rounding="nearest_even", seed=None,
             hadamard=False, scale_rule=None, error_metric=None, e4m3_max=None,
             amax=None, swizzle=True, row_scaled=False, encode_scale=None,
             decode_scale=None, **run_options):
    """nvfp4.quantize of x ([R, K] or [B, R, K]).

    Returns (q, scales, s_dec) for NVFP4, (q, scales) for MXFP4. With
    `row_scaled` (NVFP4, 1x16 blocks) every row has its own amax and decode
    scale: s_dec (and `amax`, if given) are [R] or [B, R].

    `encode_scale` (compressed-tensors' input_global_scale, S_enc) or
    `decode_scale` (ModelOpt's input_scale, S_dec): a calibrated NVFP4
    global scale, used exactly as given instead of one derived from the
    amax (no amax is computed): a Python float (rounded to fp32), a numpy
    float32 scalar or array of the decode scale's shape ([] or [B]), or a
    torch tensor on x's device. The returned s_dec is d itself, or
    fp32(1 / e). Not with amax, four_over_six, row_scaled or mxfp4.
    """
    x = _host(x)
    op = _QuantizeOp(x, fmt, block=block, rounding=rounding, seed=seed, hadamard=hadamard,
                     scale_rule=scale_rule, error_metric=error_metric, e4m3_max=e4m3_max,
                     amax=amax, swizzle=swizzle, row_scaled=row_scaled,
                     encode_scale=encode_scale, decode_scale=decode_scale)

    def build():
        args, results, line = op.build()
        names = "%q, %s, %d" if op.nv else "%q, %s"
        body = f"{line}\n  return {names} : {', '.join(results)}"
        return [("x", _tensor(op.shape, op.element))] + args, results, body

    return _call(("quantize",) + op.key, build, [x] + op.inputs, run_options, tuple)


_LINEAR_OPTIONS = ("block", "rounding", "seed", "hadamard", "scale_rule", "error_metric",
                   "e4m3_max", "amax", "encode_scale", "decode_scale")


def _epilogue(swiglu, intermediate_dtype, out_dtype):
    """linear()'s `swiglu=` (None, True or a dict of nvfp4.swiglu's
    parameters): None or (params, attribute text, the matmul's output type)."""
    if swiglu is None or swiglu is False:
        return None
    options = {} if swiglu is True else swiglu
    if not isinstance(options, dict) or not set(options) <= {"sigmoid_scale", "limit",
                                                             "up_offset"}:
        raise ValueError("swiglu: expected True or a dict of sigmoid_scale, limit, up_offset, "
                         f"got {swiglu!r}")
    if intermediate_dtype not in ("f32", "f16", "bf16"):
        raise ValueError("intermediate_dtype must be 'f32', 'f16' or 'bf16', got "
                         f"{intermediate_dtype!r}")
    params, attr = _swiglu_params(**options)
    return params, attr, intermediate_dtype


def _output_quantize(options, shape, element, kind):
    """linear()'s `output_quantize=` (None or a dict of the result's
    quantize options, a given encode_scale or decode_scale among them):
    None or its _QuantizeOp."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise TypeError(f"{kind}: output_quantize must be a dict of quantize options, got "
                        f"{type(options).__name__}")
    unknown = set(options) - {"encode_scale", "decode_scale", "swizzle", "block"}
    if unknown:
        raise TypeError(f"{kind}: output_quantize: unexpected {sorted(unknown)} (it takes "
                        "encode_scale or decode_scale, swizzle, block='1x16')")
    if (options.get("encode_scale") is None) == (options.get("decode_scale") is None):
        raise ValueError(f"{kind}: output_quantize needs one given scale, encode_scale or "
                         "decode_scale (a computed amax needs the whole result first: "
                         "quantize() it)")
    if _block(options.get("block")) not in (None, (1, 16)):
        raise ValueError(f"{kind}: output_quantize quantizes 1x16 blocks")
    return _QuantizeOp(_Result(shape, element), "nvfp4", **options)


def _linear(kind, x, w_q, w_s, w_decode, group_offsets, fmt, out_dtype, input_options,
            weight_only, run_options, swiglu=None, intermediate_dtype="f32", bias=None,
            output_quantize=None):
    """The program of linear() / grouped_linear(): the activations'
    nvfp4.quantize feeding the block-scaled matmul, and the nvfp4.swiglu of
    its output when asked, one program; or, weight only, the matmul on the
    bf16/f16 activations themselves."""
    epilogue = _epilogue(swiglu, intermediate_dtype, out_dtype)
    if weight_only and epilogue:
        raise ValueError(f"{kind}(weight_only=True) takes no swiglu= (the activation runs "
                         "only after a quantized-activation matmul so far)")
    if weight_only and output_quantize is not None:
        raise ValueError(f"{kind}(weight_only=True) takes no output_quantize= (it runs "
                         "after a quantized-activation matmul so far)")
    if weight_only:
        if input_options:
            raise ValueError(f"{kind}(weight_only=True) quantizes no activations: "
                             "input_options do not apply")
        return _weight_only_linear(kind, x, w_q, w_s, w_decode, group_offsets, fmt,
                                   out_dtype, run_options, bias)
    x = _host(x)
    options = dict(input_options or {})
    unknown = set(options) - set(_LINEAR_OPTIONS)
    if unknown:
        raise TypeError(f"input_options: unexpected {sorted(unknown)} (the activations' "
                        f"quantize takes {', '.join(_LINEAR_OPTIONS)})")
    if len(_shape(x)) != 2:
        raise ValueError(f"{kind} expects activations [M, K], got shape {_shape(x)}")
    q = _QuantizeOp(x, fmt, **options)
    w_q, w_s = _values(w_q), _scales(w_s)
    nv = fmt == "nvfp4"
    if not nv and w_decode is not None:
        raise ValueError("mxfp4 has no decode scales: pass w_decode=None")
    out_dtype = out_dtype or q.element
    inputs = [x] + q.inputs + [w_q, w_s]
    groups = _shape(w_q)[0] if kind == "grouped_linear" else None
    wd = _scalar_f32(w_decode, (groups,) if groups else ())
    if wd is not None:
        inputs.append(wd)
    if kind == "grouped_linear":
        if group_offsets is None:
            raise ValueError("grouped_linear needs group_offsets [E + 1] (int32)")
        inputs.append(group_offsets)
    n = _shape(w_q)[-2]
    if epilogue and n % 2:
        raise ValueError(f"{kind}: swiglu= needs an even number of weight rows (interleaved "
                         f"gate and up rows), got N = {n}")
    bias, bias_type = _bias(bias, tuple(_shape(w_q)[:-1]), kind)
    if bias is not None:
        inputs.append(bias)
    oq = _output_quantize(output_quantize, (q.shape[0], n // 2 if epilogue else n),
                          out_dtype, kind)
    if oq is not None:
        if not nv:
            raise ValueError(f"{kind}: output_quantize follows an nvfp4 matmul")
        inputs += oq.inputs
    key = (kind, q.key, _sig(w_q), _sig(w_s), None if wd is None else _sig(wd), fmt,
           out_dtype, epilogue, bias_type, None if oq is None else oq.key)

    def build():
        qargs, qresults, line = q.build()
        m, k = q.shape
        lines = [line]
        tw, vw, sww = _scale_operand("ws", w_s, fmt, 1 if groups else 0, lines, w_q,
                                     "weight scales")
        args = [("x", _tensor(q.shape, q.element))] + qargs + [("w", _fp4_type(w_q)),
                                                               ("ws", tw)]
        result = _tensor((m, n), epilogue[2] if epilogue else out_dtype)
        if wd is not None:
            args.append(("wd", _tensor(_shape(wd), "f32")))
        bias_clause = ""
        if bias is not None:
            bias_clause = f" bias(%bias : {bias_type})"
        if groups is None:
            clause = f" a_decode_scale(%d : {qresults[2]})" if nv else ""
            if wd is not None:
                clause += f" b_decode_scale(%wd : {args[-1][1]})"
            clause += bias_clause
            if bias is not None:
                args.append(("bias", bias_type))
            lines.append(f"  %y = nvfp4.matmul %q, %s, %w, {vw}{clause} : {qresults[0]}, "
                         f"{qresults[1]}, {_fp4_type(w_q)}, {sww} -> {result}")
        else:
            args.append(("off", _tensor((groups + 1,), "i32")))
            clause = f" a_decode_scale(%d : {qresults[2]})" if nv else ""
            if wd is not None:
                clause += f" b_decode_scale(%wd : {_tensor(_shape(wd), 'f32')})"
            clause += bias_clause
            if bias is not None:
                args.append(("bias", bias_type))
            lines.append(f"  %y = nvfp4.grouped_matmul contiguous a(%q : {qresults[0]}) "
                         f"a_scales(%s : {qresults[1]}) b(%w : {_fp4_type(w_q)}) "
                         f"b_scales({vw} : {sww}) group_offsets(%off : "
                         f"{_tensor((groups + 1,), 'i32')}){clause} -> {result}")
        value, value_type = "%y", result
        if epilogue:
            # The activation of the matmul's gate/up column pairs.
            value, value_type = "%h", _tensor((m, n // 2), out_dtype)
            lines.append(f"  %h = nvfp4.swiglu %y{epilogue[1]} : {result} -> {value_type}")
        if oq is not None:
            # The quantize of the result (a given scale): the next layer's
            # FP4 activations.
            oargs, oresults, oline = oq.build("%oq, %os, %od", value, "out_")
            args += oargs
            lines.append(oline)
            lines.append(f"  return %oq, %os, %od : {', '.join(oresults)}")
            return args, oresults, "\n".join(lines)
        lines.append(f"  return {value} : {value_type}")
        return args, [value_type], "\n".join(lines)

    return _call(key, build, inputs, run_options,
                 (lambda o: o[0]) if oq is None else tuple)


def _weight_only_linear(kind, x, w_q, w_s, w_decode, group_offsets, fmt, out_dtype,
                       run_options, bias=None):
    x, element = _activation(x, kind)
    if len(_shape(x)) != 2:
        raise ValueError(f"{kind} expects activations [M, K], got shape {_shape(x)}")
    if fmt != "nvfp4" and w_decode is not None:
        raise ValueError("mxfp4 has no decode scales: pass w_decode=None")
    out_dtype = out_dtype or element
    if kind == "linear":
        return matmul(x, None, w_q, w_s, fmt=fmt, b_decode=w_decode, out_dtype=out_dtype,
                      bias=bias, **run_options)
    if group_offsets is None:
        raise ValueError("grouped_linear needs group_offsets [E + 1] (int32)")
    return grouped_matmul("contiguous", x, None, w_q, w_s, fmt=fmt,
                          group_offsets=group_offsets, b_decode=w_decode,
                          out_dtype=out_dtype, bias=bias, **run_options)


def linear(x, w_q, w_s, w_decode=None, *, fmt="nvfp4", out_dtype=None, input_options=None,
           weight_only=False, swiglu=None, intermediate_dtype="f32", bias=None,
           output_quantize=None, **run_options):
    """y = x W^T for high-precision activations x [M, K] (bf16, f16, f32)
    and FP4 weights (w_q [N, K/2], w_s their scales, swizzled or row-major,
    w_decode their decode scale): one program in which the activations'
    nvfp4.quantize (`input_options`: quantize's options, e.g. decode_scale=
    for a calibrated activation scale) feeds the nvfp4.matmul. The sm_90a
    pipeline groups the two (nvfp4-fuse-quantize-matmul); with the pipeline
    option tokens=in-kernel the GEMM quantizes its tokens itself, by default
    the quantize kernel runs first. Other targets run them in turn.
    out_dtype: x's type by default. weight_only=True: W4A16, the matmul takes
    bf16/f16 x as it is (no activation quantization).

    swiglu=True (or a dict of nvfp4.swiglu's sigmoid_scale, limit,
    up_offset; gpt-oss: 1.702, 7.0, 1.0): the weight rows interleave gate
    and up rows, and the result is the activation [M, N/2] of the matmul's
    output, which is rounded to intermediate_dtype (default f32) first. The
    sm_90a pipeline computes it in the GEMM's epilogue
    (nvfp4-fuse-matmul-epilogue): the [M, N] product is never written.
    bias: [N] (bf16, f16, f32), added in the matmul's epilogue (before the
    activation).
    output_quantize: a dict with a calibrated encode_scale or decode_scale
    (as quantize() takes them; swizzle=False for row-major scales): the
    result, rounded to out_dtype, is quantized to NVFP4 in the same program
    and (q, scales, s_dec) returned, bit for bit what quantize() of the
    result gives; the sm_90a GEMM writes them from its epilogue (the
    result itself is never stored)."""
    return _linear("linear", x, w_q, w_s, w_decode, None, fmt, out_dtype, input_options,
                   weight_only, run_options, swiglu, intermediate_dtype, bias,
                   output_quantize)


def grouped_linear(x, w_q, w_s, w_decode, group_offsets, *, fmt="nvfp4", out_dtype=None,
                   input_options=None, weight_only=False, swiglu=None, intermediate_dtype="f32",
                   bias=None, output_quantize=None, **run_options):
    """The experts of an MoE layer as one program: tokens x [S, K] sorted by
    expert, quantized together (one decode scale; `input_options` as for
    linear), then the contiguous grouped matmul with the experts' FP4
    weights w_q [E, N, K/2], w_s, w_decode [E]; group_offsets [E + 1] int32.
    Returns [S, N]. weight_only=True: W4A16 (x bf16/f16, not quantized).
    swiglu=, intermediate_dtype=: as for linear (the experts' gate_up
    projection and its activation: [S, N/2]). bias: [E, N], expert e's row
    added to its tokens' outputs. output_quantize: as for linear (the
    down projection's FP4 activations, from gate_up's epilogue)."""
    return _linear("grouped_linear", x, w_q, w_s, w_decode, group_offsets, fmt, out_dtype,
                   input_options, weight_only, run_options, swiglu, intermediate_dtype, bias,
                   output_quantize)


def dequantize(q, scales, s_dec=None, *, fmt="nvfp4", out_dtype="f32", **run_options):
    """nvfp4.dequantize: values (packed), scales (either layout) -> float
    (out_dtype 'f32', 'f16' or 'bf16'). `out` is the output array."""
    q, scales = _host(q), _host(scales)
    batch = _shape(q)[:-2]
    inputs = [q, scales]
    d = _scalar_f32(s_dec, batch)
    if d is not None:
        inputs.append(d)
    key = ("dequantize", _sig(q), _sig(scales), fmt, d is not None and _sig(d), out_dtype)

    def build():
        args = [("q", _fp4_type(q)), ("s", _scale_type(scales, fmt, len(batch)))]
        decode = ""
        if d is not None:
            args.append(("d", _tensor(_shape(d), "f32")))
            decode = f" decode_scale %d : {args[-1][1]}"
        shape = _shape(q)
        result = _tensor(shape[:-1] + (shape[-1] * 2,), out_dtype)
        body = (f"  %r = nvfp4.dequantize %q, %s{decode} : {args[0][1]}, {args[1][1]} "
                f"-> {result}\n  return %r : {result}")
        return args, [result], body

    return _call(key, build, inputs, run_options, lambda o: o[0])


def _swiglu_params(sigmoid_scale=1.0, limit=None, up_offset=0.0):
    """nvfp4.swiglu's parameters as f32 values, checked, and their attribute
    text (empty for the defaults)."""
    params = (float(np.float32(sigmoid_scale)), None if limit is None else float(np.float32(limit)),
              float(np.float32(up_offset)))
    if not all(np.isfinite(p) for p in params if p is not None) or (
            params[1] is not None and params[1] <= 0):
        raise ValueError(f"swiglu: expected finite parameters and a positive limit, got "
                         f"sigmoid_scale={sigmoid_scale}, limit={limit}, up_offset={up_offset}")
    attrs = [f"sigmoid_scale = {params[0]!r} : f32"] if params[0] != 1.0 else []
    if params[1] is not None:
        attrs.append(f"limit = {params[1]!r} : f32")
    if params[2] != 0.0:
        attrs.append(f"up_offset = {params[2]!r} : f32")
    return params, f" {{{', '.join(attrs)}}}" if attrs else ""


def swiglu(x, *, sigmoid_scale=1.0, limit=None, up_offset=0.0, out_dtype=None,
           **run_options):
    """nvfp4.swiglu: [..., 2N] gate/up values interleaved (gate in the even
    columns; f32, f16 or bf16) -> [..., N] (out_dtype, default the input's
    type). `limit` clamps (gpt-oss: sigmoid_scale=1.702, limit=7.0,
    up_offset=1.0)."""
    x = _host(x)
    element = element_type_of(x)
    out_dtype = out_dtype or element
    shape = _shape(x)
    if not shape or shape[-1] % 2:
        raise ValueError(f"swiglu: expected [..., 2N] (an even last dimension), got {shape}")
    if out_dtype not in ("f32", "f16", "bf16"):
        raise ValueError(f"swiglu: out_dtype must be 'f32', 'f16' or 'bf16', got {out_dtype!r}")
    params, attr = _swiglu_params(sigmoid_scale, limit, up_offset)

    def build():
        src = _tensor(shape, element)
        dst = _tensor(shape[:-1] + (shape[-1] // 2,), out_dtype)
        body = f"  %r = nvfp4.swiglu %x{attr} : {src} -> {dst}\n  return %r : {dst}"
        return [("x", src)], [dst], body

    return _call(("swiglu", _sig(x), params, out_dtype), build, [x], run_options,
                 lambda o: o[0])


def _row_vector_bytes(width, *elements):
    """The bytes the GPU routing kernels read or write at once along a row
    of `width` elements (MoE.cpp's rowVectorWidth: the widest of 8, 4, 2, 1
    elements that divides the row, at most 16 bytes; the narrowest over
    `elements`), so the alignment a CUDA tensor used in place needs."""
    sizes = {"f32": 4, "f16": 2, "bf16": 2}
    widths = [next(v for v in (8, 4, 2, 1) if width % v == 0 and v * sizes[e] <= 16)
              for e in elements]
    return [min(widths) * sizes[e] for e in elements]


def _check_rows_aligned(what, arrays, alignments):
    """CUDA tensors used in place must start at the vector alignment the
    kernels read them with (a view at an odd offset: pass a clone)."""
    for name, a, align in zip(what, arrays, alignments):
        if a is not None and is_torch(a) and a.is_cuda and a.data_ptr() % align:
            raise ValueError(f"{name}: a CUDA tensor must start at a multiple of {align} "
                             f"bytes here (a view at an offset: pass a clone)")


def moe_route(ids, num_experts, **run_options):
    """nvfp4.moe_route: a router's top-k expert indices [T, K] (int32) ->
    (sorted_pairs [T*K], pair_rows [T, K], group_offsets [E + 1]), int32:
    the pairs t*K+s sorted stably by expert (an index outside [0, E) is a
    dropped pair, sorted with expert E-1, its pair_rows entry -1)."""
    ids = _table(ids, "ids")
    shape = _shape(ids)
    if len(shape) != 2 or 0 in shape:
        raise ValueError(f"moe_route: expected ids [T, K] with no zero dimension, got {shape}")
    if (not isinstance(num_experts, (int, np.integer)) or isinstance(num_experts, bool)
            or not 1 <= num_experts < 2 ** 31 - 1):
        raise ValueError(f"moe_route: num_experts must be an integer in [1, 2^31 - 2], got "
                         f"{num_experts!r}")
    num_experts = int(num_experts)

    def build():
        results = [_tensor((shape[0] * shape[1],), "i32"), _tensor(shape, "i32"),
                   _tensor((num_experts + 1,), "i32")]
        body = (f"  %p, %r, %o = nvfp4.moe_route %ids : {_tensor(shape, 'i32')} -> "
                f"{', '.join(results)}\n  return %p, %r, %o : {', '.join(results)}")
        return [("ids", _tensor(shape, "i32"))], results, body

    return _call(("moe_route", _sig(ids), num_experts), build, [ids], run_options, tuple)


def moe_dispatch(x, sorted_pairs, **run_options):
    """nvfp4.moe_dispatch: the token rows [T, H] (f32, f16, bf16) of the
    pairs in moe_route's order -> [T*K, H], row r = x[sorted_pairs[r] // K]
    (zeros for a pair index outside [0, T*K))."""
    x = _host(x)
    element = element_type_of(x)
    sorted_pairs = _table(sorted_pairs, "sorted_pairs")
    shape, pairs = _shape(x), _shape(sorted_pairs)
    if len(shape) != 2 or 0 in shape:
        raise ValueError(f"moe_dispatch: expected x [T, H] with no zero dimension, got {shape}")
    if len(pairs) != 1 or pairs[0] == 0 or pairs[0] % shape[0]:
        raise ValueError(f"moe_dispatch: expected sorted_pairs [T * K] for T = {shape[0]}, "
                         f"got {pairs}")
    out = run_options.get("out")
    (align,) = _row_vector_bytes(shape[1], element)
    _check_rows_aligned(("moe_dispatch: x", "moe_dispatch: out"), (x, out), (align, align))

    def build():
        src, table = _tensor(shape, element), _tensor(pairs, "i32")
        dst = _tensor((pairs[0], shape[1]), element)
        body = (f"  %r = nvfp4.moe_dispatch %x, %p : {src}, {table} -> {dst}\n"
                f"  return %r : {dst}")
        return [("x", src), ("p", table)], [dst], body

    return _call(("moe_dispatch", _sig(x), _sig(sorted_pairs)), build, [x, sorted_pairs],
                 run_options, lambda o: o[0])


def moe_combine(y, pair_rows, weights, *, out_dtype=None, product_dtype=None,
                **run_options):
    """nvfp4.moe_combine: the experts' rows y [S, H] in moe_route's order,
    pair_rows [T, K] (int32) and the router's weights [T, K] (f32, f16,
    bf16) -> [T, H] (out_dtype, default y's type): per token the fp32 sum,
    in slot order, of weight * row over the pairs kept (a row in [0, S) and
    a nonzero weight), rounded once. product_dtype ('bf16', 'f16', 'f32'):
    each product rounded to it first (torch's y * w of bf16 rows and
    weights: 'bf16')."""
    y, weights = _host(y), _host(weights)
    element, w_element = element_type_of(y), element_type_of(weights)
    out_dtype = out_dtype or element
    pair_rows = _table(pair_rows, "pair_rows")
    shape, rows, wshape = _shape(y), _shape(pair_rows), _shape(weights)
    if len(shape) != 2 or 0 in shape:
        raise ValueError(f"moe_combine: expected y [S, H] with no zero dimension, got {shape}")
    if len(rows) != 2 or 0 in rows or wshape != rows:
        raise ValueError(f"moe_combine: expected pair_rows and weights of one shape [T, K], "
                         f"got {rows} and {wshape}")
    for what, dtype in (("out_dtype", out_dtype), ("product_dtype", product_dtype)):
        if dtype not in ("f32", "f16", "bf16") and (what == "out_dtype" or dtype is not None):
            raise ValueError(f"moe_combine: {what} must be 'f32', 'f16' or 'bf16', got "
                             f"{dtype!r}")
    attr = f" {{product_type = {product_dtype}}}" if product_dtype else ""
    _check_rows_aligned(("moe_combine: y", "moe_combine: out"), (y, run_options.get("out")),
                        _row_vector_bytes(shape[1], element, out_dtype))

    def build():
        src, table = _tensor(shape, element), _tensor(rows, "i32")
        wt, dst = _tensor(rows, w_element), _tensor((rows[0], shape[1]), out_dtype)
        body = (f"  %r = nvfp4.moe_combine %y, %p, %w{attr} : {src}, {table}, {wt} -> {dst}\n"
                f"  return %r : {dst}")
        return [("y", src), ("p", table), ("w", wt)], [dst], body

    return _call(("moe_combine", _sig(y), _sig(pair_rows), _sig(weights), out_dtype,
                  product_dtype), build, [y, pair_rows, weights], run_options, lambda o: o[0])


def swizzle_scales(s, fmt="nvfp4", **run_options):
    """nvfp4.swizzle_scales of row-major scales [..., R, C]."""
    s = _host(s)
    element = _scale_element(fmt)

    def build():
        shape = _shape(s)
        rows, cols = shape[-2:]
        src = _tensor(shape, element)
        dst = _tensor(swizzled_shape(shape[:-2], rows, cols), element, _SWZ)
        body = f"  %r = nvfp4.swizzle_scales %s : {src} -> {dst}\n  return %r : {dst}"
        return [("s", src)], [dst], body

    return _call(("swizzle", _sig(s), fmt), build, [s], run_options, lambda o: o[0])


def unswizzle_scales(sw, rows, cols, fmt="nvfp4", **run_options):
    """nvfp4.unswizzle_scales back to row-major [..., rows, cols]."""
    sw = _host(sw)
    element = _scale_element(fmt)

    def build():
        shape = _shape(sw)
        src = _tensor(shape, element, _SWZ)
        dst = _tensor(shape[:-5] + (rows, cols), element)
        body = f"  %r = nvfp4.unswizzle_scales %s : {src} -> {dst}\n  return %r : {dst}"
        return [("s", src)], [dst], body

    return _call(("unswizzle", _sig(sw), rows, cols, fmt), build, [sw], run_options,
                 lambda o: o[0])


def _scale_operand(name, s, fmt, batch_rank, lines, values=None, what=None):
    """The argument type of scales `s` and the value the matmul takes: a
    swizzle_scales of it when it is row-major (the kernels need the 128x4
    layout). Row-major scales must be exactly [..., rows, K / block] of
    their packed `values` [..., rows, K / 2]: the swizzled layout pads to
    128 x 4 tiles, so fewer rows or more columns would pass the verifier
    and read padding as scales."""
    t = _scale_type(s, fmt, batch_rank)
    if len(s.shape) == batch_rank + 5:
        return t, f"%{name}", t
    shape = _shape(s)
    if values is not None:
        vshape = _shape(values)
        want = vshape[:-1] + (vshape[-1] * 2 // block_width(fmt),)
        if shape != want:
            raise ValueError(f"{what or name}: row-major scales of shape {list(shape)} for "
                             f"values of shape {list(vshape)} (K = {vshape[-1] * 2}); "
                             f"expected {list(want)}")
    rows, cols = shape[-2:]
    swz = _tensor(swizzled_shape(shape[:-2], rows, cols), _scale_element(fmt), _SWZ)
    lines.append(f"  %{name}_swz = nvfp4.swizzle_scales %{name} : {t} -> {swz}")
    return t, f"%{name}_swz", swz


def matmul(a_q, a_s, b_q, b_s, *, fmt="nvfp4", a_decode=None, b_decode=None,
           alpha=None, acc=None, beta=None, bias=None, out_dtype="bf16", **run_options):
    """nvfp4.matmul: C[M, N] = alpha_eff * A * B^T (+ bias) (+ beta * acc).

    bias: [N] (bf16, f16 or f32), added in the epilogue (docs/spec.md 2.7).

    a_s, b_s: scales, swizzled or row-major (swizzled inside the call);
    a_decode/b_decode: the NVFP4 decode scales. `out` is the output array.
    a_s=None: weight-only quantization (W4A16): a_q is bf16/f16 activations
    [M, K], taken as they are (no a_decode).
    """
    weight_only = a_s is None
    _check_beta(acc, beta)
    if weight_only:
        if a_decode is not None:
            raise ValueError("weight-only matmul (a_s=None): bf16/f16 activations have no "
                             "a_decode")
        a_q, a_element = _activation(a_q, "matmul")
    else:
        a_q, a_s = _values(a_q), _scales(a_s)
    b_q, b_s = _values(b_q), _scales(b_s)
    inputs = [a_q, b_q, b_s] if weight_only else [a_q, a_s, b_q, b_s]
    extras = []
    for name, value, kw in (("da", a_decode, "a_decode_scale"),
                            ("db", b_decode, "b_decode_scale"), ("al", alpha, "alpha")):
        arr = _scalar_f32(value, ())
        if arr is not None:
            inputs.append(arr)
            extras.append((name, kw, arr))
    bias, bias_type = _bias(bias, (_shape(b_q)[0],), "matmul")
    if bias is not None:
        inputs.append(bias)
    if acc is not None:
        acc = _host(acc)
        inputs.append(acc)
    key = ("matmul", _sig(a_q), a_s is not None and _sig(a_s), _sig(b_q), _sig(b_s), fmt,
           tuple((n, _sig(a)) for n, _, a in extras), acc is not None, beta, out_dtype,
           bias_type)

    def build():
        m, n = _shape(a_q)[0], _shape(b_q)[0]
        lines = []
        tb, vb, swb = _scale_operand("sb", b_s, fmt, 0, lines, b_q, "b_s")
        if weight_only:
            args = [("a", _tensor(_shape(a_q), a_element))]
            a_operands, a_types = "%a", args[0][1]
        else:
            ta, va, swa = _scale_operand("sa", a_s, fmt, 0, lines, a_q, "a_s")
            args = [("a", _fp4_type(a_q)), ("sa", ta)]
            a_operands, a_types = f"%a, {va}", f"{args[0][1]}, {swa}"
        args += [("b", _fp4_type(b_q)), ("sb", tb)]
        clause = ""
        for name, kw, arr in extras:
            t = _tensor(_shape(arr), "f32")
            args.append((name, t))
            clause += f" {kw}(%{name} : {t})"
        result = _tensor((m, n), out_dtype)
        attrs = ""
        if bias is not None:
            args.append(("bias", bias_type))
            clause += f" bias(%bias : {bias_type})"
        if acc is not None:
            args.append(("c", result))
            clause += f" acc(%c : {result})"
            if beta is not None:
                attrs = f" {{beta = {float(beta)!r} : f32}}"
        lines.append(f"  %r = nvfp4.matmul {a_operands}, %b, {vb}{clause}{attrs} : "
                     f"{a_types}, {_fp4_type(b_q)}, {swb} -> {result}")
        lines.append(f"  return %r : {result}")
        return args, [result], "\n".join(lines)

    return _call(key, build, inputs, run_options, lambda o: o[0])


def grouped_matmul(mode, a, a_scales, b, b_scales, *, fmt="nvfp4",
                   group_offsets=None, masked_m=None, a_decode=None,
                   b_decode=None, alpha=None, acc=None, beta=None, bias=None,
                   out_dtype="bf16", **run_options):
    """nvfp4.grouped_matmul in `mode` independent | contiguous | masked.
    bias (contiguous, masked): [G, N], row g added to group g's outputs.

    independent: a, a_scales, b, b_scales (and acc, out) are lists, one per
    group, as GPU-mode passes them ([M, K/2, 1] values, [M, K/16, 1] or
    pre-tiled scales accepted); returns a list of C_g. contiguous: a [S, K],
    b [G, N, K], group_offsets [G+1]; returns C [S, N]. masked: a [G, maxM,
    K], b [G, N, K], masked_m [G]; returns C [G, maxM, N]. Scales swizzled
    or row-major (swizzled inside the call). a_decode/b_decode: scalar or
    [G]; alpha: [G]. group_offsets must start at 0, never decrease and end
    at S; 0 <= masked_m[g] <= maxM (docs/spec.md section 3): they are
    checked (check_tables=False skips it; CUDA tables are otherwise read
    back, which waits for the stream) and RunnerError says which rule fails.
    a_scales=None: weight-only quantization (W4A16), `a` is bf16/f16
    activations ([M_g, K] / [S, K] / [G, maxM, K]), no a_decode.
    """
    weight_only = a_scales is None
    _check_beta(acc, beta)
    if weight_only and a_decode is not None:
        raise ValueError("weight-only grouped matmul (a_scales=None): bf16/f16 activations "
                         "have no a_decode")
    if mode not in ("independent", "contiguous", "masked"):
        raise ValueError("mode must be independent, contiguous or masked")
    independent = mode == "independent"
    if independent:
        groups = [a, b, b_scales] + ([] if weight_only else [a_scales])
        if len({len(x) for x in groups}) != 1:
            raise ValueError("independent mode takes one a, a_scales, b, b_scales per group")
        if weight_only:
            A, SA = [_activation(x, "grouped_matmul")[0] for x in a], []
        else:
            A, SA = list(map(_values, a)), list(map(_scales, a_scales))
        B, SB = list(map(_values, b)), list(map(_scales, b_scales))
    else:
        A = [_activation(a, "grouped_matmul")[0] if weight_only else _host(a)]
        SA = [] if weight_only else [_host(a_scales)]
        B, SB = [_host(b)], [_host(b_scales)]
    a_element = element_type_of(A[0]) if weight_only else None
    if weight_only and any(element_type_of(x) != a_element for x in A):
        raise TypeError("grouped_matmul: all groups' activations must have one dtype")
    inputs = A + SA + B + SB
    operand_count = len(inputs)
    for name, value, wanted in (("group_offsets", group_offsets, "contiguous"),
                                ("masked_m", masked_m, "masked")):
        if (value is not None) != (mode == wanted):
            raise ValueError(f"{mode} mode {'takes no' if value is not None else 'needs'} "
                             f"{name}")
    table = None
    if mode == "contiguous":
        table = _table(group_offsets, "group_offsets")
    elif mode == "masked":
        table = _table(masked_m, "masked_m")
    if table is not None:
        inputs.append(table)
    extras = []
    for name, value, kw in (("da", a_decode, "a_decode_scale"),
                            ("db", b_decode, "b_decode_scale"), ("al", alpha, "alpha")):
        if value is None:
            continue
        arr = _scalar_f32(value, np.shape(value))
        inputs.append(arr)
        extras.append((name, kw, arr))
    bias_type = None
    if bias is not None:
        if independent:
            raise ValueError("grouped_matmul: bias takes contiguous or masked mode ([G, N])")
        bias, bias_type = _bias(bias, tuple(_shape(B[0])[:2]), "grouped_matmul")
        inputs.append(bias)
    accs = None
    if acc is not None:
        accs = [_host(v) for v in (acc if independent else [acc])]
        inputs += accs
    # FP4 values and scales are bytes whatever their dtype (the runtime
    # checks it): their shapes are what the program depends on.
    key = ("grouped", mode, tuple([x.shape for x in inputs[:operand_count]]), a_element, fmt,
           table is not None and _sig(table), tuple((n, _sig(x)) for n, _, x in extras),
           accs is not None, beta, out_dtype, bias_type)

    def build():
        args, clauses, lines = [], [], []
        a_batch = 1 if mode == "masked" else 0

        def group(kw, arrays, typer):
            names, types = [], []
            for i, arr in enumerate(arrays):
                args.append((f"{kw}{i}", typer(arr)))
                names.append(f"%{kw}{i}")
                types.append(typer(arr))
            return names, types

        def scale_group(kw, arrays, batch_rank, values):
            names, types = [], []
            for i, arr in enumerate(arrays):
                what = f"{kw}[{i}]" if independent else kw
                t, value, swz = _scale_operand(f"{kw}{i}", arr, fmt, batch_rank, lines,
                                               values[i], what)
                args.append((f"{kw}{i}", t))
                names.append(value)
                types.append(swz)
            return names, types

        a_type = (lambda x: _tensor(_shape(x), a_element)) if weight_only else _fp4_type
        for kw, (names, types) in (
                ("a", group("a", A, a_type)),
                ("a_scales", scale_group("a_scales", SA, a_batch, A)),
                ("b", group("b", B, _fp4_type)),
                ("b_scales", scale_group("b_scales", SB, 0 if independent else 1, B))):
            if not names:
                continue
            clauses.append(f"{kw}({', '.join(names)} : {', '.join(types)})")
        if table is not None:
            t = _tensor(_shape(table), "i32")
            args.append(("tbl", t))
            kw = "group_offsets" if mode == "contiguous" else "masked_m"
            clauses.append(f"{kw}(%tbl : {t})")
        for name, kw, arr in extras:
            t = _tensor(_shape(arr), "f32")
            args.append((name, t))
            clauses.append(f"{kw}(%{name} : {t})")
        if independent:
            results = [_tensor((_shape(x)[0], _shape(y)[0]), out_dtype) for x, y in zip(A, B)]
        elif mode == "contiguous":
            results = [_tensor((_shape(A[0])[0], _shape(B[0])[1]), out_dtype)]
        else:
            results = [_tensor((_shape(B[0])[0], _shape(A[0])[1], _shape(B[0])[1]), out_dtype)]
        attrs = ""
        if bias is not None:
            args.append(("bias", bias_type))
            clauses.append(f"bias(%bias : {bias_type})")
        if accs is not None:
            names = []
            for i, t in enumerate(results):
                args.append((f"c{i}", t))
                names.append(f"%c{i}")
            clauses.append(f"acc({', '.join(names)} : {', '.join(results)})")
            if beta is not None:
                attrs = f" {{beta = {float(beta)!r} : f32}}"
        rnames = ", ".join(f"%r{i}" for i in range(len(results)))
        lines.append(f"  {rnames} = nvfp4.grouped_matmul {mode} {' '.join(clauses)}{attrs} "
                     f"-> {', '.join(results)}")
        lines.append(f"  return {rnames} : {', '.join(results)}")
        return args, results, "\n".join(lines)

    return _call(key, build, inputs, run_options,
                 (lambda o: o) if independent else (lambda o: o[0]))


# ---------------------------------------------------------------------------
# High-level calls (TransformerEngine / fouroversix style)
# ---------------------------------------------------------------------------

FP4Tensor = collections.namedtuple("FP4Tensor", "values scales decode_scale fmt")
FP4Tensor.__doc__ = """A quantized tensor: packed values, swizzled scales, the
decode scale (per tensor, or per row when quantized with row_scaled=True;
None for MXFP4) and the format."""


def quantize_to_fp4(x, fmt="nvfp4", **options) -> FP4Tensor:
    """Quantizes a high-precision tensor (quantize's options pass through:
    block, rounding, seed, hadamard, scale_rule, error_metric, e4m3_max,
    amax, encode_scale, decode_scale, swizzle, row_scaled, target,
    stream...). Returns an FP4Tensor."""
    res = quantize(x, fmt, **options)
    if options.get("benchmark"):
        raise ValueError("quantize_to_fp4 does not benchmark: use quantize")
    if fmt == "nvfp4":
        return FP4Tensor(res[0], res[1], res[2], fmt)
    return FP4Tensor(res[0], res[1], None, fmt)


def fp4_matmul(a, b, *, fmt="nvfp4", out_dtype="bf16", a_options=None,
               b_options=None, **options):
    """C = A @ B^T from high-precision A [M, K] and B [N, K]: both quantized
    (a_options / b_options pass quantize's options, e.g. b_options=
    {"block": "16x16"} for weights), then the block-scaled matmul with their
    decode scales. FP4Tensor operands are used as they are. `options`:
    target, stream, out."""
    run = {k: v for k, v in options.items() if k in ("target", "stream", "check_tables")}
    qa = a if isinstance(a, FP4Tensor) else quantize_to_fp4(a, fmt, **(a_options or {}), **run)
    qb = b if isinstance(b, FP4Tensor) else quantize_to_fp4(b, fmt, **(b_options or {}), **run)
    return matmul(qa.values, qa.scales, qb.values, qb.scales, fmt=fmt,
                  a_decode=qa.decode_scale, b_decode=qb.decode_scale,
                  out_dtype=out_dtype, **options)
