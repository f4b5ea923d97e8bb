"""nvfp4.models: checkpoints made by the tools that define their formats
(python/nvfp4_testing/producers.py: compressed-tensors NVFP4 / NVFP4A16,
ModelOpt NVFP4 / W4A16_NVFP4, gpt-oss MXFP4) on tiny random-weight models,
loaded by nvfp4.models.from_pretrained and checked against the producer's
own dequantization and forward:

* every quantized layer's output, given the same input, within the spec's
  bound (docs/spec.md 2.7: the fp32 summation bound included) of the fp64
  product of the producer's dequantized weights and (W4A4) the producer's
  quantized activations, plus the measured effect of the activation
  elements whose code or block scale differs between the producer's
  arithmetic and ours (counted and reported);
* the logits within the spread that the producer's own forward shows
  between bf16 and fp32 (relative RMS; the spread that reordering its fp32
  sums alone causes is measured too, and is far smaller: the dtype's
  rounding dominates), and gpt-oss's bit for bit;
* generate() with a static KV cache, twice the same tokens.

The layer tests run on CUDA tensors too where a GPU is found.
"""

import os
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("safetensors")

from nvfp4 import runtime  # noqa: E402

pytestmark = pytest.mark.skipif(not runtime.available(), reason="nvfp4._runtime not built")

if runtime.available():
    from nvfp4 import models  # noqa: E402
    from nvfp4 import nn as nvnn  # noqa: E402
    from nvfp4 import reference as ref  # noqa: E402
    from nvfp4_testing import producers as P  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if runtime.available() and torch.cuda.is_available()
                     and runtime.gpu_available() else [])

# (producer, model kind, scheme)
CHECKPOINTS = [
    ("compressed-tensors", "llama", "NVFP4A16"),
    ("compressed-tensors", "qwen3", "NVFP4"),
    ("compressed-tensors", "qwen3_moe", "NVFP4A16"),
    ("compressed-tensors", "qwen3_moe", "NVFP4"),
    ("compressed-tensors", "mixtral", "NVFP4"),
    ("compressed-tensors", "deepseek_v3", "NVFP4A16"),
    ("modelopt", "llama", "W4A16_NVFP4_CFG"),
    ("modelopt", "qwen3", "NVFP4_DEFAULT_CFG"),
    ("modelopt", "qwen3_moe", "NVFP4_DEFAULT_CFG"),
    ("gpt-oss", "gpt_oss", "mxfp4"),
]
W4A4 = ("NVFP4", "NVFP4_DEFAULT_CFG")
MOE_KINDS = ("qwen3_moe", "gpt_oss", "mixtral", "deepseek_v3")


