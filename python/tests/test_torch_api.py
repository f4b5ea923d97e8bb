"""torch.ops.nvfp4 (torch.library custom ops) and the nvfp4.nn layers: the
ops' schemas and fake implementations (opcheck), torch.compile through
them, and a small bf16 model whose linears are converted, each layer
checked against the fp64 reference of its quantized operands. The layer
tests run on the CPU, and on CUDA tensors where a GPU is found (the GPU
machine runs this file through test/Integration/GPU/python-api.test, with
torch.compile's inductor and CUDA graphs in test_runtime_gpu.py)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from nvfp4 import reference as ref  # noqa: E402
from nvfp4 import runtime  # noqa: E402

pytestmark = pytest.mark.skipif(not runtime.available(), reason="nvfp4._runtime not built")

if runtime.available():
    import nvfp4.nn as nvnn  # noqa: E402
    from nvfp4_testing.selfcheck import summation_bound  # noqa: E402


DEVICES = ["cpu"] + (["cuda"] if runtime.available() and torch.cuda.is_available()
                     and runtime.gpu_available() else [])


def _bf16(shape, seed, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g) * scale).to(torch.bfloat16)


def _u8(t):
    return t.view(torch.uint8)


def _bits(t):
    """bf16 tensor -> numpy uint16 bits (the reference's bf16 input)."""
    return t.detach().cpu().contiguous().view(torch.int16).numpy().view(np.uint16)


def _operands():
    x = _bf16((10, 64), 1)
    w = _bf16((48, 64), 2)
    q, s, d = torch.ops.nvfp4.quantize(x)
    wq, ws, wd = torch.ops.nvfp4.quantize(w, block="16x16")
    return x, w, (q, s, d), (wq, ws, wd)


def _grouped_operands():
    g = torch.Generator().manual_seed(3)
    e, n, k, s = 3, 32, 64, 20
    a = torch.ops.nvfp4.quantize(torch.randn(s, k, generator=g).to(torch.bfloat16))
    b = torch.ops.nvfp4.quantize(torch.randn(e, n, k, generator=g).to(torch.bfloat16))
    offsets = torch.tensor([0, 7, 7, s], dtype=torch.int32)
    am = torch.ops.nvfp4.quantize(torch.randn(e, 8, k, generator=g).to(torch.bfloat16))
    masked = torch.tensor([8, 0, 5], dtype=torch.int32)
    return a, b, offsets, am, masked


def test_ops_match_their_fake_implementations_and_schemas():
    """opcheck: schema (mutation, aliasing), fake tensors, AOT dispatch.
    FP4 / E4M3 operands go in as their bytes (uint8): torch's schema check
    copies inputs, which torch does not implement for float4_e2m1fn_x2."""
    x, _, (q, s, d), (wq, ws, wd) = _operands()
    (aq, as_, ad), (bq, bs, bd), offsets, (mq, ms, md), masked = _grouped_operands()
    nv = torch.ops.nvfp4
    cases = [
        (nv.quantize.default, (x,), {}),
        (nv.quantize.default, (x.float(),), {"fmt": "mxfp4", "swizzle": False}),
        (nv.quantize.default, (x,), {"rounding": "stochastic", "seed": 7}),
        (nv.quantize.default, (x,), {"row_scaled": True}),
        (nv.quantize.default, (x,), {"encode_scale": torch.tensor(3.5)}),
        (nv.quantize.default, (torch.stack([x, x]).half(),),
         {"decode_scale": torch.tensor([0.01, 2.0]), "block": "16x16"}),
        (nv.dequantize.default, (_u8(q), _u8(s), d), {"out_dtype": "bf16"}),
        (nv.swizzle_scales.default,
         (_u8(torch.ops.nvfp4.quantize(x, swizzle=False)[1]),), {}),
        (nv.matmul.default, (_u8(q), _u8(s), _u8(wq), _u8(ws), d, wd), {}),
        (nv.matmul.default, (_u8(q), _u8(s), _u8(wq), _u8(ws)), {"out_dtype": "f32"}),
        (nv.matmul.default, (_u8(q), _u8(s), _u8(wq), _u8(ws),
                             torch.linspace(0.5, 2, q.shape[0]), wd), {}),
        (nv.grouped_matmul_contiguous.default,
         (_u8(aq), _u8(as_), _u8(bq), _u8(bs), offsets, ad, bd), {}),
        (nv.grouped_matmul_masked.default,
         (_u8(mq), _u8(ms), _u8(bq), _u8(bs), masked, md, bd), {"out_dtype": "f16"}),
        (nv.grouped_matmul_independent.default,
         ([_u8(q), _u8(q)], [_u8(s), _u8(s)], [_u8(wq), _u8(wq)], [_u8(ws), _u8(ws)]), {}),
        (nv.linear.default, (x, _u8(wq), _u8(ws), wd), {}),
        (nv.linear.default, (x, _u8(wq), _u8(ws), wd),
         {"decode_scale": torch.tensor(0.02), "out_dtype": "f32"}),
        (nv.grouped_linear.default,
         (x[:7].repeat(3, 1)[:20], _u8(bq), _u8(bs), bd, offsets), {"hadamard": True}),
        (nv.weight_only_linear.default, (x, _u8(wq), _u8(ws), wd), {}),
        (nv.weight_only_linear.default, (x.half(), _u8(wq), _u8(ws), wd), {"out_dtype": "f32"}),
        (nv.weight_only_grouped_linear.default,
         (x[:7].repeat(3, 1)[:20], _u8(bq), _u8(bs), bd, offsets), {}),
        (nv.moe_route.default, (torch.tensor([[2, 0], [5, 1], [0, -1]], dtype=torch.int32), 4),
         {}),
        (nv.moe_dispatch.default, (x[:3], torch.tensor([1, 4, 0, 3, 2, 5], dtype=torch.int32)),
         {}),
        (nv.moe_combine.default, (x[:6], torch.tensor([[1, 4], [0, -1], [3, 2]],
                                                      dtype=torch.int32), x[:3, :2].float()),
         {"out_dtype": "f32"}),
    ]
    for op, args, kwargs in cases:
        torch.library.opcheck(op, args, kwargs)


def test_ops_are_the_compiler_api():
    x, _, (q, s, d), (wq, ws, wd) = _operands()
    from nvfp4 import compiler
    q2, s2, d2 = compiler.quantize(x)
    assert torch.equal(_u8(q), _u8(q2)) and torch.equal(_u8(s), _u8(s2)) and torch.equal(d, d2)
    assert q.dtype == torch.float4_e2m1fn_x2 and s.dtype == torch.float8_e4m3fn
    c = torch.ops.nvfp4.matmul(q, s, wq, ws, d, wd)
    c2 = compiler.matmul(q, s, wq, ws, a_decode=d, b_decode=wd)
    assert c.dtype == torch.bfloat16 and torch.equal(c, c2)
    _, s_mx, d_mx = torch.ops.nvfp4.quantize(x, "mxfp4")
    assert s_mx.dtype == torch.float8_e8m0fnu and float(d_mx) == 1.0


@pytest.mark.parametrize("device", DEVICES)
def test_quantize_given_scales(device):
    """encode_scale / decode_scale tensors on x's device: the reference's
    bits; the decode scale returned is decode_scale itself (bit for bit, for
    a d whose fl(1/fl(1/d)) is not d) or fl(1/encode_scale)."""
    x = _bf16((3, 24, 64), 11).to(device)
    one = np.float32(1)
    d = next(v for v in (np.float32(k) * np.float32(1e-4) for k in range(1, 200))
             if one / (one / v) != v)
    scales = np.array([d, 0.25, 40.0], np.float32)
    for kw, opts in ((dict(decode_scale=scales), {}),
                     (dict(encode_scale=scales), dict(rounding="stochastic", seed=3)),
                     (dict(encode_scale=scales), dict(hadamard=True, block="16x16"))):
        given = {k: torch.from_numpy(v).to(device) for k, v in kw.items()}
        q, s, sd = torch.ops.nvfp4.quantize(x, **opts, **given)
        ropts = dict(opts, block=(16, 16)) if opts.get("block") else opts
        wq, ws, wd = ref.quantize_nvfp4(_bits(x), swizzle=True, **ropts, **kw)
        assert np.array_equal(_u8(q).cpu().numpy(), wq)
        assert np.array_equal(_u8(s).cpu().numpy(), ws)
        assert np.array_equal(sd.cpu().numpy().view(np.uint32), wd.view(np.uint32))
        if "decode_scale" in kw:
            assert np.array_equal(sd.cpu().numpy().view(np.uint32), scales.view(np.uint32))
        else:
            assert np.array_equal(sd.cpu().numpy(), one / scales)
    # A 2-D input takes a 0-d scale.
    q, s, sd = torch.ops.nvfp4.quantize(x[0], decode_scale=torch.tensor(d, device=device))
    assert sd.shape == () and sd.item() == d


def test_quantize_given_scale_errors():
    from torch._subclasses.fake_tensor import FakeTensorMode
    x = _bf16((16, 32), 12)
    one = torch.tensor(1.0)
    nv = torch.ops.nvfp4
    for kw, match in ((dict(encode_scale=one, decode_scale=one), "not both"),
                      (dict(encode_scale=one, amax=one), "replaces the amax"),
                      (dict(decode_scale=one, amax=one), "replaces the amax"),
                      (dict(decode_scale=one, scale_rule="four_over_six"), "max6"),
                      (dict(encode_scale=torch.ones(16), row_scaled=True), "row_scaled"),
                      (dict(fmt="mxfp4", encode_scale=one), "nvfp4 only")):
        with pytest.raises(ValueError, match=match):
            nv.quantize(x, **kw)
        # the fake implementation (what torch.compile traces) raises the same
        with FakeTensorMode() as mode:
            fake = {k: mode.from_tensor(v) if isinstance(v, torch.Tensor) else v
                    for k, v in kw.items()}
            with pytest.raises(ValueError, match=match):
                nv.quantize(mode.from_tensor(x), **fake)


def test_torch_compile_traces_the_ops():
    """fullgraph: no graph break at the custom ops; results bit-identical
    to eager. (Inductor and CUDA graphs: the GPU tests.)"""
    x, _, _, (wq, ws, wd) = _operands()

    def f(x):
        q, s, d = torch.ops.nvfp4.quantize(x)
        return torch.ops.nvfp4.matmul(q, s, wq, ws, d, wd) * 2

    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    assert torch.equal(compiled(x), f(x))
    x2 = _bf16((17, 64), 5)  # another M: recompiled or dynamic, still right
    assert torch.equal(compiled(x2), f(x2))


def test_layers_call_their_ops_directly_in_eager_and_as_ops_when_compiled():
    """nvfp4.ops.call: an nvfp4.nn layer runs its op's implementation in
    eager mode (no custom-op dispatch) and the custom op under
    torch.compile (fullgraph: one node, no graph break); both give the same
    bits, and the eager call never enters the dispatcher."""
    import nvfp4.nn as nvnn
    from nvfp4 import ops
    g = torch.Generator().manual_seed(21)
    lin = nvnn.Linear.from_linear(torch.nn.Linear(64, 48).to(torch.bfloat16))
    E, H, I, T, K = 4, 32, 16, 6, 2
    block = nvnn.MoEExperts.from_weights((torch.randn(E, 2 * I, H, generator=g) / 8).to(
        torch.bfloat16), (torch.randn(E, H, I, generator=g) / 8).to(torch.bfloat16))
    x = _bf16((5, 64), 9)
    h = torch.randn(T, H, generator=g).to(torch.bfloat16)
    wts, idx = torch.topk(torch.softmax(torch.randn(T, E, generator=g), -1), K)

    def f(x, h, idx, wts):
        return lin(x), block(h, idx, wts.to(torch.bfloat16))

    entered = []
    impl = ops._IMPLS["linear"]
    with torch.library._scoped_library("nvfp4", "IMPL") as lib:
        lib.impl("linear", lambda *a, **k: entered.append(1) or impl(*a, **k), "CPU")
        # the probe sees a call through the dispatcher...
        torch.ops.nvfp4.linear(x, lin.weight_values, lin.weight_scales,
                               lin.weight_decode.view(torch.float32))
        assert entered == [1]
        entered.clear()
        eager = f(x, h, idx, wts)
    assert not entered  # ...and none from the layer: it ran the implementation
    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")(x, h, idx, wts)
    for a, b in zip(eager, compiled):
        assert torch.equal(a.view(torch.int16), b.view(torch.int16))


def _linear_reference(x, layer, w_float):
    """fp64 reference of one converted linear on its actual input x: both
    operands quantized by the python reference (x in 1x16 blocks, W in
    16x16), the exact product, alpha = S_dec(x) S_dec(W), plus the bias."""
    xq, xs, xd = ref.quantize_nvfp4(_bits(x.reshape(-1, x.shape[-1])))
    wq, ws, wd = ref.quantize_nvfp4(_bits(w_float), block=(16, 16))
    alpha = float(xd) * float(wd)
    product = ref.matmul_reference(xq, xs, wq, ws, alpha=alpha)
    bound = summation_bound(xq, xs, wq, ws, x.shape[-1], alpha=alpha)
    want = product
    if layer.bias is not None:
        want = product + layer.bias.float().cpu().numpy().astype(np.float64)
    return want, product, bound


@pytest.mark.parametrize("device", DEVICES)
def test_converted_model_matches_the_reference_layer_by_layer(device):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.GELU(),
        torch.nn.Linear(128, 64, bias=False), torch.nn.GELU(),
        torch.nn.Linear(64, 24), torch.nn.GELU(),
        torch.nn.Linear(24, 8),          # 24 is not a multiple of 16: kept
    ).to(torch.bfloat16).to(device).eval()
    originals = {name: m.weight.detach().clone() for name, m in model.named_modules()
                 if isinstance(m, torch.nn.Linear)}
    x = _bf16((2, 5, 64), 11, scale=3.0).to(device)
    with torch.no_grad():
        plain = model(x)
    nvnn.convert(model)
    kinds = [type(m).__name__ for m in model]
    assert kinds == ["Linear", "GELU", "Linear", "GELU", "Linear", "GELU", "Linear"]
    assert [isinstance(m, nvnn.Linear) for m in model[::2]] == [True, True, True, False]

    seen = {}
    hooks = [m.register_forward_hook(lambda mod, inp, out, n=n: seen.__setitem__(n, (inp[0], out)))
             for n, m in model.named_modules() if isinstance(m, nvnn.Linear)]
    with torch.no_grad():
        y = model(x)
    for h in hooks:
        h.remove()
    assert y.dtype == torch.bfloat16 and y.shape == (2, 5, 8) and y.device == x.device
    assert sorted(seen) == ["0", "2", "4"]
    for name, (inp, out) in seen.items():
        layer = model.get_submodule(name)
        want, product, bound = _linear_reference(inp, layer, originals[name])
        got = out.reshape(-1, out.shape[-1]).float().cpu().numpy().astype(np.float64)
        # the bar, the bf16 roundings of the matmul output and of the bias
        # add (half an ulp each), and the fp32 summation bound
        tol = (ref.TOL_ABS + ref.TOL_REL * np.abs(want)
               + (np.abs(product) + np.abs(want)) * 2.0 ** -8 + bound)
        assert np.all(np.abs(got - want) <= tol), name
    # End to end the quantization error stays that of NVFP4.
    rel = float((y.float() - plain.float()).norm() / plain.float().norm())
    assert rel < 0.25


