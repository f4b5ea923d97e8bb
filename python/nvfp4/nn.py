"""Inference layers on the block-scaled matmul: drop-in for torch.nn.Linear
and a grouped-experts (MoE) layer.

Each layer quantizes its weights once, when it is made (from a trained
layer: ``Linear.from_linear``, ``GroupedExperts.from_linears`` /
``from_weight``), into the layout the kernels read (packed FP4 values,
128x4-swizzled block scales, the decode scale), then per call quantizes
its input and runs the block-scaled matmul through its ``torch.ops.nvfp4``
op (``nvfp4.ops.call``: under ``torch.compile`` one node per op; in eager
mode the op's implementation directly, without the custom op's dispatch;
CUDA graphs record either). The defaults follow
TransformerEngine's NVFP4 recipe for inference: weights in 16x16 blocks,
activations in 1x16 blocks, round to nearest even; ``weight_options`` and
``input_options`` pass nvfp4.compiler.quantize's options (``hadamard``,
``scale_rule="four_over_six"``...). ``fmt="mxfp4"`` uses MXFP4 for both.

``convert(model)`` swaps every ``torch.nn.Linear`` of a model whose
input width the format's block divides::

    import nvfp4.nn
    model = nvfp4.nn.convert(model.to(torch.bfloat16).cuda().eval())
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import torch

from . import compiler, runtime
from . import ops  # registers torch.ops.nvfp4

__all__ = ["Linear", "GroupedExperts", "MoEExperts", "convert"]

_OUT = {dtype: name for name, dtype in ops._OUT_DTYPES.items()}  # torch dtype -> name


def _quantize(x, fmt, options):
    return ops.call("quantize", x, fmt, **options)


# The input options torch.ops.nvfp4.linear takes (the activations' quantize
# in the same program, nvfp4.fused on sm_90a: docs/spec.md F1-F4); others (row_scaled,
# block, e4m3_max, swizzle) run quantize and matmul as two ops.
_LINEAR_INPUT_OPTIONS = frozenset(("amax", "encode_scale", "decode_scale", "rounding", "seed",
                                   "hadamard", "scale_rule", "error_metric"))


def _fused_input(options):
    return set(options) <= _LINEAR_INPUT_OPTIONS


def _weight_options(fmt, weight_options):
    options = {"block": "16x16"} if fmt == "nvfp4" else {}
    options.update(weight_options or {})
    return options


def _store_weight(layer, weight, fmt, options):
    """Quantizes `weight` into the layer's buffers (saved with its
    state_dict, moved by .to(device), never trained). They are kept as
    integers, the values and scales as their bytes and the decode scale as
    its float32 bits, so that model.to(dtype) / .half() leave them exact."""
    q, s, d = _quantize(weight.detach().contiguous(), fmt, options)
    layer.register_buffer("weight_values", q.view(torch.uint8))
    layer.register_buffer("weight_scales", s.view(torch.uint8))
    layer.register_buffer("weight_decode", d.view(torch.int32))


def _load_weight(layer, values, scales, decode, fmt):
    """Stores quantized weights as they are (a checkpoint's bytes): values
    [.., N, K/2] bytes, scales row-major [.., N, K/bs] (swizzled here) or
    swizzled already, decode (NVFP4) a float32 per tensor / per expert."""
    values = values.contiguous().view(torch.uint8)
    scales = scales.contiguous().view(torch.uint8)
    batch = values.dim() - 2
    if scales.dim() == batch + 2:
        scales = ops.call("swizzle_scales", scales.view(_scale_dtype(fmt)), fmt)
        scales = scales.view(torch.uint8)
    layer.register_buffer("weight_values", values)
    layer.register_buffer("weight_scales", scales.contiguous())
    if fmt == "nvfp4":
        d = torch.as_tensor(decode, dtype=torch.float32, device=values.device)
        d = d.reshape(values.shape[:batch]).contiguous()
    else:
        if decode is not None:
            raise ValueError("mxfp4 has no decode scale: pass None")
        d = torch.ones(values.shape[:batch], dtype=torch.float32, device=values.device)
    layer.register_buffer("weight_decode", d.view(torch.int32))


def _add_group_bias(y, bias, group_offsets):
    """y [S, N] + bias[e] on expert e's rows (the paths whose program has no
    bias operand: after the matmul, in y's type)."""
    if bias is None:
        return y
    rows = torch.arange(y.shape[0], device=y.device)
    expert = torch.searchsorted(group_offsets[1:].to(torch.int64), rows, right=True)
    return y + bias[expert.clamp(max=bias.shape[0] - 1)].to(y.dtype)


def _scale_dtype(fmt):
    return torch.float8_e4m3fn if fmt == "nvfp4" else torch.float8_e8m0fnu


#: The largest [E, S, K] token buffer (elements) GroupedExperts pads to S
#: rows per expert without reading the group offsets (per-expert scales).
_PADDED_TOKEN_ELEMENTS = 1 << 24


def _new_quantized(cls, half_k, fmt, weight_only, encode, decode):
    """An empty layer of `cls` for from_quantized, its arguments checked."""
    given = [v for v in (encode, decode) if v is not None]
    if weight_only and given:
        raise ValueError("weight_only=True quantizes no activations: no input scale")
    if len(given) > 1:
        raise ValueError("pass input_encode_scale or input_decode_scale, not both")
    bs = compiler.block_width(fmt)
    if (2 * half_k) % bs:
        raise ValueError(f"{fmt} needs in_features divisible by {bs}, got {2 * half_k}")
    layer = cls.__new__(cls)
    torch.nn.Module.__init__(layer)
    return layer


def _register_input_scales(layer, encode, decode, device, experts):
    """A checkpoint's calibrated activation scale as the layer's buffer
    input_encode_scale / input_decode_scale: one value, or one per expert."""
    for name, value in (("encode_scale", encode), ("decode_scale", decode)):
        if value is None:
            continue
        v = torch.as_tensor(value, dtype=torch.float32, device=device)
        if v.numel() not in (1, experts):
            raise ValueError(f"input_{name}: one value" +
                             (f" or one per expert ({experts})" if experts > 1 else "") +
                             f", got {tuple(v.shape)}")
        # float32 bits as int32, as weight_decode: model.to(dtype) keeps them
        layer.register_buffer("input_" + name,
                              (v.reshape(()) if v.numel() == 1 else v.reshape(experts))
                              .view(torch.int32))


def _quantize_in_epilogue() -> bool:
    """Whether programs compile with the sm_90a pipeline option
    quantize-in-epilogue (in $NVFP4_PIPELINE_OPTIONS): a fused output
    quantize then runs in the GEMM's epilogue, else as its own kernel."""
    for option in runtime.compile_settings("gpu")[1].split():
        name, _, value = option.partition("=")
        if name == "quantize-in-epilogue":
            return value in ("", "1", "true")
    return False


def _static_input_options(layer):
    """A calibrated activation scale (a checkpoint's) as quantize options."""
    options = dict(layer.input_options)
    for name in ("encode_scale", "decode_scale"):
        buf = getattr(layer, "input_" + name, None)
        if buf is not None:
            options[name] = buf.view(torch.float32)
    return options


def _check_group_offsets(offsets, rows, experts):
    """The contract of group_offsets (docs/spec.md section 3) for a path
    that indexes with them in torch: starts at 0, never decreases, ends at
    the token count (one read of the table)."""
    o = offsets.detach().to("cpu", torch.int64)
    if o.shape != (experts + 1,):
        raise ValueError(f"group_offsets: expected [{experts + 1}] entries, got "
                         f"{tuple(o.shape)}")
    if int(o[0]) != 0:
        raise ValueError(f"group_offsets[0] = {int(o[0])}: the first group starts at row 0")
    down = torch.nonzero(o[1:] < o[:-1]).flatten()
    if down.numel():
        g = int(down[0])
        raise ValueError(f"group_offsets[{g + 1}] = {int(o[g + 1])} is below "
                         f"group_offsets[{g}] = {int(o[g])}: offsets never decrease")
    if int(o[-1]) != rows:
        raise ValueError(f"group_offsets[{experts}] = {int(o[-1])}: the last offset is "
                         f"the token count {rows}")


def _weight_only_input(layer, x):
    if x.dtype not in (torch.bfloat16, torch.float16):
        raise TypeError(f"{type(layer).__name__}(weight_only=True) takes bfloat16 or "
                        f"float16 input (W4A16), got {x.dtype}")


def _out_dtype(dtype: torch.dtype) -> str:
    if dtype not in _OUT:
        raise TypeError(f"nvfp4 layers take float32, float16 or bfloat16 input, got {dtype}")
    return _OUT[dtype]


class Linear(torch.nn.Module):
    """y = x W^T + b with W stored in FP4 (quantized once) and x quantized
    per call: torch.nn.Linear for inference.

    x: [..., in_features] (bf16, f16 or f32; the output has its dtype).
    weight_only=True: W4A16, x (bf16/f16) is not quantized.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *,
                 fmt: str = "nvfp4", device=None, dtype=torch.bfloat16,
                 weight_options: Optional[dict] = None,
                 input_options: Optional[dict] = None, weight_only: bool = False):
        super().__init__()
        bs = compiler.block_width(fmt)
        if in_features % bs:
            raise ValueError(f"{fmt} needs in_features divisible by {bs}, got {in_features}")
        if weight_only and input_options:
            raise ValueError("weight_only=True quantizes no activations: input_options do "
                             "not apply")
        self.in_features, self.out_features, self.fmt = in_features, out_features, fmt
        self.weight_only = weight_only
        self.weight_options = _weight_options(fmt, weight_options)
        self.input_options = dict(input_options or {})
        w = torch.zeros(out_features, in_features, dtype=dtype, device=device)
        self._set_weight(w)
        self.bias = (torch.nn.Parameter(torch.zeros(out_features, dtype=dtype, device=device),
                                        requires_grad=False) if bias else None)

    def _set_weight(self, weight: torch.Tensor):
        _store_weight(self, weight, self.fmt, self.weight_options)

    @classmethod
    def from_quantized(cls, values: torch.Tensor, scales: torch.Tensor,
                       decode=None, bias: Optional[torch.Tensor] = None, *,
                       fmt: str = "nvfp4", weight_only: bool = False,
                       input_encode_scale=None, input_decode_scale=None,
                       input_options: Optional[dict] = None) -> "Linear":
        """A layer on weights quantized elsewhere (a checkpoint's tensors,
        used as they are): values [N, K/2] (packed FP4 bytes), scales
        [N, K/bs] row-major or swizzled (E4M3 / UE8M0 bytes), decode the
        NVFP4 decode scale (a float; None for MXFP4). A calibrated
        activation scale (W4A4): input_encode_scale or input_decode_scale,
        used by every call's quantize (docs/spec.md 2.2, given scales)."""
        n, half_k = values.shape
        layer = _new_quantized(cls, half_k, fmt, weight_only, input_encode_scale,
                               input_decode_scale)
        layer.in_features, layer.out_features, layer.fmt = 2 * half_k, n, fmt
        layer.weight_only = weight_only
        layer.weight_options = {}
        layer.input_options = dict(input_options or {})
        _load_weight(layer, values, scales, decode, fmt)
        _register_input_scales(layer, input_encode_scale, input_decode_scale,
                               values.device, 1)
        layer.bias = (None if bias is None else
                      torch.nn.Parameter(bias.detach().clone(), requires_grad=False))
        return layer

    @classmethod
    def from_linear(cls, linear: torch.nn.Linear, *, fmt: str = "nvfp4",
                    weight_options: Optional[dict] = None,
                    input_options: Optional[dict] = None,
                    weight_only: bool = False) -> "Linear":
        """The quantized twin of a trained torch.nn.Linear (on its device)."""
        w = linear.weight.detach()
        dtype = w.dtype if w.dtype in _OUT else torch.bfloat16
        layer = cls(linear.in_features, linear.out_features, linear.bias is not None,
                    fmt=fmt, device=w.device, dtype=dtype, weight_options=weight_options,
                    input_options=input_options, weight_only=weight_only)
        layer._set_weight(w.to(dtype))
        if linear.bias is not None:
            layer.bias.data.copy_(linear.bias.detach())
        return layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        x2 = x.reshape(-1, self.in_features).contiguous()
        nv = self.fmt == "nvfp4"  # MXFP4 has no decode scales
        w_decode = self.weight_decode.view(torch.float32) if nv else None
        options = _static_input_options(self)
        # The bias is added in the matmul's epilogue, in fp32, before the
        # one rounding to x's type (docs/spec.md 2.7).
        bias = self.bias
        if self.weight_only:
            _weight_only_input(self, x)
            y = ops.call("weight_only_linear", x2, self.weight_values, self.weight_scales,
                         w_decode, self.fmt, _out_dtype(x.dtype), bias=bias)
        elif _fused_input(options):
            # One program: on sm_90a the GEMM quantizes x itself.
            y = ops.call("linear", x2, self.weight_values, self.weight_scales, w_decode,
                         self.fmt, _out_dtype(x.dtype), bias=bias, **options)
        else:
            q, s, d = _quantize(x2, self.fmt, options)
            y = ops.call("matmul", q, s, self.weight_values, self.weight_scales,
                         d if nv else None, w_decode, None, self.fmt,
                         _out_dtype(x.dtype), bias=bias)
        return y.reshape(*shape[:-1], self.out_features)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}, fmt={self.fmt}"
                + (", weight_only" if self.weight_only else ""))


