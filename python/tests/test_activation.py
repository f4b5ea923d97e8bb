"""nvfp4.swiglu through the Python API: bad input is refused with a clear
message before anything compiles, and the CPU result equals the reference
(docs/spec.md 2.10) bit for bit, NaN, inf and clamped values included."""
import numpy as np
import pytest

from nvfp4 import compiler, reference as ref


def test_swiglu_rejects_bad_input():
    x = np.ones((4, 7), np.float32)
    with pytest.raises(ValueError, match="even last dimension"):
        compiler.swiglu(x, target="cpu")
    with pytest.raises(ValueError, match="positive limit"):
        compiler.swiglu(np.ones((4, 8), np.float32), limit=0.0, target="cpu")
    with pytest.raises(ValueError, match="finite parameters"):
        compiler.swiglu(np.ones((4, 8), np.float32), sigmoid_scale=np.inf, target="cpu")
    with pytest.raises(ValueError, match="out_dtype"):
        compiler.swiglu(np.ones((4, 8), np.float32), out_dtype="f64", target="cpu")
    with pytest.raises(TypeError, match="float32, float16 or bf16"):
        compiler.swiglu(np.ones((4, 8), np.int32), target="cpu")


@pytest.mark.parametrize("kw", [{}, {"limit": 7.0},
                                {"sigmoid_scale": 1.702, "limit": 7.0, "up_offset": 1.0}])
def test_swiglu_cpu_matches_reference(kw):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((9, 40)) * 20).astype(np.float32)
    x[0, :6] = [np.nan, 1.0, np.inf, -2.0, -np.inf, 3.0]
    got = compiler.swiglu(x, target="cpu", **kw)
    want = ref.swiglu(x, **kw)
    assert got.shape == (9, 20)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.nan_to_num(got).view(np.uint32), np.nan_to_num(want).view(np.uint32))


def test_swiglu_takes_torch_tensors():
    torch = pytest.importorskip("torch")
    x = torch.randn(5, 16, dtype=torch.bfloat16) * 8
    y = compiler.swiglu(x, limit=7.0, target="cpu")
    assert isinstance(y, torch.Tensor) and y.dtype == torch.bfloat16 and y.shape == (5, 8)
    want = ref.swiglu(x.view(torch.int16).numpy().view(np.uint16), limit=7.0)
    assert np.array_equal(y.float().numpy(), want)


def _gate_up(rng, m=6, n=48, k=64):
    """bf16 activations and an FP4 gate_up weight (N interleaved rows)."""
    x = (rng.standard_normal((m, k)) * 2).astype(np.float32)
    w = (rng.standard_normal((n, k)) / 4).astype(np.float32)
    wq, ws, wd = compiler.quantize(w, block="16x16", target="cpu")
    return x, wq, ws, wd


@pytest.mark.parametrize("inter", ["f32", "bf16"])
def test_linear_swiglu_is_the_matmul_then_the_activation(inter):
    rng = np.random.default_rng(5)
    x, wq, ws, wd = _gate_up(rng)
    params = dict(sigmoid_scale=1.702, limit=7.0, up_offset=1.0)
    got = compiler.linear(x, wq, ws, wd, out_dtype="bf16", swiglu=params,
                          intermediate_dtype=inter, target="cpu")
    y = compiler.linear(x, wq, ws, wd, out_dtype=inter, target="cpu")
    want = compiler.swiglu(y, out_dtype="bf16", target="cpu", **params)
    assert got.shape == (6, 24)
    assert np.array_equal(np.asarray(got).view(np.uint16), np.asarray(want).view(np.uint16))