@pytest.mark.parametrize("device", DEVICES)
def test_row_scaled_linear_matches_the_reference(device):
    """TransformerEngine's row-scaled activations: input_options row_scaled
    gives each token its own amax and decode scale, and the matmul's alpha is
    the outer product of the tokens' and the weight's decode scales."""
    torch.manual_seed(1)
    lin = torch.nn.Linear(64, 40).to(torch.bfloat16).to(device)
    layer = nvnn.Linear.from_linear(lin, input_options={"row_scaled": True})
    x = _bf16((3, 7, 64), 12).to(device)
    x[0, 2] *= 1000  # one loud token: its decode scale differs from the others' by ~1000x
    with torch.no_grad():
        y = layer(x)
    q, s, d = torch.ops.nvfp4.quantize(x.reshape(-1, 64), row_scaled=True)
    assert d.shape == (21,) and d.device == x.device
    bits = _bits(x.reshape(-1, 64))
    xq, xs, xd = ref.quantize_nvfp4(bits, row_scaled=True)
    assert np.array_equal(_u8(q).cpu().numpy(), xq) and np.array_equal(d.cpu().numpy(), xd)
    assert np.array_equal(_u8(s).cpu().numpy(), ref.swizzle_scales(xs))
    wq, ws, wd = ref.quantize_nvfp4(_bits(lin.weight.detach()), block=(16, 16))
    alpha = ref.alpha_eff(xd, wd)
    product = ref.matmul_reference(xq, xs, wq, ws, alpha=alpha)
    want = product + lin.bias.detach().float().cpu().numpy().astype(np.float64)
    bound = summation_bound(xq, xs, wq, ws, 64, alpha=alpha)
    got = y.reshape(-1, 40).float().cpu().numpy().astype(np.float64)
    tol = (ref.TOL_ABS + ref.TOL_REL * np.abs(want)
           + (np.abs(product) + np.abs(want)) * 2.0 ** -8 + bound)
    assert np.all(np.abs(got - want) <= tol)
    # The quiet tokens keep NVFP4's accuracy (quantization error) next to the loud one.
    plain = lin(x).float()
    quiet = [i for i in range(21) if i != 2]
    rel = float((y.float().reshape(21, 40)[quiet] - plain.reshape(21, 40)[quiet]).norm()
                / plain.reshape(21, 40)[quiet].norm())
    assert rel < 0.25


