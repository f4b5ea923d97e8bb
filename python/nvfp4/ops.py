"""The Python API as torch operators: ``torch.ops.nvfp4.*``.

Importing this module registers each operation with ``torch.library`` (a
custom op with a fake implementation that gives its outputs' shapes and
dtypes without running it), so ``torch.compile`` traces through calls
(fullgraph, any backend: the op stays one node) and CUDA graphs (also
``torch.compile(mode="reduce-overhead")``) record them: on the GPU a call
launches on torch's current stream, allocates its outputs through torch and
synchronizes nothing::

    import torch, nvfp4.ops
    q, s, d = torch.ops.nvfp4.quantize(x)              # x: [R, K] bf16
    y = torch.ops.nvfp4.matmul(q, s, wq, ws, d, wd)    # bf16 [M, N]

The operators are functional (outputs are new tensors); nvfp4.compiler has
the same operations with ``out=``, numpy arrays and timing. Formats and
options are nvfp4.compiler's. MXFP4 has no decode scale: quantize returns 1
in its place (the op always has three outputs) and the matmuls take None.

Group tables on the GPU: ``check_tables=True`` reads them back (a
synchronization); while a CUDA graph is being recorded they are not read
(the values of a replay are not known then): check them before capture.
"""

from __future__ import annotations

from typing import Optional

import torch

from . import compiler
from .runtime import _TORCH_DTYPES, _torch_module

__all__ = ["quantize", "dequantize", "swizzle_scales", "matmul",
           "grouped_matmul_contiguous", "grouped_matmul_masked",
           "grouped_matmul_independent", "linear", "grouped_linear", "weight_only_linear",
           "weight_only_grouped_linear", "swiglu", "moe_route", "moe_dispatch", "moe_combine"]

_torch_module()  # the runtime reads torch tensors directly from here on

_OUT_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


#: Each op's Python implementation, by name: what the custom op runs.
_IMPLS: dict = {}


def _op(name: str):
    """Registers the decorated function as torch.ops.nvfp4.<name> (a
    torch.library custom op) and keeps the function for call()."""
    def register(fn):
        _IMPLS[name] = fn
        return torch.library.custom_op(f"nvfp4::{name}", mutates_args=())(fn)
    return register


def call(name: str, *args, **kwargs):
    """torch.ops.nvfp4.<name> while torch.compile traces (the op stays one
    graph node, shaped by its fake), else the op's implementation called
    directly: the same code and outputs without the custom op's Python
    dispatch, which cost 20-58 µs a call on the H200 machines' hosts
    (benchmarks/results/2026-11-29-h200-models-qwen3moe.md); the nvfp4.nn
    layers call their ops through this."""
    if torch.compiler.is_compiling():
        return getattr(torch.ops.nvfp4, name)(*args, **kwargs)
    return _IMPLS[name](*args, **kwargs)


def _out_dtype(name: str) -> torch.dtype:
    if name not in _OUT_DTYPES:
        raise ValueError(f"out_dtype must be 'bf16', 'f16' or 'f32', got {name!r}")
    return _OUT_DTYPES[name]


def _fp4_dtype():
    return _TORCH_DTYPES["f4E2M1FN"]


def _scale_dtype(fmt: str):
    return _TORCH_DTYPES[compiler._scale_element(fmt)]


def _decodes(fmt: str, *decodes):
    """MXFP4 has no decode scales: the matmuls reject them by name."""
    if fmt == "mxfp4" and any(d is not None for d in decodes):
        raise ValueError("mxfp4 has no decode scales (quantize returns 1 in their "
                         "place): pass a_decode=None, b_decode=None")


def _check_tables_now(check_tables: bool, table: torch.Tensor) -> bool:
    """Device tables cannot be read back while a CUDA graph is recorded."""
    return check_tables and not (table.is_cuda and torch.cuda.is_current_stream_capturing())


# ---------------------------------------------------------------------------
# quantize / dequantize / swizzle
# ---------------------------------------------------------------------------