class Made:
    """A checkpoint directory and the producer's reference logits."""

    def __init__(self, producer, kind, scheme, path):
        self.producer, self.kind, self.scheme, self.path = producer, kind, scheme, path
        self.ids = P.calibration_ids(2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if producer == "compressed-tensors":
                pytest.importorskip("compressed_tensors")
                self.ref, self.reordered, self.fp32 = P.compressed_tensors_checkpoint(
                    P.tiny_model(kind), scheme, path)
            elif producer == "modelopt":
                pytest.importorskip("modelopt.torch.quantization")
                P.modelopt_checkpoint(P.tiny_model(kind), scheme, path)
                refm = P.modelopt_reference_model(path, kind)
                self.ref, self.reordered, self.fp32 = self._reference(refm)
            else:
                P.gpt_oss_checkpoint(P.tiny_model(kind), path)
                refm = P.gpt_oss_reference_model(path)
                self.ref, self.reordered, self.fp32 = self._reference(refm)

    def _reference(self, refm):
        import copy
        with torch.no_grad():
            out = refm(self.ids).logits.float()
            with P.split_k_linear():
                reordered = refm(self.ids).logits.float()
            fp32 = copy.deepcopy(refm).float()(self.ids).logits.float()
        return out, reordered, fp32

    def weight(self, name):
        if self.producer == "compressed-tensors":
            return P.compressed_tensors_weight(self.path, name)
        return P.modelopt_weight(self.path, name)

    def quantized_input(self, name, x):
        if self.producer == "compressed-tensors":
            return P.compressed_tensors_input(self.path, name, x)
        return P.modelopt_input(self.path, name, x)


@pytest.fixture(scope="module", params=CHECKPOINTS, ids=lambda c: "-".join(c))
def made(request, tmp_path_factory):
    producer, kind, scheme = request.param
    path = str(tmp_path_factory.mktemp(f"{producer}-{kind}-{scheme}"))
    return Made(producer, kind, scheme, path)


def _layer_inputs(model, ids):
    """Each nvfp4.nn.Linear's input in a forward of `ids` ([rows, K])."""
    acts = {}

    def hook(name):
        def record(_, args):
            acts.setdefault(name, args[0].detach().reshape(-1, args[0].shape[-1]).clone())
        return record

    handles = [m.register_forward_pre_hook(hook(n)) for n, m in model.named_modules()
               if isinstance(m, nvnn.Linear)]
    with torch.no_grad():
        model(ids.to(next(model.parameters()).device))
    for h in handles:
        h.remove()
    return acts


@pytest.mark.parametrize("device", DEVICES)
def test_every_layer_matches_the_producer(made, device):
    if made.producer == "gpt-oss":
        pytest.skip("gpt-oss quantizes only its experts (test_moe_experts_*)")
    model = models.from_pretrained(made.path, device=device)
    acts = _layer_inputs(model, made.ids)
    assert acts, "no quantized linear ran"
    differing = total = 0
    for name, layer in model.named_modules():
        if not isinstance(layer, nvnn.Linear):
            continue
        x = acts[name]
        y = layer(x).double().cpu()
        w = made.weight(name).double()
        bias = 0.0 if layer.bias is None else layer.bias.double().cpu()
        if made.scheme in W4A4:
            assert not layer.weight_only
            xp = made.quantized_input(name, x.cpu())
            # ours: nvfp4.quantize with the checkpoint's static scale
            options = nvnn._static_input_options(layer)
            q, s, d = torch.ops.nvfp4.quantize(x, **options)
            xo = torch.ops.nvfp4.dequantize(q, s, d).double().cpu()
            dx = (xo - xp).abs()
            # a different code or block scale, not the 2^-24 of fl(s / gs)
            diff = dx > 2.0 ** -20 * xp.abs()
            differing += int(diff.sum())
            effect = dx @ w.abs().T
        else:
            assert layer.weight_only
            xp, effect = x.double().cpu(), 0.0
        total += x.numel()
        want = xp @ w.T + bias
        k = x.shape[1]
        bar = ref.TOL_ABS + ref.TOL_REL * want.abs() + want.abs() * 2.0 ** -8
        # fp32 sums in any order, and fl(1/gs) or fl(s * s2) against the
        # producer's per-weight fl(s / gs) (2^-23 relative each)
        bound = (xp.abs() @ w.abs().T) * (k * 2.0 ** -24 + 2.0 ** -21)
        err = (y - want).abs()
        assert torch.all(err <= bar + bound + effect), (
            f"{name}: max |err| / (bar + bound + effect) = "
            f"{float((err / (bar + bound + effect)).max()):.3g}")
    if made.scheme in W4A4:
        # The producers' arithmetic differs from ours (module docstring of
        # nvfp4.models) only near rounding boundaries: a few percent of
        # the elements, whole 16-blocks where a block scale rounds apart.
        print(f"{made.producer} W4A4: {differing}/{total} activation elements quantized "
              f"differently ({100.0 * differing / total:.2f}%)")
        assert differing / total < 0.1


def test_logits_are_within_the_producers_rounding_spread(made):
    """Dense models: the logits' relative RMS within twice the producer's own
    bf16-vs-fp32 spread. MoE models: per token (the median of each
    position's relative error), because a near-tied top-k choice that a
    1 % difference in the hidden state flips routes one token to other
    experts and moves its logits entirely; on torch 2.11's random DeepSeek-V3
    tiny model that is 1 token of 128 in layer 1 and raises the RMS of all
    logits from 0.015 to 0.074 while the other tokens stay at 0.015. Which
    token flips depends on the random weights, so the RMS of one draw says
    little; the layer tests above check the experts' arithmetic exactly."""
    model = models.from_pretrained(made.path)
    with torch.no_grad():
        logits = model(made.ids).logits.float()
    ours = P.relative_rms(logits, made.ref)
    dtype_spread = P.relative_rms(made.fp32, made.ref)
    order_spread = P.relative_rms(made.reordered, made.ref)
    ours_tok = P.token_relative_errors(logits, made.ref)
    spread_tok = P.token_relative_errors(made.fp32, made.ref)
    agree = float((logits.argmax(-1) == made.ref.argmax(-1)).float().mean())
    print(f"{made.producer} {made.kind} {made.scheme}: relative RMS to the producer "
          f"{ours:.4f}; the producer's own bf16-vs-fp32 spread {dtype_spread:.4f}, "
          f"reordered-sums spread {order_spread:.2e}; per-token median {ours_tok.median():.4f} "
          f"(spread {spread_tok.median():.4f}); argmax agreement {agree:.3f}")
    if made.producer == "gpt-oss":
        # MXFP4 weights are exact in bf16: transformers' dequantized model
        # and ours compute the same products.
        assert torch.equal(logits, made.ref)
        return
    if made.kind in MOE_KINDS:
        assert ours_tok.median() <= 1.5 * spread_tok.median()
    else:
        assert ours <= 2.0 * dtype_spread


@pytest.mark.parametrize("device", DEVICES)
def test_moe_experts_match_the_producer(made, device):
    """The MoE block's experts (one grouped matmul per projection), fed a
    fixed routing, against the per-expert fp64 products of the producer's
    own dequantized weights and its SwiGLU (in fp64)."""
    if made.kind not in MOE_KINDS:
        pytest.skip("dense model")
    model = models.from_pretrained(made.path, device=device)
    experts = model.model.layers[1].mlp.experts
    assert isinstance(experts, models.MoEExperts)
    g = torch.Generator().manual_seed(5)
    tokens, h = 12, model.config.hidden_size
    x = (torch.randn(tokens, h, generator=g) * 2).to(torch.bfloat16)
    k = 2
    top = torch.stack([torch.randperm(experts.num_experts, generator=g)[:k]
                       for _ in range(tokens)])
    top[0] = top[1]  # two tokens on the same pair of experts
    wts = torch.softmax(torch.randn(tokens, k, generator=g), -1).to(torch.bfloat16)
    got = experts(x.to(device), top.to(device), wts.to(device)).float().cpu()
    assert torch.equal(got, experts(x.to(device), top.to(device), wts.to(device)).float().cpu())
    # The projections one expert at a time, against the producer.
    for e in range(experts.num_experts):
        rows = torch.nonzero((top == e).any(-1)).flatten()
        if not rows.numel():
            continue
        xe = x[rows].to(device)
        offsets = torch.zeros(experts.num_experts + 1, dtype=torch.int32, device=device)
        offsets[e + 1:] = rows.numel()
        proj = experts.gate_up if experts.gate_up is not None else experts.gate
        y = proj(xe, offsets).double().cpu()
        if made.producer == "gpt-oss":
            w = _gpt_oss_weight(made.path, "model.layers.1.mlp.experts.gate_up_proj", e)
            xp, effect = xe.double().cpu(), 0.0
        else:
            # the checkpoint's names (Mixtral's: transformers renames them)
            if made.kind == "mixtral":
                prefix, gate, up = f"model.layers.1.block_sparse_moe.experts.{e}", "w1", "w3"
            else:
                prefix, gate, up = f"model.layers.1.mlp.experts.{e}", "gate_proj", "up_proj"
            names = [f"{prefix}.{gate}"]
            if experts.gate_up is not None:
                names.append(f"{prefix}.{up}")
            w = torch.cat([made.weight(n) for n in names]).double()
            if experts.gate_up is not None:
                # MoEExperts interleaves the gate and up rows (the layout
                # of the fused swiglu epilogue).
                half = w.shape[0] // 2
                w = torch.stack([w[:half], w[half:]], 1).flatten(0, 1)
            if made.scheme in W4A4:
                xp = made.quantized_input(names[0], xe.cpu())
                options = nvnn._static_input_options(proj)
                scale = {n: (v[e] if v.dim() else v) for n, v in options.items()}
                q, s, d = torch.ops.nvfp4.quantize(xe, **scale)
                effect = (torch.ops.nvfp4.dequantize(q, s, d).double().cpu() - xp).abs() \
                    @ w.abs().T
            else:
                xp, effect = xe.double().cpu(), 0.0
        want = xp @ w.T
        bar = ref.TOL_ABS + ref.TOL_REL * want.abs() + want.abs() * 2.0 ** -8
        bound = (xp.abs() @ w.abs().T) * (h * 2.0 ** -24 + 2.0 ** -21)
        assert torch.all((y - want).abs() <= bar + bound + effect), f"expert {e}"


def _gpt_oss_weight(path, key, e):
    """transformers' dequantization of one expert's MXFP4 projection ([N, K])."""
    from safetensors import safe_open
    from transformers.integrations.mxfp4 import convert_moe_packed_tensors
    with safe_open(os.path.join(path, "model.safetensors"), framework="pt") as f:
        blocks, scales = f.get_tensor(key + "_blocks"), f.get_tensor(key + "_scales")
    # convert_moe_packed_tensors returns the model's [E, K, N] layout
    return convert_moe_packed_tensors(blocks, scales, dtype=torch.float32)[e].T.double()


def test_generate_is_deterministic_with_a_static_cache(made):
    model = models.from_pretrained(made.path)
    # generate() must not compile the step itself (from_pretrained's comment)
    assert model.generation_config.disable_compile is True
    prompt = made.ids[:1, :8]
    outs = [model.generate(prompt, max_new_tokens=6, do_sample=False,
                           cache_implementation="static", pad_token_id=0)
            for _ in range(2)]
    assert outs[0].shape == (1, 14)
    assert torch.equal(outs[0], outs[1])
    assert torch.equal(outs[0][:, :8], prompt)


@pytest.mark.parametrize("device", DEVICES)
def test_graph_decoder_generates_what_generate_does(made, device):
    """GraphDecoder's greedy tokens: on CUDA (each step a graph replay)
    those of the same steps run eagerly, bit for bit; on the CPU those of
    model.generate with a static cache. (W4A4 models only twice the same:
    on the tiny Mixtral NVFP4 one of generate's steps gives logits 0.18
    apart from ours and the other steps the same bits; generate's step is
    not the same call (it passes an attention mask and cache positions),
    and a one-code flip of a quantized activation makes such a difference
    from a last-bit one.)"""
    model = models.from_pretrained(made.path, device=device)
    prompt = made.ids[:2, :8].to(device)
    got = models.GraphDecoder(model, 2, 16).generate(prompt, 6)
    assert got.shape == (2, 6)
    if device != "cpu":
        want = models.GraphDecoder(model, 2, 16, graphs=False).generate(prompt, 6)
    elif made.scheme in W4A4:
        want = models.GraphDecoder(model, 2, 16).generate(prompt, 6)
    else:
        want = model.generate(prompt, max_new_tokens=6, do_sample=False,
                              cache_implementation="static", pad_token_id=0)[:, 8:]
    assert torch.equal(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_graph_decoder_past_the_sliding_window(made, device):
    """gpt-oss's sliding-attention layers (window 16 in the tiny model) in
    GraphDecoder's ring buffer, with caches longer than the window, prompts
    shorter and longer than it, and two prompts on one decoder: on the CPU
    model.generate's tokens (transformers' own rolling window); on CUDA the
    graph replays equal the eager steps bit for bit (one recorded step at
    every position: before the ring, a recorded step replayed the window and
    mask of the step it was recorded at)."""
    if made.producer != "gpt-oss":
        pytest.skip("the sliding window is gpt-oss's")
    model = models.from_pretrained(made.path, device=device)
    assert model.config.sliding_window == 16
    eager = models.GraphDecoder(model, 2, 40, graphs=False)
    graphs = models.GraphDecoder(model, 2, 40)
    for length, new in ((8, 20), (20, 12), (3, 30)):
        prompt = made.ids[:2, :length].to(device)
        got = graphs.generate(prompt, new)
        if device == "cpu":
            want = model.generate(prompt, max_new_tokens=new, do_sample=False,
                                  cache_implementation="static", pad_token_id=0)[:, length:]
        else:
            want = eager.generate(prompt, new)
        assert torch.equal(got, want), (length, new)
    # The first prompt again on the decoder that ran the others.
    assert torch.equal(graphs.generate(made.ids[:2, :8].to(device), 20),
                       models.GraphDecoder(model, 2, 40).generate(
                           made.ids[:2, :8].to(device), 20))
    # Masks it does not build: refused, the model left as it was.
    model.config._attn_implementation = "flex_attention"
    try:
        with pytest.raises(ValueError, match="eager and sdpa attention implementations; "
                           "this model uses 'flex_attention'"):
            models.GraphDecoder(model, 2, 40)
    finally:
        model.config._attn_implementation = "eager"


def test_graph_decoder_refuses_what_it_cannot_hold(made):
    model = models.from_pretrained(made.path)
    dec = models.GraphDecoder(model, 2, 10)
    with pytest.raises(ValueError, match=r"this decoder takes \[2, T\] with 0 < T < 10"):
        dec.prefill(made.ids[:1, :8])
    with pytest.raises(ValueError, match="0 < T < 10"):
        dec.prefill(made.ids[:2, :10])
    dec.prefill(made.ids[:2, :8])
    with pytest.raises(ValueError, match="3 tokens for a batch of 2"):
        dec.step_logits(torch.tensor([1, 2, 3]))
    dec.step_logits(torch.tensor([1, 2]))
    dec.step_logits(torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="the cache holds 10 positions: all are used"):
        dec.step_logits(torch.tensor([1, 2]))


def test_loader_errors_say_what_is_wrong(tmp_path, made):
    import json
    import shutil
    with pytest.raises(models.CheckpointError, match="no quantization_config"):
        d = tmp_path / "plain"
        P.tiny_model("llama").save_pretrained(d)
        models.from_pretrained(str(d))
    d = tmp_path / "other"
    shutil.copytree(made.path, d)
    cfg = json.loads((d / "config.json").read_text())
    if made.producer == "modelopt" and "quantization_config" not in cfg:
        pytest.skip("format from hf_quant_config.json")
    cfg["quantization_config"]["quant_method"] = "awq"
    (d / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(models.CheckpointError, match="quant_method 'awq'"):
        models.from_pretrained(str(d))


def test_modelopt_format_from_hf_quant_config_alone(tmp_path):
    """Older ModelOpt exports describe the format only in
    hf_quant_config.json (config.json has no quantization_config)."""
    import json
    import shutil
    pytest.importorskip("modelopt.torch.quantization")
    path = tmp_path / "mo"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P.modelopt_checkpoint(P.tiny_model("llama"), "NVFP4_DEFAULT_CFG", str(path))
    plain = tmp_path / "plain"
    shutil.copytree(path, plain)
    cfg = json.loads((plain / "config.json").read_text())
    del cfg["quantization_config"]
    (plain / "config.json").write_text(json.dumps(cfg))
    ids = P.calibration_ids(2)
    with torch.no_grad():
        a = models.from_pretrained(str(path))(ids).logits
        b = models.from_pretrained(str(plain))(ids).logits
    assert torch.equal(a, b)


def test_sharded_checkpoint_with_tied_embeddings(tmp_path):
    """model.safetensors.index.json shards, and an lm_head tied to the
    embedding (small Qwen3 models tie them): nothing to load for lm_head."""
    pytest.importorskip("compressed_tensors")
    path = str(tmp_path / "tied")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_logits, _, fp32 = P.compressed_tensors_checkpoint(
            P.tiny_model("qwen3", tie_word_embeddings=True), "NVFP4A16", path,
            max_shard_size="100KB")
    assert os.path.exists(os.path.join(path, "model.safetensors.index.json"))
    assert len([f for f in os.listdir(path) if f.endswith(".safetensors")]) > 1
    model = models.from_pretrained(path)
    assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    with torch.no_grad():
        logits = model(P.calibration_ids(2)).logits.float()
    assert P.relative_rms(logits, ref_logits) <= 2.0 * P.relative_rms(fp32, ref_logits)


def _rewrite(path, out, edit):
    """A copy of the checkpoint at `path` with its tensors edited in place
    (edit(dict) changes the dict)."""
    import shutil
    from safetensors.torch import load_file, save_file
    shutil.copytree(path, out)
    tensors = load_file(os.path.join(out, "model.safetensors"))
    edit(tensors)
    save_file(tensors, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    return str(out)


def test_malformed_checkpoints_are_refused_with_a_message(tmp_path):
    pytest.importorskip("compressed_tensors")
    path = str(tmp_path / "good")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P.compressed_tensors_checkpoint(P.tiny_model("llama"), "NVFP4", path, references=False)
    q = "model.layers.0.self_attn.q_proj"
    cases = [
        (lambda t: t.__setitem__(f"{q}.weight_scale", t[f"{q}.weight_scale"][:, :-1].clone()),
         r"q_proj: expected block scales \[N, K/16\] = \[128, 8\], got \(128, 7\)"),
        (lambda t: t.__setitem__(f"{q}.weight_global_scale", torch.zeros(1)),
         r"q_proj: expected the decode scale to be one positive finite float"),
        (lambda t: t.__setitem__(f"{q}.input_global_scale", torch.tensor([float("nan")])),
         r"q_proj: expected the input encode scale to be one positive finite float"),
        (lambda t: t.__setitem__(f"{q}.weight_packed", t[f"{q}.weight_packed"][:64].clone()),
         r"q_proj: expected block scales .* got \(128, 8\)"),
        (lambda t: t.pop(f"{q}.weight_scale"), r"checkpoint has no tensor "
                                               r"'model.layers.0.self_attn.q_proj.weight_scale'"),
        (lambda t: t.__setitem__("model.layers.0.mystery", torch.zeros(3)),
         r"1 checkpoint tensor\(s\) were not used, e.g. \['model.layers.0.mystery'\]"),
        (lambda t: t.pop("model.norm.weight"), r"lacks 1 tensor\(s\).*model.norm.weight"),
    ]
    for i, (edit, message) in enumerate(cases):
        bad = _rewrite(path, tmp_path / f"bad{i}", edit)
        with pytest.raises(models.CheckpointError, match=message):
            models.from_pretrained(bad)


def test_moe_experts_masked_slots_and_no_tokens(tmp_path):
    """transformers marks a slot it masks with index num_experts: it adds
    nothing; and a call without tokens returns an empty result."""
    pytest.importorskip("compressed_tensors")
    path = str(tmp_path / "moe")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P.compressed_tensors_checkpoint(P.tiny_model("qwen3_moe"), "NVFP4A16", path,
                                        references=False)
    experts = models.from_pretrained(path).model.layers[0].mlp.experts
    e, h = experts.num_experts, 128
    x = (torch.randn(5, h, generator=torch.Generator().manual_seed(3)) * 2).to(torch.bfloat16)
    top = torch.tensor([[0, 1], [2, e], [e, e], [3, 0], [1, 2]])
    wts = torch.full((5, 2), 0.5, dtype=torch.bfloat16)
    keep = top < e
    alone = experts(x, torch.where(keep, top, torch.zeros_like(top)),
                    torch.where(keep, wts, torch.zeros_like(wts)))
    assert torch.equal(experts(x, top, wts), alone)
    assert torch.equal(experts(x, top, wts)[2], torch.zeros(h, dtype=torch.bfloat16))
    empty = experts(x[:0], top[:0], wts[:0])
    assert empty.shape == (0, h)


def test_format_and_layers_must_agree_on_activation_scales(tmp_path):
    import json
    import shutil
    pytest.importorskip("compressed_tensors")
    path = tmp_path / "w4a4"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P.compressed_tensors_checkpoint(P.tiny_model("qwen3_moe"), "NVFP4", str(path),
                                        references=False)
    # a layer without its static scale in a W4A4 checkpoint
    bad = _rewrite(str(path), tmp_path / "missing",
                   lambda t: t.pop("model.layers.0.mlp.experts.1.gate_proj.input_global_scale"))
    with pytest.raises(models.CheckpointError,
                       match="experts.1.gate_proj: the format quantizes activations"):
        models.from_pretrained(bad)
    # activations with a dynamic global scale: not what the loader runs
    dyn = tmp_path / "dynamic"
    shutil.copytree(path, dyn)
    cfg = json.loads((dyn / "config.json").read_text())
    cfg["quantization_config"]["config_groups"]["group_0"]["input_activations"]["dynamic"] = True
    (dyn / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(models.CheckpointError, match="dynamic=True: supported is 'local'"):
        models.from_pretrained(str(dyn))