def test_linear_keeps_its_quantized_weight_exact_through_casts_and_state_dict():
    lin = torch.nn.Linear(32, 16).to(torch.bfloat16)
    layer = nvnn.Linear.from_linear(lin)
    wq, ws, wd = ref.quantize_nvfp4(_bits(lin.weight.detach()), block=(16, 16), swizzle=True)
    assert np.array_equal(layer.weight_values.numpy(), wq)
    assert np.array_equal(layer.weight_scales.numpy(), ws)
    assert layer.weight_decode.view(torch.float32).item() == float(wd)
    before = [b.clone() for b in layer.buffers()]
    layer.to(torch.float16)        # casts the bias only
    assert all(torch.equal(a, b) for a, b in zip(before, layer.buffers()))
    assert layer(torch.zeros(3, 32, dtype=torch.float16)).dtype == torch.float16
    fresh = nvnn.Linear(32, 16)
    fresh.load_state_dict(layer.state_dict())
    x = _bf16((4, 32), 9)
    assert torch.equal(fresh(x), layer.to(torch.bfloat16)(x))
    with pytest.raises(ValueError, match="divisible by 16"):
        nvnn.Linear(24, 8)
    with pytest.raises(TypeError, match="bfloat16"):
        layer(torch.zeros(3, 32, dtype=torch.float64))


