"""Quantized checkpoints made by the tools that define their formats, for
tests of nvfp4.models: tiny random-weight transformers models quantized and
saved by compressed-tensors (NVFP4 / NVFP4A16, nvfp4-pack-quantized), by
ModelOpt's own quantizer and exporter (NVFP4 / W4A16_NVFP4), and gpt-oss's
MXFP4 layout checked against transformers' own MXFP4 dequantization.

Each maker returns the directory and the producer's reference: the model
as the producer runs it (fake-quantized forward) and the producer's own
dequantization of every quantized weight.
"""

from __future__ import annotations

import copy
import json
import os

import numpy as np
import torch

#: the calibration (and test) tokens of the tiny models
VOCAB = 256


def tiny_config(kind: str):
    """A small config of each supported architecture (every K a multiple of
    the 32 of MXFP4 and of the 128x4 scale tiles' 4 x 16)."""
    import transformers as tf
    common = dict(vocab_size=VOCAB, hidden_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                  max_position_embeddings=128, tie_word_embeddings=False)
    if kind == "llama":
        return tf.LlamaConfig(intermediate_size=256, **common)
    if kind == "qwen3":
        return tf.Qwen3Config(intermediate_size=256, **common)
    if kind == "qwen3_moe":
        return tf.Qwen3MoeConfig(intermediate_size=256, moe_intermediate_size=64,
                                 num_experts=4, num_experts_per_tok=2, decoder_sparse_step=1,
                                 mlp_only_layers=[], norm_topk_prob=True, **common)
    if kind == "mixtral":
        return tf.MixtralConfig(intermediate_size=64, num_local_experts=4,
                                num_experts_per_tok=2, **common)
    if kind == "deepseek_v3":
        return tf.DeepseekV3Config(
            intermediate_size=256, moe_intermediate_size=64, n_routed_experts=4,
            num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1, n_group=2,
            topk_group=1, q_lora_rank=64, kv_lora_rank=64, qk_rope_head_dim=16,
            qk_nope_head_dim=32, v_head_dim=32,
            **dict(common, num_key_value_heads=4, head_dim=16))
    if kind == "gpt_oss":
        return tf.GptOssConfig(intermediate_size=64, num_local_experts=4,
                               num_experts_per_tok=2, sliding_window=16,
                               layer_types=["sliding_attention", "full_attention"],
                               **{k: v for k, v in common.items()
                                  if k != "tie_word_embeddings"})
    raise ValueError(kind)


def tiny_model(kind: str, seed: int = 0, **overrides):
    """A random-weight bf16 model; weights drawn wider than the default
    init so that activations and logits are not all tiny. `overrides` set
    config fields (e.g. tie_word_embeddings=True)."""
    import transformers as tf
    torch.manual_seed(seed)
    config = tiny_config(kind)
    for key, value in overrides.items():
        setattr(config, key, value)
    model = tf.AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.config.architectures = [type(model).__name__]
    return random_weights(model, 0.08).eval()