class GroupedExperts(torch.nn.Module):
    """The expert matmuls of an MoE layer: E linears (no bias) [E, out, in]
    in FP4, applied to tokens sorted by expert.

    forward(x [S, in_features], group_offsets [E+1] int32: expert e owns rows
    group_offsets[e]:group_offsets[e+1]) -> [S, out_features]. The tokens
    are quantized together (one decode scale), each expert's weight has its
    own. ``check_tables`` (default True) checks the offsets' contract
    (docs/spec.md section 3); on the GPU that reads them back, a
    synchronization a router that builds them itself can skip.
    """

    def __init__(self, num_experts: int, in_features: int, out_features: int, *,
                 fmt: str = "nvfp4", device=None, dtype=torch.bfloat16,
                 weight_options: Optional[dict] = None,
                 input_options: Optional[dict] = None, check_tables: bool = True,
                 weight_only: bool = False):
        super().__init__()
        bs = compiler.block_width(fmt)
        if in_features % bs:
            raise ValueError(f"{fmt} needs in_features divisible by {bs}, got {in_features}")
        if weight_only and input_options:
            raise ValueError("weight_only=True quantizes no activations: input_options do "
                             "not apply")
        self.num_experts, self.in_features, self.out_features = (
            num_experts, in_features, out_features)
        self.fmt, self.check_tables, self.weight_only = fmt, check_tables, weight_only
        self.weight_options = _weight_options(fmt, weight_options)
        self.input_options = dict(input_options or {})
        self._set_weight(torch.zeros(num_experts, out_features, in_features, dtype=dtype,
                                     device=device))

    def _set_weight(self, weight: torch.Tensor):
        # weight_values [E, N, K/2], weight_scales [E, N/128, K/64, 32, 4, 4],
        # weight_decode [E]
        _store_weight(self, weight, self.fmt, self.weight_options)

    @classmethod
    def from_quantized(cls, values: torch.Tensor, scales: torch.Tensor, decode=None, *,
                       fmt: str = "nvfp4", weight_only: bool = False,
                       input_encode_scale=None, input_decode_scale=None,
                       check_tables: bool = True) -> "GroupedExperts":
        """Experts quantized elsewhere (a checkpoint's tensors, as they
        are): values [E, N, K/2], scales [E, N, K/bs] row-major or swizzled,
        decode [E] (NVFP4; None for MXFP4); a calibrated activation scale
        as for Linear.from_quantized: one for all experts' tokens, or one
        per expert ([E]: each expert's tokens are quantized with its own,
        in the masked layout; see forward)."""
        e, n, half_k = values.shape
        layer = _new_quantized(cls, half_k, fmt, weight_only, input_encode_scale,
                               input_decode_scale)
        layer.num_experts, layer.in_features, layer.out_features = e, 2 * half_k, n
        layer.fmt, layer.check_tables, layer.weight_only = fmt, check_tables, weight_only
        layer.weight_options, layer.input_options = {}, {}
        _load_weight(layer, values, scales, decode, fmt)
        _register_input_scales(layer, input_encode_scale, input_decode_scale,
                               values.device, e)
        return layer

    @classmethod
    def from_weight(cls, weight: torch.Tensor, **kwargs) -> "GroupedExperts":
        """From stacked expert weights [E, out_features, in_features]."""
        e, n, k = weight.shape
        dtype = weight.dtype if weight.dtype in _OUT else torch.bfloat16
        layer = cls(e, k, n, device=weight.device, dtype=dtype, **kwargs)
        layer._set_weight(weight.to(dtype))
        return layer

    @classmethod
    def from_linears(cls, linears: Sequence[torch.nn.Linear], **kwargs) -> "GroupedExperts":
        """From one bias-free torch.nn.Linear per expert."""
        if any(lin.bias is not None for lin in linears):
            raise ValueError("GroupedExperts has no bias: the experts' linears must not either")
        return cls.from_weight(torch.stack([lin.weight.detach() for lin in linears]), **kwargs)

    def interleave_rows(self) -> "GroupedExperts":
        """Reorders each expert's output rows from [first half; second half]
        (a gate_up projection's gate rows, then its up rows) to interleaved
        (gate row i at 2i, up row i at 2i + 1), the layout whose product
        the matmul's fused swiglu epilogue reads (forward(swiglu=...)).
        Exact: each row keeps its codes and its scales (the swizzled scale
        rows move with it). In place; returns self."""
        e, n, half_k = self.weight_values.shape
        if n % 2:
            raise ValueError(f"interleave_rows needs an even number of rows, got {n}")
        src = torch.arange(n, device=self.weight_values.device).view(2, n // 2).t().reshape(-1)
        self.weight_values = self.weight_values[:, src].contiguous()
        # Row r of the swizzled scales: byte ((r // 128) * C/4 + c // 4) * 512
        # + (r % 32) * 16 + ((r % 128) // 32) * 4 + c % 4 of an expert's.
        scales = self.weight_scales.view(e, -1)
        tiles_c = self.weight_scales.shape[2]
        cols = torch.arange(tiles_c * 4, device=src.device)

        def offsets(rows):
            r, c = rows[:, None], cols[None, :]
            return (((r // 128) * tiles_c + c // 4) * 512 + (r % 32) * 16 +
                    ((r % 128) // 32) * 4 + c % 4).reshape(-1)

        dst = offsets(torch.arange(n, device=src.device))
        moved = scales.clone()
        moved[:, dst] = scales[:, offsets(src)]
        self.weight_scales = moved.view(self.weight_scales.shape)
        return self

    def forward(self, x: torch.Tensor, group_offsets: torch.Tensor,
                swiglu: Optional[dict] = None,
                bias: Optional[torch.Tensor] = None,
                check_tables: Optional[bool] = None) -> torch.Tensor:
        """bias [E, out_features]: expert e's row added to its tokens'
        outputs, in the matmul's epilogue where the program has one (the
        fused and weight-only paths), else after it in x's type.
        swiglu (a dict of nvfp4.swiglu's sigmoid_scale, limit, up_offset, or
        {}): the rows are interleaved gate/up rows (interleave_rows) and the
        result is the activation [S, N/2] of the product (with its bias)
        rounded to x's type; on sm_90a the GEMM's epilogue computes it (one
        program) where the tokens are quantized in it.
        check_tables: the layer's setting when None; False for offsets
        valid by construction (nvfp4.moe_route's)."""
        check = self.check_tables if check_tables is None else check_tables
        nv = self.fmt == "nvfp4"  # MXFP4 has no decode scales
        w_decode = self.weight_decode.view(torch.float32) if nv else None
        options = _static_input_options(self)
        if swiglu is not None:
            if (self.weight_only or not _fused_input(options) or
                    any(isinstance(v, torch.Tensor) and v.dim() == 1
                        for v in options.values())):
                return ops.call("swiglu", self.forward(x, group_offsets, bias=bias,
                                                       check_tables=check), **swiglu)
            return ops.call(
                "grouped_linear", x.contiguous(), self.weight_values, self.weight_scales,
                w_decode, group_offsets, self.fmt, _out_dtype(x.dtype),
                check_tables=check, activation="swiglu",
                intermediate_dtype=_out_dtype(x.dtype), bias=bias, **swiglu, **options)
        if self.weight_only:
            _weight_only_input(self, x)
            return ops.call(
                "weight_only_grouped_linear", x.contiguous(), self.weight_values,
                self.weight_scales, w_decode, group_offsets, self.fmt, _out_dtype(x.dtype),
                check, bias=bias)
        if any(isinstance(v, torch.Tensor) and v.dim() == 1 for v in options.values()):
            return _add_group_bias(
                self._per_expert_scales(x, group_offsets, options, w_decode, check), bias,
                group_offsets)
        if _fused_input(options):
            # One program: on sm_90a the GEMM quantizes the tokens itself.
            return ops.call(
                "grouped_linear", x.contiguous(), self.weight_values, self.weight_scales,
                w_decode, group_offsets, self.fmt, _out_dtype(x.dtype),
                check_tables=check, bias=bias, **options)
        q, s, d = _quantize(x.contiguous(), self.fmt, options)
        return _add_group_bias(ops.call(
            "grouped_matmul_contiguous", q, s, self.weight_values, self.weight_scales,
            group_offsets, d if nv else None, w_decode, None, self.fmt, _out_dtype(x.dtype),
            check), bias, group_offsets)

    def fp4_input_scale(self) -> Optional[dict]:
        """The one calibrated activation scale ({"encode_scale": t} or
        {"decode_scale": t}, t [] f32) of an NVFP4 layer whose activations
        are quantized with nothing else set, else None: the layer can then
        take FP4 tokens that an earlier matmul's epilogue quantized
        (forward_fp4), bit for bit what its own quantize would give."""
        if self.fmt != "nvfp4" or self.weight_only or self.input_options:
            return None
        options = _static_input_options(self)
        if len(options) != 1 or next(iter(options.values())).dim() != 0:
            return None
        return options

    def forward_fp4(self, q: torch.Tensor, s: torch.Tensor, d: torch.Tensor,
                    group_offsets: torch.Tensor, out_dtype: torch.dtype,
                    bias: Optional[torch.Tensor] = None,
                    check_tables: Optional[bool] = None) -> torch.Tensor:
        """The experts on tokens already quantized (values [S, K/2], their
        swizzled scales, decode scale []): the contiguous grouped matmul,
        bias [E, N] in its epilogue, the result in out_dtype; check_tables
        as forward's."""
        return ops.call(
            "grouped_matmul_contiguous", q, s, self.weight_values, self.weight_scales,
            group_offsets, d, self.weight_decode.view(torch.float32), None, self.fmt,
            _out_dtype(out_dtype),
            self.check_tables if check_tables is None else check_tables, bias)

    def _per_expert_scales(self, x, group_offsets, options, w_decode, check_tables):
        """Each expert's tokens quantized with that expert's static scale:
        the sorted tokens go into an [E, maxM, K] buffer (row r of expert e
        at [e, r]), one batched quantize takes the [E] scales, and the
        masked grouped matmul (masked_m = tokens per expert) computes; the
        rows come back in the sorted order. Exact: a quantize with a given
        scale treats every row on its own. maxM is the token count S when
        the buffer is small (E * S * K <= _PADDED_TOKEN_ELEMENTS: decode; no host sync, CUDA
        graphs), else the largest
        expert's count rounded up to 64 (one read of the offsets: a host
        sync, so not inside a CUDA graph)."""
        s, k = x.shape
        e = self.num_experts
        if check_tables:
            _check_group_offsets(group_offsets, s, e)
        counts = group_offsets[1:] - group_offsets[:-1]
        if e * s * k <= _PADDED_TOKEN_ELEMENTS:
            max_m = max(s, 1)
        else:
            max_m = max(-(-int(counts.max()) // 64) * 64, 64)
        rows = torch.arange(s, device=x.device)
        expert = torch.searchsorted(group_offsets[1:].to(torch.int64), rows, right=True)
        slot = expert * max_m + rows - group_offsets[:-1].to(torch.int64)[expert]
        padded = x.new_zeros(e * max_m, k)
        padded[slot] = x
        q, sc, d = _quantize(padded.view(e, max_m, k), self.fmt, options)
        y = ops.call(
            "grouped_matmul_masked", q, sc, self.weight_values, self.weight_scales,
            counts.to(torch.int32), d, w_decode, None, self.fmt, _out_dtype(x.dtype), False)
        return y.view(e * max_m, -1)[slot]

    def extra_repr(self) -> str:
        return (f"num_experts={self.num_experts}, in_features={self.in_features}, "
                f"out_features={self.out_features}, fmt={self.fmt}")


def convert(model: torch.nn.Module, *, fmt: str = "nvfp4",
            skip: Optional[Callable[[str, torch.nn.Linear], bool]] = None,
            weight_options: Optional[dict] = None,
            input_options: Optional[dict] = None) -> torch.nn.Module:
    """Replaces (in place) every torch.nn.Linear of `model` whose
    in_features the format's block divides by an nvfp4.nn.Linear with the
    same weights; `skip(name, linear)` keeps chosen ones (e.g. the output
    head). Returns `model`."""
    bs = compiler.block_width(fmt)
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            full = f"{name}.{child_name}" if name else child_name
            if type(child) is not torch.nn.Linear or child.in_features % bs:
                continue
            if skip is not None and skip(full, child):
                continue
            setattr(module, child_name, Linear.from_linear(
                child, fmt=fmt, weight_options=weight_options, input_options=input_options))
    return model


class MoEExperts(torch.nn.Module):
    """The experts of an MoE block as grouped matmuls: forward(hidden [T,
    H], top_k_index [T, k], top_k_weights [T, k]) -> [T, H], the interface
    of transformers' experts modules.

    ``gate_up``: a GroupedExperts [E, 2I, H] (gate rows first, then up, or
    interleaved with ``interleaved=True``: gpt-oss), or ``gate`` and ``up``
    apart (experts whose gate and up have different global scales);
    ``down``: [E, H, I]; optional per-expert biases [E, 2I] / [E, H];
    ``activation``: "silu" (Qwen3: act(gate) * up) or "gpt_oss" (clamped
    SwiGLU: gate <= limit, |up| <= limit, (up + 1) * gate *
    sigmoid(alpha * gate)).

    A ``gate_up`` of gate rows then up rows is reordered to interleaved rows
    (GroupedExperts.interleave_rows, in place; its bias likewise): the
    activation is then nvfp4.swiglu of the product (plus its bias) rounded
    to the activations' type, in the GEMM's epilogue on sm_90a; the biases
    are added in the matmuls' epilogues. Weight-only experts (W4A16) keep
    the producer's arithmetic: bias and activation in the activations' type
    after each matmul (bit for bit transformers' for gpt-oss's MXFP4).
    """

    def __init__(self, down, *, gate_up=None, gate=None, up=None, interleaved=False,
                 gate_up_bias=None, down_bias=None, activation="silu", limit=None,
                 alpha=None):
        super().__init__()
        self.gate_up, self.gate, self.up, self.down = gate_up, gate, up, down
        self.num_experts = down.num_experts
        self.interleaved, self.activation = interleaved, activation
        self.limit, self.alpha = limit, alpha
        if gate_up is not None and not interleaved:
            gate_up.interleave_rows()
            if gate_up_bias is not None:
                half = gate_up_bias.shape[-1] // 2
                gate_up_bias = torch.stack([gate_up_bias[..., :half],
                                            gate_up_bias[..., half:]], -1).flatten(-2)
            self.interleaved = interleaved = True
        self.gate_up_bias = (None if gate_up_bias is None else
                             torch.nn.Parameter(gate_up_bias, requires_grad=False))
        self.down_bias = (None if down_bias is None else
                          torch.nn.Parameter(down_bias, requires_grad=False))

    @classmethod
    def from_weights(cls, gate_up: torch.Tensor, down: torch.Tensor, *,
                     gate_up_bias: Optional[torch.Tensor] = None,
                     down_bias: Optional[torch.Tensor] = None, interleaved: bool = False,
                     activation: str = "silu", limit=None, alpha=None,
                     **kwargs) -> "MoEExperts":
        """From the experts' high-precision weights, quantized here:
        gate_up [E, 2I, H] (gate rows then up rows, or interleaved), down
        [E, H, I]; kwargs as GroupedExperts' (fmt, input_options,
        weight_only, check_tables...)."""
        return cls(GroupedExperts.from_weight(down, **kwargs),
                   gate_up=GroupedExperts.from_weight(gate_up, **kwargs),
                   interleaved=interleaved, gate_up_bias=gate_up_bias, down_bias=down_bias,
                   activation=activation, limit=limit, alpha=alpha)

    def _swiglu(self):
        """The activation as nvfp4.swiglu's parameters."""
        if self.activation == "silu":
            return {}
        return dict(sigmoid_scale=float(self.alpha), limit=float(self.limit), up_offset=1.0)

    def _act(self, gate, up):
        if self.activation == "silu":
            return torch.nn.functional.silu(gate) * up
        gate = gate.clamp(max=self.limit)
        up = up.clamp(min=-self.limit, max=self.limit)
        return (up + 1) * (gate * torch.sigmoid(gate * self.alpha))

    def forward(self, hidden_states, top_k_index, top_k_weights):
        tokens, k = top_k_index.shape
        if tokens == 0 or k == 0:
            return torch.zeros_like(hidden_states)
        # The routing in nvfp4 ops (docs/examples/moe_block.mlir): the
        # (token, slot) pairs sorted by expert, each pair's token row in
        # that order, and at the end each token's rows summed with its
        # weights; a masked slot (an index outside [0, E)) and a zero weight
        # add nothing. The group offsets are valid by construction: no
        # layer reads them back to check them (a host synchronization).
        # Indices outside [0, E) are dropped pairs: as -1 in int32 (an
        # int64 index past int32 must not wrap onto an expert).
        e = self.num_experts
        ids = torch.where((top_k_index >= 0) & (top_k_index < e), top_k_index,
                          -1).to(torch.int32).contiguous()
        pairs, pair_rows, offsets = ops.call("moe_route", ids, e)
        x = ops.call("moe_dispatch", hidden_states.contiguous(), pairs)
        weights = top_k_weights.contiguous()
        if self.gate_up is not None and self.gate_up.weight_only:
            # Weight-only experts (gpt-oss's MXFP4: products exact in bf16)
            # compute as the producer's dequantized model does, bit for bit:
            # bias and activation in x's type after each matmul.
            expert = torch.where(ids >= 0, ids, e - 1).reshape(-1)[pairs.long()]
            gu = self.gate_up(x, offsets, check_tables=False)
            if self.gate_up_bias is not None:
                gu = gu + self.gate_up_bias[expert].to(gu.dtype)
            h = self._act(gu[:, ::2], gu[:, 1::2])
        elif self.gate_up is not None:
            # The biases are added in the matmuls' epilogues (fp32, before
            # the activation and the rounding to x's type).
            fp4 = self._fp4_intermediate(x, offsets)
            if fp4 is not None:
                # One calibrated scale for the down projection's inputs: the
                # gate_up GEMM's epilogue quantizes the activation itself
                # (the [S, I] activation is never stored).
                y = self.down.forward_fp4(*fp4, offsets, x.dtype, bias=self.down_bias,
                                          check_tables=False)
                return self._combine(y, pair_rows, weights, hidden_states)
            h = self.gate_up(x, offsets, swiglu=self._swiglu(), bias=self.gate_up_bias,
                             check_tables=False)
        else:
            h = self._act(self.gate(x, offsets, check_tables=False),
                          self.up(x, offsets, check_tables=False))
        if self.down.weight_only:
            y = self.down(h.contiguous(), offsets, check_tables=False)
            if self.down_bias is not None:
                y = y + self.down_bias[expert].to(y.dtype)
        else:
            y = self.down(h.contiguous(), offsets, bias=self.down_bias, check_tables=False)
        return self._combine(y, pair_rows, weights, hidden_states)

    def _fp4_intermediate(self, x, offsets):
        """gate_up, its swiglu and the down projection's activation quantize
        as one program, (values, scales, decode scale), where the down
        projection has one calibrated input scale, gate_up quantizes its own
        inputs with one scale, and the pipeline computes the quantize in the
        GEMM's epilogue (its option quantize-in-epilogue: then the GEMM
        writes the FP4 activations; by default the down projection's own
        quantize measured faster); else None."""
        if not _quantize_in_epilogue():
            return None
        scale = self.down.fp4_input_scale()
        if (scale is None or not isinstance(self.gate_up, GroupedExperts) or
                self.gate_up.fmt != "nvfp4" or self.gate_up.weight_only):
            return None
        # gate_up's own quantize as the op takes it: a computed amax, or one
        # caller amax or calibrated scale.
        options = _static_input_options(self.gate_up)
        if (not set(options) <= {"amax", "encode_scale", "decode_scale"} or
                any(isinstance(v, torch.Tensor) and v.dim() == 1 for v in options.values())):
            return None
        (name, value), = scale.items()
        return ops.call(
            "grouped_linear_quantized", x.contiguous(), self.gate_up.weight_values,
            self.gate_up.weight_scales, self.gate_up.weight_decode.view(torch.float32), offsets,
            output_encode_scale=value if name == "encode_scale" else None,
            output_decode_scale=value if name == "decode_scale" else None,
            out_dtype=_out_dtype(x.dtype), check_tables=False,
            activation="swiglu", intermediate_dtype=_out_dtype(x.dtype),
            bias=self.gate_up_bias, **self._swiglu(), **options)

    def _combine(self, y, pair_rows, weights, hidden_states):
        """nvfp4.moe_combine: per token the fp32 sum of its pairs' rows times
        their weights, in slot order, rounded once to the hidden states'
        type; each product in the promoted type of the rows and the weights,
        as transformers' experts multiply (bf16 for bf16 weights, fp32 for
        DeepSeek-V3's fp32 weights)."""
        return ops.call(
            "moe_combine", y, pair_rows, weights, out_dtype=_out_dtype(hidden_states.dtype),
            product_dtype=_out_dtype(torch.promote_types(y.dtype, weights.dtype)))