@pytest.mark.parametrize("device", DEVICES)
def test_grouped_experts_match_the_reference(device):
    e, n, k = 4, 32, 64
    experts = [torch.nn.Linear(k, n, bias=False).to(torch.bfloat16).to(device)
               for _ in range(e)]
    layer = nvnn.GroupedExperts.from_linears(experts)
    tokens = _bf16((30, k), 21, scale=2.0).to(device)
    offsets = torch.tensor([0, 9, 9, 22, 30], dtype=torch.int32, device=device)
    y = layer(tokens, offsets)
    assert y.shape == (30, n) and y.dtype == torch.bfloat16 and y.device == tokens.device
    xq, xs, xd = ref.quantize_nvfp4(_bits(tokens))
    w = torch.stack([lin.weight.detach() for lin in experts])
    wq, ws, wd = ref.quantize_nvfp4(_bits(w), block=(16, 16))
    alpha = float(xd) * np.asarray(wd, dtype=np.float64)
    offsets = offsets.cpu()
    want = ref.grouped_matmul_contiguous(xq, xs, wq, ws, offsets.numpy(), alpha)
    got = y.float().cpu().numpy().astype(np.float64)
    tol = ref.TOL_ABS + ref.TOL_REL * np.abs(want) + np.abs(want) * 2.0 ** -8
    for g in range(e):
        lo, hi = int(offsets[g]), int(offsets[g + 1])
        bound = summation_bound(xq[lo:hi], xs[lo:hi], wq[g], ws[g], k, alpha=alpha[g])
        assert np.all(np.abs(got[lo:hi] - want[lo:hi]) <= tol[lo:hi] + bound)
    with pytest.raises(runtime.RunnerError, match=r"group_offsets\[3\] = 22 is below"):
        layer(tokens, torch.tensor([0, 9, 40, 22, 30], dtype=torch.int32, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_mxfp4_layers_match_the_reference(device):
    """MXFP4 has no decode scales: the layers pass none, and the reference
    is the plain product of the block-scaled operands."""
    k, n = 64, 48
    lin = torch.nn.Linear(k, n, bias=False).to(torch.bfloat16).to(device)
    layer = nvnn.Linear.from_linear(lin, fmt="mxfp4")
    x = _bf16((12, k), 31, scale=2.0).to(device)
    y = layer(x)
    xq, xs = ref.quantize_mxfp4(_bits(x))
    wq, ws = ref.quantize_mxfp4(_bits(lin.weight))
    want = ref.matmul_reference(xq, xs, wq, ws, fmt="mxfp4")
    bound = summation_bound(xq, xs, wq, ws, k, fmt="mxfp4")
    got = y.float().cpu().numpy().astype(np.float64)
    tol = ref.TOL_ABS + ref.TOL_REL * np.abs(want) + np.abs(want) * 2.0 ** -8 + bound
    assert np.all(np.abs(got - want) <= tol)

    experts = nvnn.GroupedExperts.from_weight(
        torch.stack([lin.weight.detach()] * 2), fmt="mxfp4")
    offsets = torch.tensor([0, 5, 12], dtype=torch.int32, device=device)
    got = experts(x, offsets).float().cpu().numpy().astype(np.float64)
    assert np.all(np.abs(got - want) <= tol)  # both experts hold the same weight


def test_mxfp4_matmul_takes_no_decode_scales():
    x = _bf16((8, 64), 41)
    q, s, d = torch.ops.nvfp4.quantize(x, "mxfp4")
    assert float(d) == 1.0
    with pytest.raises(ValueError, match="mxfp4 has no decode scales"):
        torch.ops.nvfp4.matmul(q, s, q, s, d, d, fmt="mxfp4")
    c = torch.ops.nvfp4.matmul(q, s, q, s, fmt="mxfp4")
    assert c.shape == (8, 8)


@pytest.mark.parametrize("device", DEVICES)
def test_linear_is_quantize_then_matmul(device):
    """torch.ops.nvfp4.linear / grouped_linear (one program: the sm_90a
    pipeline fuses the quantize into the GEMM) give the bits of the
    quantize and matmul ops, with a computed amax and with a calibrated
    scale; nvfp4.nn layers take the calibrated scale from input_options."""
    nv = torch.ops.nvfp4
    x, w, _, (wq, ws, wd) = _operands()
    x, wq, ws, wd = (t.to(device) for t in (x, wq, ws, wd))
    for opts in ({}, {"decode_scale": torch.tensor(0.01, device=device)},
                 {"encode_scale": torch.tensor(64.0, device=device)},
                 {"rounding": "stochastic", "seed": 9}):
        y = nv.linear(x, wq, ws, wd, **opts)
        q, s, d = nv.quantize(x, **opts)
        assert torch.equal(y, nv.matmul(q, s, wq, ws, d, wd)), opts
    (aq, as_, ad), (bq, bs, bd), offsets, _, _ = _grouped_operands()
    tokens = _bf16((20, 64), 5).to(device)
    bq, bs, bd, offsets = (t.to(device) for t in (bq, bs, bd, offsets))
    y = nv.grouped_linear(tokens, bq, bs, bd, offsets)
    q, s, d = nv.quantize(tokens)
    assert torch.equal(y, nv.grouped_matmul_contiguous(q, s, bq, bs, offsets, d, bd))
    # The layers: a static activation scale through input_options.
    scale = torch.tensor(0.02, device=device)
    lin = nvnn.Linear.from_linear(torch.nn.Linear(64, 48).to(torch.bfloat16).to(device),
                                  input_options={"decode_scale": scale})
    q, s, d = nv.quantize(x, decode_scale=scale)
    # The bias in the matmul's epilogue: fl(product + bias), one rounding.
    want = nv.matmul(q, s, lin.weight_values, lin.weight_scales, d,
                     lin.weight_decode.view(torch.float32), out_dtype="f32")
    want = (want + lin.bias.float()).to(torch.bfloat16)
    assert float(d) == float(scale)
    assert torch.equal(lin(x), want)
    assert torch.equal(lin(x), nv.matmul(q, s, lin.weight_values, lin.weight_scales, d,
                                         lin.weight_decode.view(torch.float32),
                                         bias=lin.bias))
    with pytest.raises(ValueError, match="decode_scale replaces the amax"):
        nv.linear(x, wq, ws, wd, amax=torch.tensor(1.0, device=device), decode_scale=scale)


@pytest.mark.parametrize("device", DEVICES)
def test_weight_only_layers_match_the_reference(device):
    """W4A16: bf16/f16 activations go into the matmul as they are; the
    layers built from a checkpoint's tensors (row-major scales, swizzled at
    load) match the fp64 product of x and the dequantized weight."""
    k, n = 64, 48
    w = _bf16((n, k), 51).to(device)
    wq, ws, wd = torch.ops.nvfp4.quantize(w, swizzle=False)
    bias = _bf16((n,), 52).to(device)
    layer = nvnn.Linear.from_quantized(wq, ws, wd, bias, weight_only=True)
    assert layer.weight_only and "weight_only" in repr(layer)
    for dtype in (torch.bfloat16, torch.float16):
        x = _bf16((3, 5, k), 53, scale=3.0).to(dtype).to(device)
        y = layer(x)
        assert y.shape == (3, 5, n) and y.dtype == dtype and y.device == x.device
        x2 = x.reshape(-1, k).cpu()
        xa = _bits(x2) if dtype == torch.bfloat16 else x2.numpy()
        wq_np, ws_np = _u8(wq).cpu().numpy(), _u8(ws).cpu().numpy()
        mm = ref.matmul_reference(xa, None, wq_np, ws_np, alpha=float(wd))
        want = mm + bias.float().cpu().numpy().astype(np.float64)
        bound = summation_bound(xa, None, wq_np, ws_np, k, alpha=float(wd))
        got = y.reshape(-1, n).float().cpu().numpy().astype(np.float64)
        ulp = 2.0 ** -8 if dtype == torch.bfloat16 else 2.0 ** -11
        # the matmul's output rounds, then + bias rounds once more
        tol = (ref.TOL_ABS + ref.TOL_REL * np.abs(mm) + np.abs(mm) * ulp + np.abs(want) * ulp
               + bound)
        assert np.all(np.abs(got - want) <= tol), dtype
    # The op is the compiler's weight-only matmul, bit for bit.
    x = _bf16((7, k), 54).to(device)
    from nvfp4 import compiler
    assert torch.equal(torch.ops.nvfp4.weight_only_linear(x, wq, layer.weight_scales, wd),
                       compiler.matmul(x, None, wq, ws, b_decode=wd))
    # Experts: contiguous tokens, one decode scale per expert.
    e = 3
    we = _bf16((e, n, k), 55).to(device)
    eq, es, ed = torch.ops.nvfp4.quantize(we, swizzle=False, row_scaled=False)
    experts = nvnn.GroupedExperts.from_quantized(eq, es, ed.reshape(e), weight_only=True)
    tokens = _bf16((11, k), 56, scale=2.0).to(device)
    offsets = torch.tensor([0, 4, 4, 11], dtype=torch.int32, device=device)
    got = experts(tokens, offsets).float().cpu().numpy().astype(np.float64)
    want = ref.grouped_matmul_contiguous(_bits(tokens), None, _u8(eq).cpu().numpy(),
                                         _u8(es).cpu().numpy(), offsets.cpu().numpy(),
                                         ed.reshape(e).cpu().numpy())
    tol = ref.TOL_ABS + ref.TOL_REL * np.abs(want) + np.abs(want) * 2.0 ** -8
    for g in range(e):
        lo, hi = int(offsets[g]), int(offsets[g + 1])
        bound = summation_bound(_bits(tokens)[lo:hi], None, _u8(eq[g]).cpu().numpy(),
                                _u8(es[g]).cpu().numpy(), k, alpha=float(ed.reshape(e)[g]))
        assert np.all(np.abs(got[lo:hi] - want[lo:hi]) <= tol[lo:hi] + bound)


def test_weight_only_errors_say_what_is_wrong():
    from nvfp4 import compiler
    x, _, (q, s, d), (wq, ws, wd) = _operands()
    with pytest.raises(TypeError, match="weight-only matmuls take bf16 or f16 activations, "
                                        "got f32"):
        compiler.matmul(x.float(), None, wq, ws, b_decode=wd)
    with pytest.raises(ValueError, match="bf16/f16 activations have no a_decode"):
        compiler.matmul(x, None, wq, ws, a_decode=d, b_decode=wd)
    with pytest.raises(ValueError, match="input_options do not apply"):
        compiler.linear(x, wq, ws, wd, weight_only=True, input_options={"amax": 1.0})
    layer = nvnn.Linear.from_quantized(wq, ws, wd, weight_only=True)
    with pytest.raises(TypeError, match=r"weight_only=True\) takes bfloat16 or float16 input"):
        layer(x.float())
    with pytest.raises(ValueError, match="no input scale"):
        nvnn.Linear.from_quantized(wq, ws, wd, weight_only=True, input_encode_scale=2.0)
    with pytest.raises(ValueError, match="mxfp4 has no decode scale"):
        nvnn.Linear.from_quantized(wq, ws, wd, fmt="mxfp4")


@pytest.mark.parametrize("device", DEVICES)
def test_linear_from_quantized_takes_a_static_input_scale(device):
    """W4A4 with a checkpoint's calibrated activation scale: every call's
    quantize uses it (no amax), as quantize(encode_scale=...) does."""
    nv = torch.ops.nvfp4
    x, _, _, (wq, ws, wd) = _operands()
    x, wq, ws, wd = (t.to(device) for t in (x, wq, ws, wd))
    enc = torch.tensor(96.0, device=device)
    layer = nvnn.Linear.from_quantized(wq, ws, wd, input_encode_scale=enc)
    q, s, d = nv.quantize(x, encode_scale=enc)
    want = nv.matmul(q, s, wq, ws, d, wd)
    assert torch.equal(layer(x), want)
    assert "input_encode_scale" in dict(layer.named_buffers())
    # model.to(dtype) leaves the stored scales exact (bits in int32 buffers)
    layer.to(torch.float16)
    assert torch.equal(layer(x), want)


@pytest.mark.parametrize("device", DEVICES)
def test_grouped_experts_with_per_expert_static_scales(device, monkeypatch):
    """Each expert's tokens quantized with its own calibrated scale: equal,
    bit for bit, to quantizing each expert's tokens alone and running its
    matmul, in both layouts (tokens padded to S rows per expert, and to the
    largest expert's count when that buffer would be large)."""
    nv = torch.ops.nvfp4
    e, n, k = 3, 32, 64
    w = _bf16((e, n, k), 61).to(device)
    wq, ws, wd = nv.quantize(w, swizzle=False)
    enc = torch.tensor([40.0, 300.0, 96.0], device=device)
    layer = nvnn.GroupedExperts.from_quantized(wq, ws, wd.reshape(e),
                                              input_encode_scale=enc)
    x = _bf16((13, k), 62, scale=3.0).to(device)
    offsets = torch.tensor([0, 6, 6, 13], dtype=torch.int32, device=device)
    want = torch.empty(13, n, dtype=torch.bfloat16, device=device)
    for g in range(e):
        lo, hi = int(offsets[g]), int(offsets[g + 1])
        if hi == lo:
            continue
        q, s, d = nv.quantize(x[lo:hi], encode_scale=enc[g])
        want[lo:hi] = nv.matmul(q, s, layer.weight_values[g], layer.weight_scales[g], d,
                                layer.weight_decode.view(torch.float32)[g])
    assert torch.equal(layer(x, offsets), want)
    monkeypatch.setattr(nvnn, "_PADDED_TOKEN_ELEMENTS", 0)  # the offsets-read layout
    assert torch.equal(layer(x, offsets), want)
    bad = torch.tensor([0, 6, 3, 13], dtype=torch.int32, device=device)
    with pytest.raises(ValueError, match=r"group_offsets\[2\] = 3 is below group_offsets\[1\] = 6"):
        layer(x, bad)
    with pytest.raises(ValueError, match="the last offset is the token count 13"):
        layer(x, torch.tensor([0, 6, 6, 12], dtype=torch.int32, device=device))