def random_weights(model, std):
    """Matrices N(0, std), norms N(1, 0.1), other vectors N(0, 0.05)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0, std)
            elif "norm" in name:
                p.normal_(1.0, 0.1)
            else:
                p.normal_(0, 0.05)
    return model


def calibration_ids(seed: int, batch: int = 4, length: int = 32):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, VOCAB, (batch, length), generator=g)


class split_k_linear:
    """Within: torch.nn.functional.linear sums each output's K products in
    fp32 as two halves added at the end (another summation order than
    torch's own kernel), rounded once to the input dtype."""

    def __enter__(self):
        self.saved = torch.nn.functional.linear

        def linear(x, w, b=None):
            h = x.shape[-1] // 2
            y = (x[..., :h].float() @ w[:, :h].float().T
                 + x[..., h:].float() @ w[:, h:].float().T)
            if b is not None:
                y = y + b.float()
            return y.to(x.dtype)

        torch.nn.functional.linear = linear
        return self

    def __exit__(self, *exc):
        torch.nn.functional.linear = self.saved


def relative_rms(a, b):
    """||a - b|| / ||b|| over all elements."""
    return float((a.float() - b.float()).norm() / b.float().norm())


def token_relative_errors(a, b):
    """||a_t - b_t|| / ||b_t|| for each position t (rows of the last axis)."""
    a, b = a.float().reshape(-1, a.shape[-1]), b.float().reshape(-1, b.shape[-1])
    return (a - b).norm(dim=-1) / b.norm(dim=-1)


# ---------------------------------------------------------------------------
# compressed-tensors
# ---------------------------------------------------------------------------

class _ExpertMLP(torch.nn.Module):
    def __init__(self, gate, up, down, act, names):
        super().__init__()
        self.names = names
        for n, m in zip(names, (gate, up, down)):
            setattr(self, n, m)
        self.act = act

    def forward(self, x):
        gate, up, down = (getattr(self, n) for n in self.names)
        return down(self.act(gate(x)) * up(x))


class LinearExperts(torch.nn.ModuleList):
    """transformers' fused SwiGLU experts (Qwen3MoeExperts, MixtralExperts,
    DeepseekV3Experts) as one torch.nn.Linear per projection and expert (the
    form compressed-tensors quantizes and saves: experts.{e}.gate_proj...,
    Mixtral's experts.{e}.w1...), computing what they compute."""

    def __init__(self, experts, names=("gate_proj", "up_proj", "down_proj")):
        mods = []
        inter = experts.intermediate_dim
        for e in range(experts.num_experts):
            def lin(w):
                m = torch.nn.Linear(w.shape[1], w.shape[0], bias=False, dtype=w.dtype,
                                    device=w.device)
                m.weight.data.copy_(w)
                return m
            gu = experts.gate_up_proj.data[e]
            mods.append(_ExpertMLP(lin(gu[:inter]), lin(gu[inter:]),
                                   lin(experts.down_proj.data[e]), experts.act_fn, names))
        super().__init__(mods)
        self.num_experts = experts.num_experts

    def forward(self, hidden_states, top_k_index, top_k_weights):
        out = torch.zeros_like(hidden_states)
        for e in range(self.num_experts):
            pos, tok = torch.where(top_k_index.T == e)
            if tok.numel():
                y = self[e](hidden_states[tok]) * top_k_weights[tok, pos, None]
                out.index_add_(0, tok, y.to(out.dtype))
        return out


#: transformers' fused experts modules and how their checkpoints name each
#: expert's gate, up and down projections
_EXPERT_NAMES = {"Qwen3MoeExperts": ("gate_proj", "up_proj", "down_proj"),
                 "DeepseekV3Experts": ("gate_proj", "up_proj", "down_proj"),
                 "MixtralExperts": ("w1", "w3", "w2")}


def _linearize_experts(model):
    for name, module in list(model.named_modules()):
        names = _EXPERT_NAMES.get(type(module).__name__)
        if names:
            parent = model.get_submodule(name.rpartition(".")[0])
            parent.experts = LinearExperts(module, names)


def _fused_groups(names):
    """llmcompressor's shared global scales: q/k/v of one attention and
    gate/up of one MLP (or expert) share the smallest of their scales."""
    groups = {}
    for n in names:
        parent, _, leaf = n.rpartition(".")
        key = {"q_proj": "qkv", "k_proj": "qkv", "v_proj": "qkv",
               "gate_proj": "gu", "up_proj": "gu"}.get(leaf)
        groups.setdefault((parent, key) if key else (n, None), []).append(n)
    return list(groups.values())


def compressed_tensors_checkpoint(model, scheme: str, out: str, seed: int = 1,
                                  shared_expert_input_scale: bool = False,
                                  references: bool = True, max_shard_size=None):
    """Quantizes `model` (in place) with compressed-tensors' `scheme`
    ("NVFP4" or "NVFP4A16"; lm_head and MoE routers stay bf16), calibrates
    as llmcompressor does (weights: amax per tensor and per 16-block, with
    q/k/v and gate/up sharing a global scale; W4A4 inputs: the static
    global scale of the activations' amax over calibration tokens), and
    saves it in nvfp4-pack-quantized form. Returns the producer's reference
    logits of calibration_ids(seed + 1) (its fake-quantized forward), and
    the same forward with every linear's fp32 sums reordered
    (split_k_linear), and in fp32 instead of bf16 (weights, activations and
    qparams): how far summation order and the dtype's rounding alone move
    the logits. shared_expert_input_scale: one activation scale for all
    experts of a layer (the smallest: the largest amax), as runtimes that
    quantize an MoE layer's tokens once need."""
    from compressed_tensors.compressors import ModelCompressor
    from compressed_tensors.quantization import (QuantizationConfig, QuantizationStatus,
                                                 apply_quantization_config,
                                                 preset_name_to_scheme)
    from compressed_tensors.quantization.utils import calculate_qparams, generate_gparam

    _linearize_experts(model)
    qc = QuantizationConfig(
        config_groups={"group_0": preset_name_to_scheme(scheme, ["Linear"])},
        ignore=["lm_head", "re:.*mlp.gate$"], quantization_status=QuantizationStatus.FROZEN)
    apply_quantization_config(model, qc, show_progress=False)
    quantized = {n: m for n, m in model.named_modules() if hasattr(m, "weight_global_scale")}
    with torch.no_grad():
        # Weights.
        for group in _fused_groups(quantized):
            gs = torch.stack([generate_gparam(quantized[n].weight.float().min(),
                                              quantized[n].weight.float().max())
                              for n in group]).min(0).values
            for n in group:
                m = quantized[n]
                w = m.weight.float().unflatten(-1, (-1, 16))
                scale, zp = calculate_qparams(w.amin(-1), w.amax(-1),
                                              m.quantization_scheme.weights, global_scale=gs)
                m.weight_global_scale.data.copy_(gs)
                m.weight_scale.data.copy_(scale.to(m.weight_scale.dtype))
                m.weight_zero_point.data.copy_(zp.to(m.weight_zero_point.dtype))
        # W4A4: the activations' static global scale from calibration.
        if scheme == "NVFP4":
            amax = {}

            def hook(name):
                def record(_, args):
                    a = args[0].detach().abs().float().max()
                    amax[name] = torch.maximum(amax.get(name, a), a)
                return record

            for m in quantized.values():
                m.quantization_enabled = False
            handles = [m.register_forward_pre_hook(hook(n)) for n, m in quantized.items()]
            model(calibration_ids(seed).to(model.device))
            for h in handles:
                h.remove()
            for n, m in quantized.items():
                m.quantization_enabled = True
                # An expert no calibration token reached keeps a scale of 1.
                a = amax.get(n, torch.tensor(1.0, device=model.device))
                m.input_global_scale.data.copy_(generate_gparam(-a, a))
            if shared_expert_input_scale:
                layers = {}
                for n, m in quantized.items():
                    if ".experts." in n:
                        key = (n.split(".experts.")[0], n.rpartition(".")[2])
                        layers.setdefault(key, []).append(m)
                for mods in layers.values():
                    low = torch.stack([m.input_global_scale.data for m in mods]).min(0).values
                    for m in mods:
                        m.input_global_scale.data.copy_(low)
        reference = reordered = fp32 = None
        if references:
            ids = calibration_ids(seed + 1).to(model.device)
            reference = model(ids).logits.float()
            with split_k_linear():
                reordered = model(ids).logits.float()
            fp32 = copy.deepcopy(model).float()(ids).logits.float()
    compressor = ModelCompressor.from_pretrained_model(
        model, quantization_format="nvfp4-pack-quantized")
    compressor.compress_model(model)
    if max_shard_size:
        model.save_pretrained(out, max_shard_size=max_shard_size)
    else:
        model.save_pretrained(out)
    compressor.update_config(out)
    return reference, reordered, fp32


def _saved(ckpt_dir, name, keys):
    """Tensors `name.key` of a one-file checkpoint (None where absent)."""
    from safetensors import safe_open
    with safe_open(os.path.join(ckpt_dir, "model.safetensors"), framework="pt") as f:
        stored = set(f.keys())
        return [f.get_tensor(f"{name}.{k}") if f"{name}.{k}" in stored else None
                for k in keys]


def _compressed_tensors_args(ckpt_dir, which):
    """The saved scheme's QuantizationArgs of `which` (weights,
    input_activations)."""
    from compressed_tensors.quantization import QuantizationArgs
    with open(os.path.join(ckpt_dir, "config.json")) as f:
        qc = json.load(f)["quantization_config"]
    return QuantizationArgs(**qc["config_groups"]["group_0"][which])


def compressed_tensors_weight(ckpt_dir: str, name: str):
    """compressed-tensors' own decompression of one saved linear (its
    unpacking and dequantize) in fp32 where its decompressor ends in the
    model dtype: e2m1 * fl(scale / global_scale), rounded to fp32."""
    from compressed_tensors.compressors.nvfp4.helpers import unpack_fp4_from_uint8
    from compressed_tensors.quantization.lifecycle.forward import dequantize
    args = _compressed_tensors_args(ckpt_dir, "weights")
    packed, scale, gs = _saved(ckpt_dir, name,
                               ("weight_packed", "weight_scale", "weight_global_scale"))
    n, half = packed.shape
    codes = unpack_fp4_from_uint8(packed, n, 2 * half, dtype=torch.float32)
    return dequantize(codes, scale.float(), args=args, dtype=torch.float32,
                      global_scale=gs.float())


def compressed_tensors_input(ckpt_dir: str, name: str, x: torch.Tensor):
    """compressed-tensors' quantization of a W4A4 layer's input x [M, K]
    (in the dtype of x, as its fake-quantized forward does it, with the
    saved input_global_scale), dequantized in float64 without rounding to
    x's dtype: codes * fl(scale / global_scale)."""
    from compressed_tensors.quantization.lifecycle.forward import quantize
    from compressed_tensors.quantization.utils import compute_dynamic_scales_and_zp
    args = _compressed_tensors_args(ckpt_dir, "input_activations")
    (igs,) = _saved(ckpt_dir, name, ("input_global_scale",))
    scale, zp = compute_dynamic_scales_and_zp(x, args, torch.nn.Module(), global_scale=igs)
    codes = quantize(x, scale, zp, args, global_scale=igs)
    per_block = (scale.float() / igs.float()).double()
    return (codes.double().unflatten(-1, (-1, 16)) * per_block[..., None]).flatten(-2)


def bits_of(t: torch.Tensor) -> np.ndarray:
    """A bf16 tensor's bits as numpy uint16 (the reference's bf16 input)."""
    return t.detach().cpu().contiguous().view(torch.int16).numpy().view(np.uint16)


# ---------------------------------------------------------------------------
# ModelOpt
# ---------------------------------------------------------------------------

def modelopt_checkpoint(model, config: str, out: str, seed: int = 1):
    """Quantizes `model` with ModelOpt's `config` ("NVFP4_DEFAULT_CFG" =
    W4A4, "W4A16_NVFP4_CFG"), calibrating on calibration_ids(seed), and
    exports it with export_hf_checkpoint (both run on the CPU)."""
    import modelopt.torch.quantization as mtq
    from modelopt.torch.export import export_hf_checkpoint
    mtq.quantize(model, getattr(mtq, config), forward_loop=lambda m: m(calibration_ids(seed)))
    export_hf_checkpoint(model, export_dir=out)


def modelopt_weight(ckpt_dir: str, name: str, dtype=torch.float32):
    """ModelOpt's own dequantization (NVFP4QTensor.dequantize) of one saved
    linear: e2m1 * fl(weight_scale * weight_scale_2)."""
    from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor
    packed, scale, scale_2 = _saved(ckpt_dir, name,
                                    ("weight", "weight_scale", "weight_scale_2"))
    n, half = packed.shape
    q = NVFP4QTensor(torch.Size((n, 2 * half)), dtype, packed)
    return q.dequantize(dtype=dtype, scale=scale, double_scale=scale_2.float(),
                        block_sizes={-1: 16})


def modelopt_input(ckpt_dir: str, name: str, x: torch.Tensor):
    """ModelOpt's NVFP4 quantization of a W4A4 layer's input x [M, K] with the
    saved input_scale (NVFP4QTensor.quantize, its static-global path),
    dequantized by NVFP4QTensor.dequantize in float64."""
    (input_scale,) = _saved(ckpt_dir, name, ("input_scale",))
    return _modelopt_qdq(x, input_scale)


def _modelopt_qdq(x, input_scale):
    from modelopt.torch.quantization.qtensor.nvfp4_tensor import NVFP4QTensor
    q, scale, scale_2 = NVFP4QTensor.quantize(x, 16, weights_scaling_factor_2=input_scale.float())
    return q.dequantize(dtype=torch.float64, scale=scale, double_scale=scale_2,
                        block_sizes={-1: 16})


def modelopt_reference_model(ckpt_dir: str, kind: str, seed: int = 0):
    """The exported checkpoint run as ModelOpt's own functions define it, on
    the CPU (ModelOpt's fake-quantized forward needs CUDA): a bf16
    transformers model whose quantized linears hold NVFP4QTensor's
    dequantized weights (rounded to bf16, as a fake-quantized bf16 model
    holds them) and, W4A4, quantize-dequantize their inputs with
    NVFP4QTensor and the saved input_scale. MoE experts run as one Linear
    per expert (LinearExperts)."""
    from safetensors.torch import load_file
    model = tiny_model(kind, seed)
    _linearize_experts(model)  # one Linear per expert, as ModelOpt exports them
    saved = load_file(os.path.join(ckpt_dir, "model.safetensors"))
    with torch.no_grad():
        for name, m in model.named_modules():
            if not isinstance(m, torch.nn.Linear):
                continue
            if f"{name}.weight_scale_2" not in saved:
                m.weight.copy_(saved[f"{name}.weight"])
                continue
            m.weight.copy_(modelopt_weight(ckpt_dir, name).to(m.weight.dtype))
            input_scale = saved.get(f"{name}.input_scale")
            if input_scale is not None:
                def qdq(mod, args, input_scale=input_scale):
                    x = args[0]
                    flat = x.reshape(-1, x.shape[-1])
                    return (_modelopt_qdq(flat, input_scale).to(x.dtype).reshape(x.shape),)
                m.register_forward_pre_hook(qdq)
    return model


# ---------------------------------------------------------------------------
# gpt-oss MXFP4
# ---------------------------------------------------------------------------

def _mxfp4_blocks(w: torch.Tensor):
    """[E, N, K] -> blocks [E, N, K/32, 16] (FP4 pairs, even element in the
    low nibble) and UE8M0 scales [E, N, K/32]: the OCP MX quantization of
    nvfp4.reference (the format's bytes are what transformers reads)."""
    from nvfp4 import reference as ref
    e, n, k = w.shape
    q, s = ref.quantize_mxfp4(bits_of(w.to(torch.bfloat16).reshape(e * n, k)),
                              scale_rule="floor")
    return (torch.from_numpy(np.ascontiguousarray(q)).reshape(e, n, k // 32, 16),
            torch.from_numpy(np.ascontiguousarray(s)).reshape(e, n, k // 32))


def gpt_oss_checkpoint(model, out: str):
    """A tiny gpt-oss model saved as OpenAI's MXFP4 checkpoints are: the
    experts' `*_blocks` / `*_scales` (projections stored [E, N, K] over the
    output rows, gate and up interleaved as the model's gate_up_proj
    columns are) with bf16 biases, everything else bf16, and
    quantization_config {"quant_method": "mxfp4"}."""
    from safetensors.torch import save_file
    tensors = {}
    for name, t in model.state_dict().items():
        if name.endswith("experts.gate_up_proj") or name.endswith("experts.down_proj"):
            blocks, scales = _mxfp4_blocks(t.transpose(1, 2).contiguous())
            tensors[name + "_blocks"], tensors[name + "_scales"] = blocks, scales
        else:
            tensors[name] = t.contiguous()
    os.makedirs(out, exist_ok=True)
    save_file(tensors, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    config = model.config.to_dict()
    config["quantization_config"] = {
        "quant_method": "mxfp4",
        "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                   "model.embed_tokens", "lm_head"]}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)


def gpt_oss_reference_model(ckpt_dir: str):
    """transformers' own reading of the MXFP4 checkpoint:
    from_pretrained with Mxfp4Config(dequantize=True) (its CPU path: the
    experts dequantized to bf16 by convert_moe_packed_tensors)."""
    import transformers as tf
    return tf.AutoModelForCausalLM.from_pretrained(
        ckpt_dir, dtype=torch.bfloat16,
        quantization_config=tf.Mxfp4Config(dequantize=True)).eval()
