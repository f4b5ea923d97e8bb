"""Checkpoints made by other tools, loaded exactly and run on nvfp4 ops.

``from_pretrained(path, device=..., dtype=torch.bfloat16)`` returns the
``transformers`` model of a checkpoint directory whose quantized linears and
MoE experts run on nvfp4-mlir with the checkpoint's own bytes and scales:

* compressed-tensors ``nvfp4-pack-quantized`` (llmcompressor's NVFP4 = W4A4
  and NVFP4A16 = W4A16 schemes): ``weight_packed`` (uint8 [N, K/2]),
  ``weight_scale`` (E4M3 [N, K/16]), ``weight_global_scale`` (the *encode*
  scale gs: W = e2m1 * scale / gs) and, W4A4, ``input_global_scale`` (the
  activations' encode scale);
* ModelOpt ``NVFP4`` / ``W4A16_NVFP4``: ``weight`` (uint8), ``weight_scale``
  (E4M3), ``weight_scale_2`` (the *decode* scale: W = e2m1 * scale *
  scale_2) and, W4A4, ``input_scale`` (the activations' decode scale);
* gpt-oss ``mxfp4``: the experts' ``*_blocks`` (FP4 pairs) and ``*_scales``
  (UE8M0), bf16 activations (W4A16).

All three pack element 2i in the low nibble of byte i, as docs/spec.md does,
so values and scales are used byte for byte (scales are swizzled into the
128x4 layout at load). What each format defines and where our order of
operations differs by a rounding (docs/spec.md 2.9):

* a weight's global scale becomes the matmul's fp32 ``b_decode_scale``:
  ModelOpt's ``weight_scale_2`` as stored, compressed-tensors' ``1 / gs``
  rounded once to fp32. The product is then fl(fl(1/gs) * sum(x * e2m1 *
  scale)) where compressed-tensors' decompression computes e2m1 * fl(scale /
  gs) per weight (and rounds it to the model dtype): the two differ by at
  most 2^-23 relative before that dtype rounding, which ours does not do.
* W4A4 activations are quantized by nvfp4.quantize with the stored scale as
  its ``encode_scale`` (compressed-tensors) or ``decode_scale`` (ModelOpt)
  (docs/spec.md 2.2, TransformerEngine's arithmetic); the producers'
  fake-quantization divides by fl(scale / gs) instead of multiplying by
  fl(gs / scale), and compressed-tensors forms amax / 6 in the activations'
  dtype: codes can differ where a value lies within a rounding of a code
  boundary (python/tests/test_models.py measures how often).

MoE experts (transformers' fused SwiGLU experts: Qwen2/3-MoE, Mixtral,
DeepSeek-V2/V3, OLMoE, GLM-4-MoE...; and gpt-oss's ``GptOssExperts``) become
one module that routes in torch (tokens sorted by expert, stable, and
``group_offsets``) and runs each projection as one grouped matmul over all
experts (``nvfp4.nn.GroupedExperts``); the weighted combine sums each
token's k outputs in a fixed order, so results are deterministic.
"""

from __future__ import annotations

import fnmatch
import functools
import inspect
import json
import os
import re
from typing import Optional

import torch

from . import nn as nvnn
from . import ops as _ops  # noqa: F401  (registers torch.ops.nvfp4)
from .nn import MoEExperts  # noqa: F401  (the MoE block is nvfp4.nn's)

__all__ = ["from_pretrained", "MoEExperts", "CheckpointError", "GraphDecoder"]


class CheckpointError(ValueError):
    """A checkpoint this loader cannot run exactly (the message says why)."""


# ---------------------------------------------------------------------------
# Reading tensors
# ---------------------------------------------------------------------------