def test_linear_swiglu_rejects_bad_options():
    rng = np.random.default_rng(6)
    x, wq, ws, wd = _gate_up(rng)
    with pytest.raises(ValueError, match="sigmoid_scale, limit, up_offset"):
        compiler.linear(x, wq, ws, wd, swiglu=dict(alpha=1.0), target="cpu")
    with pytest.raises(ValueError, match="positive limit"):
        compiler.linear(x, wq, ws, wd, swiglu=dict(limit=-1.0), target="cpu")
    with pytest.raises(ValueError, match="intermediate_dtype"):
        compiler.linear(x, wq, ws, wd, swiglu=True, intermediate_dtype="f64", target="cpu")
    with pytest.raises(ValueError, match="weight_only"):
        compiler.linear(x.astype(np.float16), wq, ws, wd, swiglu=True, weight_only=True,
                        target="cpu")
    w_odd = compiler.quantize(rng.standard_normal((47, 64)).astype(np.float32),
                              block="16x16", target="cpu")
    with pytest.raises(ValueError, match="even number of weight rows"):
        compiler.linear(x, *w_odd, swiglu=True, target="cpu")


def test_torch_ops_linear_swiglu():
    torch = pytest.importorskip("torch")
    import nvfp4.ops  # noqa: F401
    rng = np.random.default_rng(7)
    x, wq, ws, wd = _gate_up(rng, m=5, n=64, k=128)
    xt = torch.from_numpy(x).to(torch.bfloat16)
    tq, ts = (torch.from_numpy(np.ascontiguousarray(a)) for a in (wq, ws))
    td = torch.tensor(np.float32(wd))
    got = torch.ops.nvfp4.linear(xt, tq, ts, td, activation="swiglu", limit=7.0)
    y = torch.ops.nvfp4.linear(xt, tq, ts, td, out_dtype="f32")
    want = torch.ops.nvfp4.swiglu(y, limit=7.0, out_dtype="bf16")
    assert got.dtype == torch.bfloat16 and got.shape == (5, 32)
    assert torch.equal(got.view(torch.int16), want.view(torch.int16))
    # The fake implementation gives the same shape (torch.compile traces it).
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode(allow_non_fake_inputs=True):
        fake = torch.ops.nvfp4.linear(xt, tq, ts, td, activation="swiglu")
    assert fake.shape == (5, 32) and fake.dtype == torch.bfloat16
    with pytest.raises(ValueError, match="activation"):
        torch.ops.nvfp4.linear(xt, tq, ts, td, activation="gelu")


def _experts(torch, e=3, n=136, k=64):
    import nvfp4.nn as nvnn
    g = torch.Generator().manual_seed(11)
    w = torch.randn(e, n, k, generator=g) / 4
    x = (torch.randn(10, k, generator=g) * 2).to(torch.bfloat16)
    offsets = torch.tensor([0, 4, 4, 10], dtype=torch.int32)
    return nvnn.GroupedExperts.from_weight(w), x, offsets


def test_grouped_experts_interleave_rows_is_exact():
    """Gate rows then up rows -> interleaved: the same products, their
    columns interleaved, bit for bit (N = 136: the swizzled scales' last
    128-row tile is padded)."""
    torch = pytest.importorskip("torch")
    import copy
    experts, x, offsets = _experts(torch)
    y = experts(x, offsets)
    moved = copy.deepcopy(experts).interleave_rows()
    got = moved(x, offsets)
    want = torch.stack([y[:, :68], y[:, 68:]], -1).flatten(-2)
    assert torch.equal(got.view(torch.int16), want.view(torch.int16))


@pytest.mark.parametrize("params", [{}, {"sigmoid_scale": 1.702, "limit": 7.0,
                                         "up_offset": 1.0}])
def test_grouped_experts_swiglu(params):
    """forward(swiglu=...) is the product (rounded to x's type) and then
    nvfp4.swiglu, bit for bit; [S, N/2] in x's type."""
    torch = pytest.importorskip("torch")
    experts, x, offsets = _experts(torch)
    experts.interleave_rows()
    got = experts(x, offsets, swiglu=params)
    want = torch.ops.nvfp4.swiglu(experts(x, offsets), **params)
    assert got.shape == (10, 68) and got.dtype == torch.bfloat16
    assert torch.equal(got.view(torch.int16), want.view(torch.int16))


