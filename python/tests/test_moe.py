"""The MoE routing ops (docs/spec.md 2.11: nvfp4.moe_route, moe_dispatch,
moe_combine) through the Python API, the torch ops and nvfp4.nn.MoEExperts;
their bits against python/nvfp4/reference.py are python -m
nvfp4_testing.selfcheck moe's."""

import os

import numpy as np
import pytest

from nvfp4 import compiler
from nvfp4 import reference as ref


def _targets():
    from nvfp4 import runtime
    return ["cpu"] + (["gpu"] if runtime.available() and runtime.gpu_available() else [])


def _bf16(rng, shape, scale=1.0):
    return ref.f32_to_bf16_bits((rng.standard_normal(shape) * scale).astype(np.float32))


@pytest.mark.parametrize("target", _targets())
def test_moe_block_example(target):
    """docs/examples/moe_block.mlir (route, dispatch, quantize, gate_up,
    swiglu, quantize, down, combine) run as one program equals its ops run
    one by one through the API, bit for bit (on the GPU the program runs
    its GEMMs fused, the ops as separate programs), and is within the
    4-bit quantization error of the float64 block; the masked slot and the
    zero weight add nothing."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "examples",
                        "moe_block.mlir")
    rng = np.random.default_rng(29)
    T, K, E, H, I = 16, 2, 8, 1024, 384
    hidden = _bf16(rng, (T, H))
    ids = np.stack([rng.permutation(E)[:K] for _ in range(T)]).astype(np.int32)
    ids[3, 1] = E          # transformers' masked slot
    ids[5] = [6, 6]        # one expert twice
    w = rng.uniform(0.1, 1, (T, K)).astype(np.float32)
    w[7, 0] = 0.0
    weights = ref.f32_to_bf16_bits(w)
    w1 = (rng.standard_normal((E, 2 * I, H)) / 32).astype(np.float32)
    w2 = (rng.standard_normal((E, H, I)) / 20).astype(np.float32)
    w1q, w1s, w1d = compiler.quantize(w1, block="16x16", target=target)
    w2q, w2s, w2d = compiler.quantize(w2, block="16x16", target=target)
    got = np.asarray(compiler.run_program(open(path).read(),
                                          [hidden, ids, weights, w1q, w1s, w1d, w2q, w2s, w2d],
                                          1, target=target)[0])
    pairs, rows, offsets = compiler.moe_route(ids, E, target=target)
    x = compiler.moe_dispatch(hidden, pairs, target=target)
    gu = compiler.grouped_linear(x, w1q, w1s, w1d, offsets, out_dtype="bf16", target=target)
    h = compiler.swiglu(gu, target=target)
    y = compiler.grouped_linear(h, w2q, w2s, w2d, offsets, out_dtype="bf16", target=target)
    want = np.asarray(compiler.moe_combine(y, rows, weights, target=target))
    assert np.array_equal(got, want)
    # Against float64 of the dequantized weights (the activations'
    # quantization is the rest of the error).
    w1r = np.stack([np.asarray(compiler.dequantize(w1q[e], w1s[e], w1d[e], target="cpu"))
                    for e in range(E)]).astype(np.float64)
    w2r = np.stack([np.asarray(compiler.dequantize(w2q[e], w2s[e], w2d[e], target="cpu"))
                    for e in range(E)]).astype(np.float64)
    hf = ref.bf16_bits_to_f32(hidden).astype(np.float64)
    full = np.zeros((T, H))
    for t in range(T):
        for s in range(K):
            e = int(ids[t, s])
            if e >= E or w[t, s] == 0:
                continue
            g = hf[t] @ w1r[e].T
            act = g[0::2] / (1 + np.exp(-g[0::2])) * g[1::2]
            full[t] += float(ref.bf16_bits_to_f32(weights)[t, s]) * (act @ w2r[e].T)
    out = ref.bf16_bits_to_f32(got).astype(np.float64)
    rel = np.linalg.norm(out - full) / np.linalg.norm(full)
    assert rel < 0.2, rel
    # Token 3's masked slot is dropped; token 7's zero weight adds nothing.
    assert int(np.asarray(rows)[3, 1]) == -1


def test_moe_ops_refuse_bad_input_and_write_nothing():
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 4, (6, 2)).astype(np.int32)
    with pytest.raises(TypeError, match="ids: integers"):
        compiler.moe_route(ids.astype(np.float32), 4)
    for bad in (0, True, 2 ** 31):
        with pytest.raises(ValueError, match="num_experts must be an integer"):
            compiler.moe_route(ids, bad)
    with pytest.raises(ValueError, match=r"expected ids \[T, K\]"):
        compiler.moe_route(ids.reshape(-1), 4)
    x = rng.standard_normal((6, 16)).astype(np.float32)
    with pytest.raises(ValueError, match=r"expected sorted_pairs \[T \* K\] for T = 6"):
        compiler.moe_dispatch(x, np.arange(7, dtype=np.int32))
    pairs, rows, _ = compiler.moe_route(ids, 4, target="cpu")
    y = compiler.moe_dispatch(x, pairs, target="cpu")
    out = np.full((6, 16), 7.0, np.float32)
    with pytest.raises(ValueError, match="pair_rows and weights of one shape"):
        compiler.moe_combine(y, rows, np.ones((6, 3), np.float32), out=out, target="cpu")
    with pytest.raises(ValueError, match="out_dtype must be"):
        compiler.moe_combine(y, rows, np.ones((6, 2), np.float32), out_dtype="f64")
    assert (out == 7.0).all()
    # A dispatch of the route's pairs gives each pair its token's row.
    flat = np.asarray(pairs)
    assert np.array_equal(y, x[flat // 2])


@pytest.mark.parametrize("target", _targets())
def test_moe_experts_routing(target):
    """nvfp4.nn.MoEExperts routes with the nvfp4 ops: a masked slot (index
    E, or negative) and a zero weight add nothing, even when their expert's
    row would be NaN; the result equals the same block with those slots'
    weights zero, and the ops' chain run by hand, bit for bit."""
    torch = pytest.importorskip("torch")
    import nvfp4.nn as nvnn
    device = "cuda" if target == "gpu" else "cpu"
    E, H, I, T, K = 6, 64, 48, 11, 3
    g = torch.Generator().manual_seed(31)
    w1 = (torch.randn(E, 2 * I, H, generator=g) / 8).to(torch.bfloat16)
    w2 = (torch.randn(E, H, I, generator=g) / 7).to(torch.bfloat16)
    block = nvnn.MoEExperts.from_weights(w1.to(device), w2.to(device))
    x = torch.randn(T, H, generator=g).to(torch.bfloat16).to(device)
    wts, idx = torch.topk(torch.softmax(torch.randn(T, E, generator=g), -1), K)
    idx, wts = idx.to(device), wts.to(torch.bfloat16).to(device)
    masked, zeroed = idx.clone(), wts.clone()
    masked[0, 2] = E
    masked[4, 0] = -1
    masked[6, 1] = 2 ** 32 + 1   # an int64 index past int32: dropped, not expert 1
    zeroed[0, 2] = zeroed[4, 0] = zeroed[6, 1] = 0
    got = block(x, masked, wts)
    assert torch.equal(got.view(torch.int16), block(x, idx, zeroed).view(torch.int16))
    # By hand: the three routing ops around the experts.
    dropped = torch.where((masked >= 0) & (masked < E), masked, -1).to(torch.int32)
    pairs, rows, offsets = torch.ops.nvfp4.moe_route(dropped, E)
    xs = torch.ops.nvfp4.moe_dispatch(x, pairs)
    h = block.gate_up(xs, offsets, swiglu={})
    y = block.down(h, offsets)
    # bf16 rows and weights: each product rounded to bf16 (torch's y * w).
    want = torch.ops.nvfp4.moe_combine(y, rows, wts, out_dtype="bf16", product_dtype="bf16")
    assert torch.equal(got.view(torch.int16), want.view(torch.int16))
    assert int(rows[0, 2]) == -1 and int(rows[4, 0]) == -1 and int(rows[6, 1]) == -1
    # An empty batch.
    empty = block(x[:0], idx[:0], wts[:0])
    assert empty.shape == (0, H)


def test_cuda_views_at_an_offset_are_refused():
    """The GPU routing kernels read and write up to 16 bytes at once along a
    row: a CUDA view starting off that alignment is refused before anything
    runs (a clone is accepted)."""
    torch = pytest.importorskip("torch")
    if "gpu" not in _targets() or not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    x = torch.randn(9 * 64 + 1, device="cuda").to(torch.bfloat16)[1:].view(9, 64)
    pairs = torch.arange(18, dtype=torch.int32, device="cuda")
    with pytest.raises(ValueError, match="moe_dispatch: x: a CUDA tensor must start"):
        compiler.moe_dispatch(x, pairs)
    assert compiler.moe_dispatch(x.clone(), pairs).shape == (18, 64)
    rows = torch.arange(18, dtype=torch.int32, device="cuda").view(9, 2)
    w = torch.ones(9, 2, device="cuda")
    y = torch.randn(18 * 64 + 1, device="cuda")[1:].view(18, 64)
    with pytest.raises(ValueError, match="moe_combine: y: a CUDA tensor must start"):
        compiler.moe_combine(y, rows, w)
    assert compiler.moe_combine(y.clone(), rows, w).shape == (9, 64)