class _Checkpoint:
    """The tensors of a safetensors checkpoint directory, read on demand."""

    def __init__(self, path: str):
        from safetensors import safe_open
        index = os.path.join(path, "model.safetensors.index.json")
        if os.path.exists(index):
            with open(index) as f:
                files = sorted(set(json.load(f)["weight_map"].values()))
        else:
            files = sorted(f for f in os.listdir(path) if f.endswith(".safetensors"))
        if not files:
            raise CheckpointError(f"{path}: no .safetensors files")
        self._where = {}
        self._files = {}
        for name in files:
            handle = safe_open(os.path.join(path, name), framework="pt")
            self._files[name] = handle
            for key in handle.keys():
                self._where[key] = (name, key)
        self.used = set()

    def rename_for(self, model):
        """Stored names as `model` names them: the key renamings that
        transformers itself applies when it loads this architecture (e.g.
        Mixtral's block_sparse_moe -> mlp); its merging of per-expert
        tensors is what MoEExperts does here instead."""
        try:
            from transformers.conversion_mapping import extract_weight_conversions_for_model
            from transformers.core_model_loading import WeightRenaming
        except ImportError:  # older transformers: names as stored
            return
        renamings = [t for t in (extract_weight_conversions_for_model(model) or [])
                     if isinstance(t, WeightRenaming)]
        where = {}
        for key, loc in self._where.items():
            for r in renamings:
                key, _ = r.rename_source_key(key)
            where[key] = loc
        self._where = where

    def __contains__(self, key):
        return key in self._where

    def keys(self):
        return self._where.keys()

    def dtype(self, key) -> str:
        """The stored dtype's safetensors name (U8, BF16, F8_E4M3, ...)."""
        name, stored = self._where[key]
        return self._files[name].get_slice(stored).get_dtype()

    def get(self, key, device=None) -> torch.Tensor:
        if key not in self._where:
            raise CheckpointError(f"checkpoint has no tensor {key!r}")
        self.used.add(key)
        name, stored = self._where[key]
        t = self._files[name].get_tensor(stored)
        return t if device is None else t.to(device)


# ---------------------------------------------------------------------------
# Formats
# ---------------------------------------------------------------------------