def test_nn_moe_block_from_weights():
    """nvfp4.nn.MoEExperts (the MoE block; nvfp4.models re-exports it):
    from_weights quantizes [E, 2I, H] / [E, H, I] weights and gives the
    bits of the same block built by hand, and stays within the 4-bit
    quantization error of the bf16 block (a wrong gate/up interleave
    would put it near 1)."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    import nvfp4.nn as nvnn
    from nvfp4 import models
    assert models.MoEExperts is nvnn.MoEExperts
    E, H, I, T, K = 6, 64, 48, 9, 2
    g = torch.Generator().manual_seed(13)
    w1 = (torch.randn(E, 2 * I, H, generator=g) / 8).to(torch.bfloat16)
    w2 = (torch.randn(E, H, I, generator=g) / 7).to(torch.bfloat16)
    x = torch.randn(T, H, generator=g).to(torch.bfloat16)
    wts, idx = torch.topk(torch.softmax(torch.randn(T, E, generator=g), -1), K)
    wts = wts.to(torch.bfloat16)
    block = nvnn.MoEExperts.from_weights(w1, w2)
    by_hand = nvnn.MoEExperts(nvnn.GroupedExperts.from_weight(w2),
                              gate_up=nvnn.GroupedExperts.from_weight(w1))
    got = block(x, idx, wts)
    assert torch.equal(got.view(torch.int16), by_hand(x, idx, wts).view(torch.int16))
    want = torch.zeros(T, H, dtype=torch.float64)
    for t in range(T):
        for s in range(K):
            e = int(idx[t, s])
            gu = x[t].double() @ w1[e].double().T
            h = F.silu(gu[:I]) * gu[I:]
            want[t] += float(wts[t, s]) * (h @ w2[e].double().T)
    rel = float((got.double() - want).norm() / want.norm())
    assert rel < 0.3, rel


def _targets():
    from nvfp4 import runtime
    return ["cpu"] + (["gpu"] if runtime.available() and runtime.gpu_available() else [])


@pytest.mark.parametrize("target", _targets())
def test_moe_experts_example(target):
    """docs/examples/moe_experts.mlir (quantize, gate_up + bias, swiglu,
    quantize, down + bias) run as one program equals its ops run one by one
    through the API, bit for bit: on the GPU the program runs fused (the
    swiglu and biases in the GEMM epilogues, the quantizes in the token
    pre-passes; test/Integration/GPUCompile/moe-experts-example.test), the
    ops as separate programs."""
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "examples",
                        "moe_experts.mlir")
    program = open(path).read()
    rng = np.random.default_rng(17)
    E, S, H, I = 8, 256, 1024, 384
    counts = rng.multinomial(S, np.ones(E) / E)
    counts[3] = 0
    counts[0] += S - counts.sum()
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    x = ref.f32_to_bf16_bits(rng.standard_normal((S, H)).astype(np.float32))
    w1q, w1s, w1d = compiler.quantize((rng.standard_normal((E, 2 * I, H)) / 32).astype(np.float32),
                                      block="16x16", target=target)
    w2q, w2s, w2d = compiler.quantize((rng.standard_normal((E, H, I)) / 20).astype(np.float32),
                                      block="16x16", target=target)
    b1 = ref.f32_to_bf16_bits(rng.standard_normal((E, 2 * I)).astype(np.float32) / 4)
    b2 = ref.f32_to_bf16_bits(rng.standard_normal((E, H)).astype(np.float32) / 4)
    got = compiler.run_program(program, [x, w1q, w1s, w1d, b1, w2q, w2s, w2d, b2, offsets], 1,
                               target=target)[0]
    gu = compiler.grouped_linear(x, w1q, w1s, w1d, offsets, out_dtype="bf16", bias=b1,
                                 target=target)
    h = compiler.swiglu(gu, target=target)
    want = compiler.grouped_linear(h, w2q, w2s, w2d, offsets, out_dtype="bf16", bias=b2,
                                   target=target)
    assert np.array_equal(np.asarray(got), np.asarray(want))
    assert np.isfinite(ref.bf16_bits_to_f32(np.asarray(got))).all()


def test_cuda_bias_at_an_odd_offset_is_refused():
    """The GPU epilogues read two neighbouring bias values at once: a CUDA
    bias view starting at an odd element is refused before anything runs."""
    torch = pytest.importorskip("torch")
    if "gpu" not in _targets() or not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    rng = np.random.default_rng(8)
    x, wq, ws, wd = _gate_up(rng)
    xt = torch.from_numpy(x).cuda()
    full = torch.zeros(49, dtype=torch.bfloat16, device="cuda")
    with pytest.raises(ValueError, match="multiple of 4 bytes"):
        compiler.linear(xt, wq, ws, wd, bias=full[1:])
    got = compiler.linear(xt, wq, ws, wd, bias=full[1:].clone())
    assert got.shape == (6, 48)


@pytest.mark.parametrize("target", _targets())
@pytest.mark.parametrize("activation", ["silu", "gpt-oss"])
def test_moe_block_quantizes_down_inputs_in_gate_up(target, activation, monkeypatch):
    """With one calibrated scale for the down projection's inputs (a
    checkpoint's input_global_scale) and the pipeline option
    quantize-in-epilogue, nvfp4.nn.MoEExperts quantizes the activation in
    gate_up's program (nvfp4.fused's output quantize: on sm_90a the GEMM
    epilogue writes the FP4 tokens) and the down projection reads them: the
    block's bits equal those of quantizing in the down projection, with
    biases; without the option, or with a per-expert scale, the block
    keeps the down projection's own quantize."""
    torch = pytest.importorskip("torch")
    import nvfp4.nn as nvnn
    monkeypatch.setenv("NVFP4_PIPELINE_OPTIONS", "quantize-in-epilogue=1")
    assert nvnn._quantize_in_epilogue()
    if target == "cpu":  # the CPU pipeline takes no options (and inlines the op)
        monkeypatch.setenv("NVFP4_PIPELINE_OPTIONS", "")
        monkeypatch.setattr(nvnn, "_quantize_in_epilogue", lambda: True)
    dev = "cuda" if target == "gpu" else "cpu"
    E, H, I, T, K = 6, 128, 96, 37, 2
    g = torch.Generator().manual_seed(17)
    w1 = (torch.randn(E, 2 * I, H, generator=g) / 8).to(torch.bfloat16).to(dev)
    w2 = (torch.randn(E, H, I, generator=g) / 7).to(torch.bfloat16).to(dev)
    b1 = torch.randn(E, 2 * I, generator=g).to(torch.bfloat16).to(dev)
    b2 = torch.randn(E, H, generator=g).to(torch.bfloat16).to(dev)
    x = torch.randn(T, H, generator=g).to(torch.bfloat16).to(dev)
    wts, idx = torch.topk(torch.softmax(torch.randn(T, E, generator=g), -1), K)
    wts, idx = wts.to(torch.bfloat16).to(dev), idx.to(dev)
    q2, s2, d2 = torch.ops.nvfp4.quantize(w2, block="16x16")
    kw = dict(activation="swiglu", limit=7.0, alpha=1.702) if activation == "gpt-oss" else {}

    def block(scale):
        down = nvnn.GroupedExperts.from_quantized(q2, s2, d2, input_encode_scale=scale)
        return nvnn.MoEExperts(down, gate_up=nvnn.GroupedExperts.from_weight(w1),
                               gate_up_bias=b1, down_bias=b2, **kw)

    fused = block(torch.tensor(700.0, device=dev))
    assert fused.down.fp4_input_scale() is not None
    unfused = block(torch.tensor(700.0, device=dev))
    unfused._fp4_intermediate = lambda *args: None
    got = fused(x, idx, wts)
    assert torch.equal(got.view(torch.int16), unfused(x, idx, wts).view(torch.int16))
    per_expert = block(torch.full((E,), 700.0, device=dev))
    assert per_expert.down.fp4_input_scale() is None
    assert per_expert._fp4_intermediate(x, None) is None
    monkeypatch.setenv("NVFP4_PIPELINE_OPTIONS", "")
    monkeypatch.setattr(nvnn, "_quantize_in_epilogue", lambda: False)
    assert fused._fp4_intermediate(x, None) is None