@_op("quantize")
def quantize(x: torch.Tensor, fmt: str = "nvfp4", block: Optional[str] = None,
             rounding: str = "nearest_even", seed: int = 0, hadamard: bool = False,
             scale_rule: Optional[str] = None, error_metric: Optional[str] = None,
             e4m3_max: Optional[int] = None, amax: Optional[torch.Tensor] = None,
             swizzle: bool = True, row_scaled: bool = False,
             encode_scale: Optional[torch.Tensor] = None,
             decode_scale: Optional[torch.Tensor] = None
             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """nvfp4.quantize of x ([R, K] or [B, R, K], f32/f16/bf16): (values
    [.., R, K/2] float4_e2m1fn_x2, scales (swizzled unless swizzle=False),
    decode scale [B] or [] f32, or [B?, R] with row_scaled; 1 for MXFP4).
    encode_scale / decode_scale: a calibrated NVFP4 global scale ([] or [B]
    f32 on x's device), used as given instead of the amax (the decode scale
    returned is decode_scale itself, or fp32(1 / encode_scale))."""
    res = compiler.quantize(x, fmt, block=block, rounding=rounding,
                            seed=seed if rounding == "stochastic" else None,
                            hadamard=hadamard, scale_rule=scale_rule,
                            error_metric=error_metric, e4m3_max=e4m3_max, amax=amax,
                            swizzle=swizzle, row_scaled=row_scaled,
                            encode_scale=encode_scale, decode_scale=decode_scale)
    if fmt == "nvfp4":
        return tuple(res)
    q, s = res
    return q, s, torch.ones(x.shape[:-2], dtype=torch.float32, device=x.device)


@quantize.register_fake
def _(x, fmt="nvfp4", block=None, rounding="nearest_even", seed=0, hadamard=False,
      scale_rule=None, error_metric=None, e4m3_max=None, amax=None, swizzle=True,
      row_scaled=False, encode_scale=None, decode_scale=None):
    # The eager op's argument errors, raised while tracing too.
    compiler._check_given_scale(fmt, amax, encode_scale, decode_scale, scale_rule,
                                row_scaled)
    return _quantized_fake(x, tuple(x.shape[:-2]), *x.shape[-2:], fmt, swizzle, row_scaled)


def _quantized_fake(x, batch, rows, k, fmt="nvfp4", swizzle=True, row_scaled=False):
    """(values, scales, decode scale) of a quantize of [*batch, rows, k], as
    fakes on x's device."""
    cols = k // compiler.block_width(fmt)
    q = x.new_empty(batch + (rows, k // 2), dtype=_fp4_dtype())
    sshape = (compiler.swizzled_shape(batch, rows, cols) if swizzle
              else batch + (rows, cols))
    s = x.new_empty(sshape, dtype=_scale_dtype(fmt))
    decode = batch + ((rows,) if row_scaled else ())
    return q, s, x.new_empty(decode, dtype=torch.float32)


@_op("dequantize")
def dequantize(q: torch.Tensor, scales: torch.Tensor, s_dec: Optional[torch.Tensor] = None,
               fmt: str = "nvfp4", out_dtype: str = "f32") -> torch.Tensor:
    """nvfp4.dequantize: packed values and scales (either layout) -> float."""
    return compiler.dequantize(q, scales, s_dec, fmt=fmt, out_dtype=out_dtype)


@dequantize.register_fake
def _(q, scales, s_dec=None, fmt="nvfp4", out_dtype="f32"):
    return q.new_empty(tuple(q.shape[:-1]) + (q.shape[-1] * 2,), dtype=_out_dtype(out_dtype))


@_op("swizzle_scales")
def swizzle_scales(s: torch.Tensor, fmt: str = "nvfp4") -> torch.Tensor:
    """Row-major scales [.., R, C] -> the 128x4 layout [.., R/128, C/4, 32, 4, 4]."""
    return compiler.swizzle_scales(s, fmt)


@swizzle_scales.register_fake
def _(s, fmt="nvfp4"):
    return s.new_empty(compiler.swizzled_shape(s.shape[:-2], *s.shape[-2:]),
                       dtype=_scale_dtype(fmt))


# ---------------------------------------------------------------------------
# matmuls
# ---------------------------------------------------------------------------

@_op("matmul")
def matmul(a_q: torch.Tensor, a_s: torch.Tensor, b_q: torch.Tensor, b_s: torch.Tensor,
           a_decode: Optional[torch.Tensor] = None, b_decode: Optional[torch.Tensor] = None,
           alpha: Optional[torch.Tensor] = None, fmt: str = "nvfp4",
           out_dtype: str = "bf16", bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """C[M, N] = a_decode * b_decode * alpha * A @ B^T (+ bias [N]) of
    block-scaled A [M, K/2] and B [N, K/2] (scales swizzled or row-major)."""
    _decodes(fmt, a_decode, b_decode)
    return compiler.matmul(a_q, a_s, b_q, b_s, fmt=fmt, a_decode=a_decode,
                           b_decode=b_decode, alpha=alpha, out_dtype=out_dtype, bias=bias)


@matmul.register_fake
def _(a_q, a_s, b_q, b_s, a_decode=None, b_decode=None, alpha=None, fmt="nvfp4",
      out_dtype="bf16", bias=None):
    return a_q.new_empty((a_q.shape[0], b_q.shape[0]), dtype=_out_dtype(out_dtype))


@_op("grouped_matmul_contiguous")
def grouped_matmul_contiguous(a: torch.Tensor, a_scales: torch.Tensor, b: torch.Tensor,
                              b_scales: torch.Tensor, group_offsets: torch.Tensor,
                              a_decode: Optional[torch.Tensor] = None,
                              b_decode: Optional[torch.Tensor] = None,
                              alpha: Optional[torch.Tensor] = None, fmt: str = "nvfp4",
                              out_dtype: str = "bf16", check_tables: bool = True,
                              bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """MoE grouping: tokens a [S, K/2] sorted by expert, experts b [G, N,
    K/2], group_offsets [G+1] int32 -> C [S, N]. bias [G, N]: expert g's
    row added in the epilogue."""
    _decodes(fmt, a_decode, b_decode)
    return compiler.grouped_matmul(
        "contiguous", a, a_scales, b, b_scales, fmt=fmt, group_offsets=group_offsets,
        a_decode=a_decode, b_decode=b_decode, alpha=alpha, out_dtype=out_dtype, bias=bias,
        check_tables=_check_tables_now(check_tables, group_offsets))


@grouped_matmul_contiguous.register_fake
def _(a, a_scales, b, b_scales, group_offsets, a_decode=None, b_decode=None, alpha=None,
      fmt="nvfp4", out_dtype="bf16", check_tables=True, bias=None):
    return a.new_empty((a.shape[0], b.shape[1]), dtype=_out_dtype(out_dtype))


@_op("grouped_matmul_masked")
def grouped_matmul_masked(a: torch.Tensor, a_scales: torch.Tensor, b: torch.Tensor,
                          b_scales: torch.Tensor, masked_m: torch.Tensor,
                          a_decode: Optional[torch.Tensor] = None,
                          b_decode: Optional[torch.Tensor] = None,
                          alpha: Optional[torch.Tensor] = None, fmt: str = "nvfp4",
                          out_dtype: str = "bf16", check_tables: bool = True) -> torch.Tensor:
    """Masked grouping: a [G, maxM, K/2], b [G, N, K/2], masked_m [G] int32
    -> C [G, maxM, N]; rows at and past masked_m[g] are left unwritten."""
    _decodes(fmt, a_decode, b_decode)
    return compiler.grouped_matmul(
        "masked", a, a_scales, b, b_scales, fmt=fmt, masked_m=masked_m,
        a_decode=a_decode, b_decode=b_decode, alpha=alpha, out_dtype=out_dtype,
        check_tables=_check_tables_now(check_tables, masked_m))


@grouped_matmul_masked.register_fake
def _(a, a_scales, b, b_scales, masked_m, a_decode=None, b_decode=None, alpha=None,
      fmt="nvfp4", out_dtype="bf16", check_tables=True):
    return a.new_empty((b.shape[0], a.shape[1], b.shape[1]), dtype=_out_dtype(out_dtype))


@_op("grouped_matmul_independent")
def grouped_matmul_independent(a: list[torch.Tensor], a_scales: list[torch.Tensor],
                               b: list[torch.Tensor], b_scales: list[torch.Tensor],
                               a_decode: Optional[torch.Tensor] = None,
                               b_decode: Optional[torch.Tensor] = None,
                               alpha: Optional[torch.Tensor] = None, fmt: str = "nvfp4",
                               out_dtype: str = "bf16") -> list[torch.Tensor]:
    """Independent problems, one list entry per group (GPU-mode's [M, K/2,
    1] values and [M, K/16, 1] or pre-tiled scales accepted) -> [C_g]."""
    _decodes(fmt, a_decode, b_decode)
    return compiler.grouped_matmul(
        "independent", a, a_scales, b, b_scales, fmt=fmt, a_decode=a_decode,
        b_decode=b_decode, alpha=alpha, out_dtype=out_dtype)


@grouped_matmul_independent.register_fake
def _(a, a_scales, b, b_scales, a_decode=None, b_decode=None, alpha=None, fmt="nvfp4",
      out_dtype="bf16"):
    dtype = _out_dtype(out_dtype)
    return [x.new_empty((x.shape[0], y.shape[0]), dtype=dtype) for x, y in zip(a, b)]


# ---------------------------------------------------------------------------
# Linear layers: the activations' quantize and the matmul as one program
# ---------------------------------------------------------------------------

_TORCH_OUT = {v: k for k, v in _OUT_DTYPES.items()}


def _linear_options(amax, encode_scale, decode_scale, rounding, seed, hadamard, scale_rule,
                    error_metric):
    """The activations' quantize options of compiler.linear."""
    options = dict(rounding=rounding, hadamard=hadamard)
    if rounding == "stochastic":
        options["seed"] = seed
    for name, value in (("amax", amax), ("encode_scale", encode_scale),
                        ("decode_scale", decode_scale), ("scale_rule", scale_rule),
                        ("error_metric", error_metric)):
        if value is not None:
            options[name] = value
    return options


def _linear_out(x, out_dtype):
    return _out_dtype(out_dtype) if out_dtype is not None else x.dtype


def _activation(activation, sigmoid_scale, limit, up_offset):
    """compiler.linear's swiglu= from the ops' activation arguments."""
    if activation is None:
        return None
    if activation != "swiglu":
        raise ValueError(f"activation must be None or 'swiglu', got {activation!r}")
    return dict(sigmoid_scale=sigmoid_scale, limit=limit, up_offset=up_offset)


def _linear_width(n, activation):
    return n // 2 if activation is not None else n


@_op("linear")
def linear(x: torch.Tensor, w_q: torch.Tensor, w_s: torch.Tensor,
           w_decode: Optional[torch.Tensor] = None, fmt: str = "nvfp4",
           out_dtype: Optional[str] = None, amax: Optional[torch.Tensor] = None,
           encode_scale: Optional[torch.Tensor] = None,
           decode_scale: Optional[torch.Tensor] = None, rounding: str = "nearest_even",
           seed: int = 0, hadamard: bool = False, scale_rule: Optional[str] = None,
           error_metric: Optional[str] = None, activation: Optional[str] = None,
           sigmoid_scale: float = 1.0, limit: Optional[float] = None, up_offset: float = 0.0,
           intermediate_dtype: str = "f32",
           bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """y [M, N] = x W^T: x [M, K] (f32/f16/bf16) quantized per call (the
    options: quantize's; a calibrated scale as encode_scale or
    decode_scale) and the block-scaled matmul with the FP4 weight w_q
    [N, K/2], its scales w_s and decode scale w_decode, as one program:
    on sm_90a the GEMM quantizes the activations itself at decode sizes
    (compiler.linear). out_dtype: x's by default. activation="swiglu"
    (sigmoid_scale, limit, up_offset: nvfp4.swiglu's): the weight rows
    interleave gate and up rows and the result is [M, N/2], the activation
    of the product rounded to intermediate_dtype, computed in the GEMM's
    epilogue on sm_90a. bias [N]: added in the epilogue (before the
    activation)."""
    _decodes(fmt, w_decode)
    return compiler.linear(
        x, w_q, w_s, w_decode, fmt=fmt,
        out_dtype=out_dtype or _TORCH_OUT[x.dtype],
        input_options=_linear_options(amax, encode_scale, decode_scale, rounding, seed,
                                      hadamard, scale_rule, error_metric),
        swiglu=_activation(activation, sigmoid_scale, limit, up_offset),
        intermediate_dtype=intermediate_dtype, bias=bias)


@linear.register_fake
def _(x, w_q, w_s, w_decode=None, fmt="nvfp4", out_dtype=None, amax=None, encode_scale=None,
      decode_scale=None, rounding="nearest_even", seed=0, hadamard=False, scale_rule=None,
      error_metric=None, activation=None, sigmoid_scale=1.0, limit=None, up_offset=0.0,
      intermediate_dtype="f32", bias=None):
    compiler._check_given_scale(fmt, amax, encode_scale, decode_scale, scale_rule, False)
    _activation(activation, sigmoid_scale, limit, up_offset)
    return x.new_empty((x.shape[0], _linear_width(w_q.shape[0], activation)),
                       dtype=_linear_out(x, out_dtype))


@_op("grouped_linear")
def grouped_linear(x: torch.Tensor, w_q: torch.Tensor, w_s: torch.Tensor,
                   w_decode: Optional[torch.Tensor], group_offsets: torch.Tensor,
                   fmt: str = "nvfp4", out_dtype: Optional[str] = None,
                   amax: Optional[torch.Tensor] = None,
                   encode_scale: Optional[torch.Tensor] = None,
                   decode_scale: Optional[torch.Tensor] = None,
                   rounding: str = "nearest_even", seed: int = 0, hadamard: bool = False,
                   scale_rule: Optional[str] = None, error_metric: Optional[str] = None,
                   check_tables: bool = True, activation: Optional[str] = None,
                   sigmoid_scale: float = 1.0, limit: Optional[float] = None,
                   up_offset: float = 0.0, intermediate_dtype: str = "f32",
                   bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """The experts of an MoE layer: tokens x [S, K] sorted by expert,
    quantized together (options as linear's), the contiguous grouped
    matmul with the experts' w_q [E, N, K/2], w_s, w_decode [E];
    group_offsets [E+1] int32 -> [S, N] ([S, N/2] with activation="swiglu",
    as linear's; bias [E, N]: expert e's row added to its tokens' outputs).
    One program (compiler.grouped_linear)."""
    _decodes(fmt, w_decode)
    return compiler.grouped_linear(
        x, w_q, w_s, w_decode, group_offsets, fmt=fmt,
        out_dtype=out_dtype or _TORCH_OUT[x.dtype],
        input_options=_linear_options(amax, encode_scale, decode_scale, rounding, seed,
                                      hadamard, scale_rule, error_metric),
        swiglu=_activation(activation, sigmoid_scale, limit, up_offset),
        intermediate_dtype=intermediate_dtype, bias=bias,
        check_tables=_check_tables_now(check_tables, group_offsets))


@grouped_linear.register_fake
def _(x, w_q, w_s, w_decode, group_offsets, fmt="nvfp4", out_dtype=None, amax=None,
      encode_scale=None, decode_scale=None, rounding="nearest_even", seed=0, hadamard=False,
      scale_rule=None, error_metric=None, check_tables=True, activation=None,
      sigmoid_scale=1.0, limit=None, up_offset=0.0, intermediate_dtype="f32", bias=None):
    compiler._check_given_scale(fmt, amax, encode_scale, decode_scale, scale_rule, False)
    _activation(activation, sigmoid_scale, limit, up_offset)
    return x.new_empty((x.shape[0], _linear_width(w_q.shape[1], activation)),
                       dtype=_linear_out(x, out_dtype))


def _output_quantize(encode_scale, decode_scale):
    """compiler.linear's output_quantize= from the ops' output scale."""
    if (encode_scale is None) == (decode_scale is None):
        raise ValueError("the output's quantize needs one calibrated scale: "
                         "output_encode_scale or output_decode_scale")
    return ({"encode_scale": encode_scale} if encode_scale is not None
            else {"decode_scale": decode_scale})


@_op("grouped_linear_quantized")
def grouped_linear_quantized(
        x: torch.Tensor, w_q: torch.Tensor, w_s: torch.Tensor,
        w_decode: Optional[torch.Tensor], group_offsets: torch.Tensor,
        output_encode_scale: Optional[torch.Tensor] = None,
        output_decode_scale: Optional[torch.Tensor] = None,
        out_dtype: Optional[str] = None, amax: Optional[torch.Tensor] = None,
        encode_scale: Optional[torch.Tensor] = None,
        decode_scale: Optional[torch.Tensor] = None, check_tables: bool = True,
        activation: Optional[str] = None, sigmoid_scale: float = 1.0,
        limit: Optional[float] = None, up_offset: float = 0.0,
        intermediate_dtype: str = "f32", bias: Optional[torch.Tensor] = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """grouped_linear (NVFP4) whose result, rounded to out_dtype, is
    quantized to NVFP4 with a calibrated scale (output_encode_scale or
    output_decode_scale, [] f32): (values [S, N'/2], swizzled scales,
    decode scale []), the next matmul's FP4 tokens; N' = N, or N/2 with
    activation="swiglu". One program: on sm_90a the GEMM's epilogue writes
    them (compiler.grouped_linear(output_quantize=...))."""
    return tuple(compiler.grouped_linear(
        x, w_q, w_s, w_decode, group_offsets,
        out_dtype=out_dtype or _TORCH_OUT[x.dtype],
        input_options=_linear_options(amax, encode_scale, decode_scale, "nearest_even", 0,
                                      False, None, None),
        swiglu=_activation(activation, sigmoid_scale, limit, up_offset),
        intermediate_dtype=intermediate_dtype, bias=bias,
        output_quantize=_output_quantize(output_encode_scale, output_decode_scale),
        check_tables=_check_tables_now(check_tables, group_offsets)))


@grouped_linear_quantized.register_fake
def _(x, w_q, w_s, w_decode, group_offsets, output_encode_scale=None,
      output_decode_scale=None, out_dtype=None, amax=None, encode_scale=None,
      decode_scale=None, check_tables=True, activation=None, sigmoid_scale=1.0, limit=None,
      up_offset=0.0, intermediate_dtype="f32", bias=None):
    compiler._check_given_scale("nvfp4", amax, encode_scale, decode_scale, None, False)
    _activation(activation, sigmoid_scale, limit, up_offset)
    _output_quantize(output_encode_scale, output_decode_scale)
    return _quantized_fake(x, (), x.shape[0], _linear_width(w_q.shape[1], activation))


@_op("swiglu")
def swiglu(x: torch.Tensor, sigmoid_scale: float = 1.0, limit: Optional[float] = None,
           up_offset: float = 0.0, out_dtype: Optional[str] = None) -> torch.Tensor:
    """nvfp4.swiglu: x [..., 2N] (gate in the even columns, up in the odd
    ones) -> [..., N] (compiler.swiglu)."""
    return compiler.swiglu(x, sigmoid_scale=sigmoid_scale, limit=limit, up_offset=up_offset,
                           out_dtype=out_dtype or _TORCH_OUT[x.dtype])


@swiglu.register_fake
def _(x, sigmoid_scale=1.0, limit=None, up_offset=0.0, out_dtype=None):
    compiler._swiglu_params(sigmoid_scale, limit, up_offset)
    return x.new_empty((*x.shape[:-1], x.shape[-1] // 2), dtype=_linear_out(x, out_dtype))


@_op("weight_only_linear")
def weight_only_linear(x: torch.Tensor, w_q: torch.Tensor, w_s: torch.Tensor,
                       w_decode: Optional[torch.Tensor] = None, fmt: str = "nvfp4",
                       out_dtype: Optional[str] = None,
                       bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """y [M, N] = x W^T (+ bias [N]) with weight-only quantization (W4A16):
    x [M, K] bf16/f16 taken as it is, the FP4 weight w_q [N, K/2] with its
    scales w_s and (NVFP4) decode scale w_decode. out_dtype: x's by
    default."""
    _decodes(fmt, w_decode)
    return compiler.linear(x, w_q, w_s, w_decode, fmt=fmt,
                           out_dtype=out_dtype or _TORCH_OUT[x.dtype], weight_only=True,
                           bias=bias)


@weight_only_linear.register_fake
def _(x, w_q, w_s, w_decode=None, fmt="nvfp4", out_dtype=None, bias=None):
    return x.new_empty((x.shape[0], w_q.shape[0]), dtype=_linear_out(x, out_dtype))


@_op("weight_only_grouped_linear")
def weight_only_grouped_linear(x: torch.Tensor, w_q: torch.Tensor, w_s: torch.Tensor,
                               w_decode: Optional[torch.Tensor], group_offsets: torch.Tensor,
                               fmt: str = "nvfp4", out_dtype: Optional[str] = None,
                               check_tables: bool = True,
                               bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """The experts of an MoE layer with weight-only quantization: tokens x
    [S, K] (bf16/f16) sorted by expert, the experts' w_q [E, N, K/2], w_s,
    w_decode [E] (NVFP4), group_offsets [E+1] int32 -> [S, N] (+ bias
    [E, N], expert e's row on its tokens)."""
    _decodes(fmt, w_decode)
    return compiler.grouped_linear(
        x, w_q, w_s, w_decode, group_offsets, fmt=fmt,
        out_dtype=out_dtype or _TORCH_OUT[x.dtype], weight_only=True, bias=bias,
        check_tables=_check_tables_now(check_tables, group_offsets))


@weight_only_grouped_linear.register_fake
def _(x, w_q, w_s, w_decode, group_offsets, fmt="nvfp4", out_dtype=None, check_tables=True,
      bias=None):
    return x.new_empty((x.shape[0], w_q.shape[1]), dtype=_linear_out(x, out_dtype))


# ---------------------------------------------------------------------------
# MoE routing
# ---------------------------------------------------------------------------

@_op("moe_route")
def moe_route(ids: torch.Tensor, num_experts: int) -> tuple[torch.Tensor, torch.Tensor,
                                                           torch.Tensor]:
    """nvfp4.moe_route: top-k expert indices [T, K] (int32) -> (sorted_pairs
    [T*K], pair_rows [T, K], group_offsets [E + 1]), int32
    (compiler.moe_route)."""
    return compiler.moe_route(ids, num_experts)


@moe_route.register_fake
def _(ids, num_experts):
    t, k = ids.shape
    return (ids.new_empty((t * k,), dtype=torch.int32),
            ids.new_empty((t, k), dtype=torch.int32),
            ids.new_empty((num_experts + 1,), dtype=torch.int32))


@_op("moe_dispatch")
def moe_dispatch(x: torch.Tensor, sorted_pairs: torch.Tensor) -> torch.Tensor:
    """nvfp4.moe_dispatch: token rows [T, H] -> [T*K, H] in moe_route's
    order (compiler.moe_dispatch)."""
    return compiler.moe_dispatch(x, sorted_pairs)


@moe_dispatch.register_fake
def _(x, sorted_pairs):
    return x.new_empty((sorted_pairs.shape[0], x.shape[1]))


@_op("moe_combine")
def moe_combine(y: torch.Tensor, pair_rows: torch.Tensor, weights: torch.Tensor,
                out_dtype: Optional[str] = None,
                product_dtype: Optional[str] = None) -> torch.Tensor:
    """nvfp4.moe_combine: the experts' rows [S, H] in moe_route's order,
    pair_rows and the router's weights [T, K] -> [T, H], the weighted sum
    of each token's rows (compiler.moe_combine)."""
    return compiler.moe_combine(y, pair_rows, weights,
                                out_dtype=out_dtype or compiler.element_type_of(y),
                                product_dtype=product_dtype)


@moe_combine.register_fake
def _(y, pair_rows, weights, out_dtype=None, product_dtype=None):
    return y.new_empty((pair_rows.shape[0], y.shape[1]), dtype=_linear_out(y, out_dtype))