class _Format:
    """What a format stores per quantized linear; `linear()` returns the
    module's replacement or None when the checkpoint keeps it unquantized."""

    fmt = "nvfp4"
    #: whether quantized layers carry a static activation scale: True (W4A4),
    #: False (W4A16), None (the format's groups differ: the layer says)
    activations = None

    def quantized(self, ckpt, name) -> bool:
        raise NotImplementedError

    def read(self, ckpt, name, device):
        """(values, row-major scales, decode scale, input scale options)
        of the linear at `name`, as stored."""
        raise NotImplementedError

    def weight(self, ckpt, name, device, shape=None):
        """read(), checked: packed bytes [N, K/2], one scale byte per
        16-block [N, K/16], positive finite scalars; `shape` (N, K) when the
        model says what it must be."""
        values, scales, decode, inputs = self.read(ckpt, name, device)

        def bad(what):
            return CheckpointError(f"{name}: {what}")

        if self.activations is not None and bool(inputs) != self.activations:
            raise bad("the format quantizes activations with a static scale (W4A4) but "
                      "the layer has none" if self.activations else
                      "the format is weight-only (W4A16) but the layer has an activation "
                      "scale")

        for key, t in [("decode scale", decode)] + list(inputs.items()):
            if t.numel() != 1 or not bool(torch.isfinite(t).all()) or float(t) <= 0:
                raise bad(f"expected the {key.replace('_', ' ')} to be one positive finite "
                          f"float, got shape {tuple(t.shape)} "
                          f"{t.flatten()[:4].tolist() if t.numel() else []}")
        if values.dtype != torch.uint8 or values.dim() != 2:
            raise bad(f"expected packed FP4 bytes [N, K/2] (uint8), got {values.dtype} "
                      f"{tuple(values.shape)}")
        n, k = values.shape[0], 2 * values.shape[1]
        if scales.dim() != 2 or tuple(scales.shape) != (n, k // 16):
            raise bad(f"expected block scales [N, K/16] = [{n}, {k // 16}], got "
                      f"{tuple(scales.shape)}")
        if shape is not None and (n, k) != tuple(shape):
            raise bad(f"the model's layer is {tuple(shape)} (out, in), the checkpoint's "
                      f"weight {(n, k)}")
        return (values, scales, decode.reshape(()),
                {key: t.reshape(()) for key, t in inputs.items()})

    def linear(self, ckpt, name, module, device):
        if not self.quantized(ckpt, name):
            return None
        values, scales, decode, inputs = self.weight(
            ckpt, name, device, (module.out_features, module.in_features))
        bias = ckpt.get(name + ".bias", device) if name + ".bias" in ckpt else None
        if bias is not None:
            bias = bias.to(module.bias.dtype if module.bias is not None else bias.dtype)
        return nvnn.Linear.from_quantized(values, scales, decode, bias, fmt=self.fmt,
                                          weight_only=not inputs, **inputs)


def _check_nvfp4_args(args, what):
    if args is None:
        return
    if (args.get("num_bits"), args.get("type"), args.get("group_size"),
            args.get("strategy")) != (4, "float", 16, "tensor_group"):
        raise CheckpointError(f"compressed-tensors {what}: expected NVFP4 (4-bit float, "
                              f"group_size 16, tensor_group), got {args}")


class _CompressedTensors(_Format):
    """compressed-tensors ``nvfp4-pack-quantized``."""

    def __init__(self, qc):
        fmt = qc.get("format")
        groups = qc.get("config_groups", {})
        formats = {fmt} | {g.get("format") for g in groups.values() if g.get("format")}
        if formats - {None, "nvfp4-pack-quantized"}:
            raise CheckpointError(f"compressed-tensors format {sorted(formats - {None})}: "
                                  "only nvfp4-pack-quantized is supported")
        kinds = set()
        for g in groups.values():
            _check_nvfp4_args(g.get("weights"), "weights")
            acts = g.get("input_activations")
            _check_nvfp4_args(acts, "input_activations")
            # NVFP4 W4A4: a static global scale, local (per-16) scales
            # computed per call.
            if acts is not None and acts.get("dynamic") != "local":
                raise CheckpointError(
                    f"compressed-tensors input_activations dynamic={acts.get('dynamic')!r}: "
                    "supported is 'local' (a static input_global_scale)")
            kinds.add(acts is not None)
        self.activations = kinds.pop() if len(kinds) == 1 else None

    def quantized(self, ckpt, name):
        return name + ".weight_packed" in ckpt

    def read(self, ckpt, name, device):
        values = ckpt.get(name + ".weight_packed", device)
        scales = ckpt.get(name + ".weight_scale", device).view(torch.uint8)
        gs = ckpt.get(name + ".weight_global_scale").float()
        decode = (1.0 / gs).to(device)  # one fp32 rounding (module docstring)
        inputs = {}
        if name + ".input_global_scale" in ckpt:
            inputs["input_encode_scale"] = ckpt.get(name + ".input_global_scale",
                                                    device).float()
        return values, scales, decode, inputs


class _ModelOpt(_Format):
    """ModelOpt ``NVFP4`` (W4A4) and ``W4A16_NVFP4``."""

    def __init__(self, qc):
        algo = qc.get("quant_algo")
        if algo not in ("NVFP4", "W4A16_NVFP4"):
            raise CheckpointError(f"ModelOpt quant_algo {algo!r}: NVFP4 and W4A16_NVFP4 "
                                  "are supported")
        if qc.get("group_size", 16) != 16:
            raise CheckpointError(f"ModelOpt group_size {qc.get('group_size')}: NVFP4 is 16")
        self.exclude = list(qc.get("exclude_modules") or [])
        self.activations = algo == "NVFP4"

    def quantized(self, ckpt, name):
        if any(fnmatch.fnmatch(name, pat) for pat in self.exclude):
            return False
        return (name + ".weight_scale_2" in ckpt and name + ".weight" in ckpt
                and ckpt.dtype(name + ".weight") == "U8")

    def read(self, ckpt, name, device):
        values = ckpt.get(name + ".weight", device)
        scales = ckpt.get(name + ".weight_scale", device).view(torch.uint8)
        decode = ckpt.get(name + ".weight_scale_2", device).float()
        inputs = {}
        if name + ".input_scale" in ckpt:
            inputs["input_decode_scale"] = ckpt.get(name + ".input_scale", device).float()
        return values, scales, decode, inputs


class _GptOssMxfp4(_Format):
    """gpt-oss's MXFP4 experts (transformers' ``Mxfp4Config``): everything
    else is bf16."""

    fmt = "mxfp4"

    def __init__(self, qc):
        self.exclude = list(qc.get("modules_to_not_convert") or [])

    def quantized(self, ckpt, name):
        return False  # only the experts are MXFP4


def _quant_format(path, config):
    qc = getattr(config, "quantization_config", None)
    if qc is not None and not isinstance(qc, dict):
        qc = qc.to_dict()
    hf_quant = os.path.join(path, "hf_quant_config.json")
    if qc is None and os.path.exists(hf_quant):
        with open(hf_quant) as f:
            qc = dict(json.load(f).get("quantization", {}), quant_method="modelopt")
    if qc is None:
        raise CheckpointError(f"{path}: config.json has no quantization_config (not a "
                              "quantized checkpoint)")
    method = qc.get("quant_method")
    if method == "compressed-tensors":
        return _CompressedTensors(qc)
    if method == "modelopt":
        return _ModelOpt(qc)
    if method == "mxfp4":
        return _GptOssMxfp4(qc)
    raise CheckpointError(f"quant_method {method!r}: supported are compressed-tensors "
                          "(nvfp4-pack-quantized), modelopt (NVFP4) and mxfp4 (gpt-oss)")


# ---------------------------------------------------------------------------
# MoE experts
# ---------------------------------------------------------------------------

def _grouped_experts(parts):
    """GroupedExperts of per-expert (values, scales, decode, input options)."""
    inputs = parts[0][3]
    if any(p[3].keys() != inputs.keys() for p in parts):
        raise CheckpointError("experts of one layer differ in whether (or which) static "
                              "activation scale they store")
    kw = {}
    if inputs:
        (key,) = inputs.keys()
        vals = torch.stack([p[3][key] for p in parts])
        # One scale for all experts' tokens where they agree, else one per
        # expert (GroupedExperts quantizes each expert's tokens with its own).
        kw[key] = vals[0] if torch.all(vals == vals[0]) else vals
    return nvnn.GroupedExperts.from_quantized(
        torch.stack([p[0] for p in parts]), torch.stack([p[1] for p in parts]),
        torch.stack([p[2].reshape(()) for p in parts]), weight_only=not inputs,
        check_tables=False, **kw)


#: How checkpoints name each expert's gate, up and down projections:
#: Qwen2/3-MoE, DeepSeek-V2/V3, OLMoE, GLM-4-MoE...; Mixtral (w1, w3, w2).
_EXPERT_NAMES = (("gate_proj", "up_proj", "down_proj"), ("w1", "w3", "w2"))


def _swiglu_experts(fmt_obj, ckpt, name, module, device):
    """transformers' fused SwiGLU experts (gate_up_proj [E, 2I, H],
    down_proj [E, H, I], act_fn; forward(hidden, top_k_index,
    top_k_weights)) from the checkpoint's per-expert linears."""
    e = module.num_experts
    for names in _EXPERT_NAMES:
        proj = {p: [f"{name}.{i}.{n}" for i in range(e)]
                for p, n in zip(("gate", "up", "down"), names)}
        if all(fmt_obj.quantized(ckpt, n) for ns in proj.values() for n in ns):
            break
    else:
        return None
    if type(module.act_fn).__name__ not in ("SiLUActivation", "SiLU"):
        raise CheckpointError(f"{name}: activation {module.act_fn} (silu expected)")
    e, two_i, h = module.gate_up_proj.shape
    want = {"gate": (two_i // 2, h), "up": (two_i // 2, h), "down": (h, two_i // 2)}
    w = {p: [fmt_obj.weight(ckpt, n, device, want[p]) for n in names]
         for p, names in proj.items()}
    down = _grouped_experts(w["down"])

    def same(a, b):
        return (torch.equal(a[2].reshape(()), b[2].reshape(())) and a[3].keys() == b[3].keys()
                and all(torch.equal(a[3][key], b[3][key]) for key in a[3]))

    if all(same(a, b) for a, b in zip(w["gate"], w["up"])):
        # One matmul: each expert's gate rows, then its up rows (as
        # transformers stores gate_up_proj), under their shared scales.
        fused = [(torch.cat([a[0], b[0]]), torch.cat([a[1], b[1]]), a[2], a[3])
                 for a, b in zip(w["gate"], w["up"])]
        return MoEExperts(down, gate_up=_grouped_experts(fused))
    return MoEExperts(down, gate=_grouped_experts(w["gate"]),
                      up=_grouped_experts(w["up"]))


def _gpt_oss_experts(fmt_obj, ckpt, name, module, device):
    """GptOssExperts from MXFP4 blocks/scales (W4A16)."""
    if f"{name}.gate_up_proj_blocks" not in ckpt:
        return None

    def grouped(proj):
        blocks = ckpt.get(f"{name}.{proj}_blocks", device)   # [E, N, K/32, 16]
        scales = ckpt.get(f"{name}.{proj}_scales", device)   # [E, N, K/32]
        # the model holds x @ W: [E, K, N]; the checkpoint W's rows [E, N, K]
        e, k, n = getattr(module, proj).shape
        if (blocks.dtype != torch.uint8 or tuple(blocks.shape) != (e, n, k // 32, 16)
                or tuple(scales.shape) != (e, n, k // 32)):
            raise CheckpointError(f"{name}.{proj}: expected MXFP4 blocks [E, N, K/32, 16] = "
                                  f"{[e, n, k // 32, 16]} (uint8) and scales {[e, n, k // 32]}, "
                                  f"got {blocks.dtype} {tuple(blocks.shape)} and "
                                  f"{tuple(scales.shape)}")
        kb = k // 32
        return nvnn.GroupedExperts.from_quantized(blocks.reshape(e, n, kb * 16), scales,
                                                  None, fmt="mxfp4", weight_only=True,
                                                  check_tables=False)

    dtype = module.gate_up_proj_bias.dtype
    return MoEExperts(grouped("down_proj"), gate_up=grouped("gate_up_proj"), interleaved=True,
                      gate_up_bias=ckpt.get(f"{name}.gate_up_proj_bias", device).to(dtype),
                      down_bias=ckpt.get(f"{name}.down_proj_bias", device).to(dtype),
                      activation="gpt_oss", limit=module.limit, alpha=module.alpha)


def _experts_builder(module):
    """The builder for a transformers experts module, or None."""
    if type(module).__name__ == "GptOssExperts":
        return _gpt_oss_experts
    params = dict(module.named_parameters(recurse=False))
    gate_up, down = params.get("gate_up_proj"), params.get("down_proj")
    if (gate_up is None or down is None or not hasattr(module, "act_fn")
            or not hasattr(module, "num_experts") or gate_up.dim() != 3):
        return None
    e, two_i, h = gate_up.shape
    # [E, 2I, H] and [E, H, I] (Llama 4's experts are [E, H, 2I], and run
    # differently: the signature check below)
    if down.shape != (e, h, two_i // 2):
        return None
    if list(inspect.signature(module.forward).parameters)[:3] != [
            "hidden_states", "top_k_index", "top_k_weights"]:
        return None
    return _swiglu_experts


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------

def _set(root, name, module):
    parent, _, child = name.rpartition(".")
    setattr(root.get_submodule(parent) if parent else root, child, module)


def _materialize(model, ckpt, device, dtype):
    """Parameters and persistent buffers still on the meta device come from
    the checkpoint; modules with non-persistent state computed at
    construction (rotary embeddings) are built again on `device`."""
    for name, module in list(model.named_modules()):
        meta_buffers = [b for b, t in module.named_buffers(recurse=False)
                        if t is not None and t.is_meta
                        and b in module._non_persistent_buffers_set]
        if meta_buffers and name and hasattr(module, "config"):
            with torch.device(device):
                _set(model, name, type(module)(module.config))
    for name, module in model.named_modules():
        for pname, p in list(module.named_parameters(recurse=False)):
            if p is None or not p.is_meta:
                continue
            key = f"{name}.{pname}" if name else pname
            if key not in ckpt:
                continue  # tied weights are set by tie_weights()
            t = ckpt.get(key, device)
            if t.is_floating_point():
                # the model's dtype, or what the model keeps in fp32
                t = t.to(p.dtype if p.is_floating_point() else dtype)
            module._parameters[pname] = torch.nn.Parameter(t, requires_grad=False)
        for bname, b in list(module.named_buffers(recurse=False)):
            if b is None or not b.is_meta:
                continue
            key = f"{name}.{bname}" if name else bname
            module._buffers[bname] = ckpt.get(key, device)
    if getattr(model.config, "tie_word_embeddings", False):
        model.tie_weights()
    left = [n for n, p in list(model.named_parameters()) + list(model.named_buffers())
            if p.is_meta]
    if left:
        raise CheckpointError(f"the checkpoint lacks {len(left)} tensor(s) the model needs, "
                              f"e.g. {left[:3]}")


def from_pretrained(path: str, device="cpu", dtype: torch.dtype = torch.bfloat16,
                    model_class=None):
    """The transformers model of the quantized checkpoint at `path`, its
    quantized linears (nvfp4.nn.Linear) and MoE experts (MoEExperts) on the
    checkpoint's own bytes and scales, everything else in `dtype`, on
    `device` ("cpu" runs the CPU reference path, "cuda" the GPU kernels).
    Raises CheckpointError for what it cannot run exactly."""
    import transformers

    config = transformers.AutoConfig.from_pretrained(path)
    fmt = _quant_format(path, config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    cls = model_class or transformers.AutoModelForCausalLM
    with torch.device("meta"):
        model = cls.from_config(config, dtype=dtype)
    ckpt = _Checkpoint(path)
    device = torch.device(device)
    replaced = 0
    ckpt.rename_for(model)
    for name, module in list(model.named_modules()):
        builder = _experts_builder(module)
        if builder is not None:
            new = builder(fmt, ckpt, name, module, device)
        elif isinstance(module, torch.nn.Linear):
            new = fmt.linear(ckpt, name, module, device)
        else:
            continue
        if new is not None:
            _set(model, name, new)
            replaced += 1
    if not replaced:
        raise CheckpointError(f"{path}: no quantized module found for this "
                              f"{type(fmt).__name__.strip('_')} checkpoint")
    _materialize(model, ckpt, device, dtype)
    unused = [k for k in ckpt.keys() if k not in ckpt.used
              and not re.search(r"\.(weight_zero_point|k_scale|v_scale)$", k)]
    if unused:
        raise CheckpointError(f"{len(unused)} checkpoint tensor(s) were not used, e.g. "
                              f"{unused[:3]}: this loader does not know that layout")
    model.eval()
    # generate() with a static cache on CUDA would compile the decode step
    # (torch.compile, mode="reduce-overhead") by itself: over our custom ops
    # that gives other logits than the eager step (an H100, 2026-11-27: a
    # Qwen3-MoE NVFP4A16 model's decode logits up to 3.3 apart, tokens
    # differing; docs/design/findings.md). Off by default; GraphDecoder records
    # the decode step as a CUDA graph without it.
    model.generation_config.disable_compile = True
    model.nvfp4_quantized_modules = replaced
    return model


# ---------------------------------------------------------------------------
# Decode steps as CUDA graphs
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _sliding_ring_class():
    """A ring-buffer form of transformers' StaticSlidingWindowLayer, for
    GraphDecoder (the class comment there). A prompt runs through
    transformers' own update (its keys in position order, the window's last
    W kept), after which the window is rotated into ring order: position p in
    slot p % W. A decode step (``ring`` set) writes its position at the slot
    its device length selects, so one recorded step replays at any position;
    its attention mask, which GraphDecoder passes, shows slot s once position
    s has been written (s <= the query position)."""
    from transformers.cache_utils import StaticSlidingWindowLayer

    class SlidingRing(StaticSlidingWindowLayer):
        ring = False

        def update(self, key_states, value_states, *args, **kwargs):
            if not self.ring:
                out = super().update(key_states, value_states, *args, **kwargs)
                t, w = key_states.shape[-2], self.max_cache_len
                if t > w:
                    # The prompt (from an empty cache) outgrew the window:
                    # slot i holds position t - w + i, which belongs in
                    # slot (t - w + i) % w.
                    self.keys.copy_(self.keys.roll(t % w, dims=-2))
                    self.values.copy_(self.values.roll(t % w, dims=-2))
                return out
            slot = self.cumulative_length % self.max_cache_len
            self.keys.index_copy_(2, slot, key_states)
            self.values.index_copy_(2, slot, value_states)
            self.cumulative_length.add_(key_states.shape[-2])
            return self.keys, self.values

    return SlidingRing


class GraphDecoder:
    """Greedy decoding of a transformers causal LM with a static KV cache,
    each decode step one CUDA graph replay (on the CPU: the same steps,
    eager). The step is recorded once, at the first step (the nvfp4 ops
    launch on torch's current stream and allocate their outputs from torch,
    so they are recorded like any other op), and replayed for every later
    step and prompt with the next token and its position copied into the
    graph's input buffers; the static cache advances its own length in the
    replay.

        dec = GraphDecoder(model, batch=1, max_len=prompt + new_tokens)
        tokens = dec.generate(ids, new_tokens)   # [batch, new_tokens]

    ``step_logits`` replays one step (benchmarks time it); graphs=False runs
    the steps eagerly (the same kernels: the same tokens).

    Sliding-window attention layers (gpt-oss's): transformers' sliding
    layer keeps the window in position order, rolling it by one per step
    past the window, and builds the step's attention mask from a Python
    count; a recorded step would replay the count (and the mask) of the step
    it was recorded at. The decoder gives such a layer a ring buffer of the
    window's W slots instead (position p in slot p % W, the slot chosen on
    the device) and passes every decode step's masks itself, computed in the
    step from the position buffer: slot s visible once position s has been
    written, a full layer's position j once j <= the query position. The
    attention then sums the window's keys in slot order, not position order
    (the same terms; fp32 sums in another order). The masks are built for
    the ``eager`` and ``sdpa`` attention implementations (the model's
    ``config._attn_implementation``): a model with sliding layers and
    another implementation is refused.
    """

    def __init__(self, model, batch: int, max_len: int, graphs: bool = True):
        from transformers import StaticCache
        self.model = model
        self.device = next(model.parameters()).device
        self.cache = StaticCache(config=model.config, max_cache_len=max_len)
        self.ids = torch.zeros(batch, 1, dtype=torch.long, device=self.device)
        self.pos = torch.zeros(batch, 1, dtype=torch.long, device=self.device)
        self.length = 0
        self.max_len = max_len
        self.graph = None
        self.logits = None
        # One recording stream for the decoder's life (the nvfp4 runtime
        # keeps a workspace per stream).
        self.graphs = graphs and self.device.type == "cuda"
        self.stream = torch.cuda.Stream(self.device) if self.graphs else None
        self.sliding = []
        for i, layer in enumerate(self.cache.layers):
            if getattr(layer, "is_sliding", False):
                if not (hasattr(layer, "cumulative_length_int") and
                        hasattr(layer, "cumulative_length")):
                    raise ValueError(f"{type(layer).__name__}: a sliding-window cache layer "
                                     "without the lengths GraphDecoder relies on (transformers "
                                     "5.24's StaticSlidingWindowLayer)")
                w = layer.max_cache_len  # min(the window, max_len)
                self.cache.layers[i] = _sliding_ring_class()(max_cache_len=w, sliding_window=w)
                self.sliding.append(self.cache.layers[i])
        self.attn = getattr(model.config, "_attn_implementation", None)
        if self.sliding and self.attn not in ("eager", "sdpa"):
            raise ValueError(f"GraphDecoder builds the masks of sliding-window layers for the "
                             f"eager and sdpa attention implementations; this model uses "
                             f"{self.attn!r}")
        if self.sliding:
            # The key positions the masks compare with the query's: once,
            # not in every step.
            window = self.sliding[0].max_cache_len
            self.slots = {n: torch.arange(n, device=self.device).view(1, 1, 1, n)
                          for n in {window, max_len}}
            self.window = window
            self.layer_types = getattr(model.config, "layer_types", None)

    def _masks(self):
        """The decode step's attention masks, from the position buffer
        (None: transformers builds them; the class comment)."""
        if not self.sliding:
            return None

        def visible(n):
            keep = self.slots[n] <= self.pos.view(-1, 1, 1, 1)
            if self.attn == "sdpa":
                return keep  # transformers' sdpa masks: True where visible
            # eager: added to the scores, the dtype's lowest where hidden
            dtype = self.model.dtype
            return torch.full(keep.shape, torch.finfo(dtype).min, dtype=dtype,
                              device=self.device).masked_fill_(keep, 0)

        sliding = visible(self.window)
        if not self.layer_types or set(self.layer_types) == {"sliding_attention"}:
            return sliding
        return {"full_attention": visible(self.max_len), "sliding_attention": sliding}

    def _forward(self):
        for layer in self.sliding:
            layer.ring = True
        return self.model(self.ids, cache=self.cache, position_ids=self.pos,
                          attention_mask=self._masks(), logits_to_keep=1).logits[:, -1]

    def _set_length(self, length):
        # transformers' StaticCache layers keep their length on the device
        # (cumulative_length): a replayed step advances it.
        for layer in self.cache.layers:
            if hasattr(layer, "cumulative_length"):
                layer.cumulative_length.fill_(length)
        self.length = length

    @torch.no_grad()
    def prefill(self, prompt):
        """Runs the prompt [batch, T] into the cache (eager); returns the
        last position's logits [batch, vocab]."""
        batch, t = prompt.shape
        if batch != self.ids.shape[0] or not 0 < t < self.max_len:
            raise ValueError(f"prompt of shape {tuple(prompt.shape)}: this decoder takes "
                             f"[{self.ids.shape[0]}, T] with 0 < T < {self.max_len}")
        pos = torch.arange(t, device=self.device).expand(batch, -1)
        # From an empty cache (a later prompt's too); the sliding layers in
        # transformers' own prompt update (the class comment).
        self._set_length(0)
        for layer in self.sliding:
            layer.ring = False
            layer.cumulative_length_int = 0
        logits = self.model(prompt.to(self.device), cache=self.cache, position_ids=pos,
                            logits_to_keep=1).logits[:, -1]
        self._set_length(t)
        return logits

    def _record(self):
        length = self.length
        # Two eager steps (first calls compile the nvfp4 programs and
        # allocate their tables outside the graph), then the recording on a
        # side stream; the cache length is put back after each, so the
        # step's KV entries are written again by the replay.
        for _ in range(2):
            self._forward()
            self._set_length(length)
        torch.cuda.synchronize(self.device)
        self.graph = torch.cuda.CUDAGraph()
        stream = self.stream
        stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(stream):
            with torch.cuda.graph(self.graph, stream=stream):
                self.logits = self._forward()
        torch.cuda.current_stream(self.device).wait_stream(stream)
        self._set_length(length)

    @torch.no_grad()
    def step_logits(self, tokens):
        """One decode step: `tokens` [batch] at the current length; returns
        the logits [batch, vocab] (on CUDA, a buffer the next step
        overwrites)."""
        if self.length >= self.max_len:
            raise ValueError(f"the cache holds {self.max_len} positions: all are used")
        if tokens.numel() != self.ids.shape[0]:
            raise ValueError(f"{tokens.numel()} tokens for a batch of {self.ids.shape[0]}")
        self.ids.copy_(tokens.reshape(-1, 1))
        self.pos.fill_(self.length)
        if not self.graphs:
            out = self._forward()
        else:
            if self.graph is None:
                self._record()
            self.graph.replay()
            out = self.logits
        self.length += 1
        return out

    @torch.no_grad()
    def generate(self, prompt, new_tokens: int):
        """Greedy: the next `new_tokens` tokens [batch, new_tokens]."""
        out = []
        token = self.prefill(prompt).argmax(-1)
        for i in range(new_tokens):
            out.append(token)
            if i + 1 < new_tokens:
                token = self.step_logits(token).argmax(-1)
        return torch.stack(out, 1)