def test_linear_output_quantize():
    """compiler.linear(output_quantize=...): the quantize of the result
    (after the swiglu, if any) with a given scale, in the same program:
    byte for byte quantize() of the unfused result; options it cannot take
    are refused before anything compiles."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((24, 128)).astype(np.float32)
    w = (rng.standard_normal((96, 128)) / 8).astype(np.float32)
    wq, ws, wd = compiler.quantize(w, block="16x16")
    for swiglu, scale in ((None, dict(encode_scale=np.float32(500.0))),
                          (True, dict(decode_scale=np.float32(0.004), swizzle=False))):
        got = compiler.linear(x, wq, ws, wd, out_dtype="bf16", swiglu=swiglu,
                              output_quantize=scale)
        y = compiler.linear(x, wq, ws, wd, out_dtype="bf16", swiglu=swiglu)
        want = compiler.quantize(y, **scale)
        for g, e in zip(got, want):
            assert np.array_equal(np.asarray(g), np.asarray(e))
    for bad, err, match in (({}, ValueError, "one given scale"),
                            (dict(encode_scale=1.0, decode_scale=1.0), ValueError,
                             "one given scale"),
                            (dict(amax=1.0), TypeError, "unexpected"),
                            (dict(encode_scale=1.0, block="16x16"), ValueError, "1x16"),
                            ([1.0], TypeError, "dict")):
        with pytest.raises(err, match=match):
            compiler.linear(x, wq, ws, wd, output_quantize=bad)
    with pytest.raises(ValueError, match="weight_only"):
        compiler.linear(x.astype(np.float16), wq, ws, wd, weight_only=True,
                        output_quantize=dict(encode_scale=1.0))


def test_torch_grouped_linear_quantized():
    """torch.ops.nvfp4.grouped_linear_quantized: the experts' gate_up, its
    swiglu and the quantize of the activation (a calibrated scale) as one
    op, the same bytes as grouped_linear then quantize; its fake gives the
    same shapes and dtypes."""
    torch = pytest.importorskip("torch")
    import nvfp4.ops  # noqa: F401
    g = torch.Generator().manual_seed(3)
    x = torch.randn(20, 64, generator=g).to(torch.bfloat16)
    w = torch.randn(3, 64, 64, generator=g) / 8
    wq, ws, wd = torch.ops.nvfp4.quantize(w, block="16x16")
    off = torch.tensor([0, 5, 5, 20], dtype=torch.int32)
    e = torch.tensor(300.0)
    got = torch.ops.nvfp4.grouped_linear_quantized(x, wq, ws, wd, off, output_encode_scale=e,
                                                   activation="swiglu")
    h = torch.ops.nvfp4.grouped_linear(x, wq, ws, wd, off, activation="swiglu")
    want = torch.ops.nvfp4.quantize(h, encode_scale=e)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode(allow_non_fake_inputs=True):
        fake = torch.ops.nvfp4.grouped_linear_quantized(x, wq, ws, wd, off,
                                                        output_encode_scale=e,
                                                        activation="swiglu")
    assert [(t.shape, t.dtype) for t in fake] == [(t.shape, t.dtype) for t in got]
    with pytest.raises(ValueError, match="one calibrated scale"):
        torch.ops.nvfp4.grouped_linear_quantized(x, wq, ws, wd, off)
