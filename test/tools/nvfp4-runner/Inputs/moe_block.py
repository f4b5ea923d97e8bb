"""Inputs and the expected output of docs/examples/moe_block.mlir for
moe-block.test: `make DIR` writes the nine inputs (random tokens, router
ids with a masked slot and one expert chosen twice, weights with a zero,
NVFP4 experts) and want.npy, the block computed op by op through the
Python API on the CPU; `check DIR` compares the runner's out.npy with it."""

import sys

import numpy as np

from nvfp4 import compiler
from nvfp4 import reference as ref


def make(d):
    rng = np.random.default_rng(41)
    T, K, E, H, I = 16, 2, 8, 1024, 384
    hidden = ref.f32_to_bf16_bits(rng.standard_normal((T, H)).astype(np.float32))
    ids = np.stack([rng.permutation(E)[:K] for _ in range(T)]).astype(np.int32)
    ids[2, 0], ids[9] = E + 3, [5, 5]
    w = rng.uniform(0.1, 1, (T, K)).astype(np.float32)
    w[11, 1] = 0.0
    weights = ref.f32_to_bf16_bits(w)
    w1 = compiler.quantize((rng.standard_normal((E, 2 * I, H)) / 32).astype(np.float32),
                           block="16x16", target="cpu")
    w2 = compiler.quantize((rng.standard_normal((E, H, I)) / 20).astype(np.float32),
                           block="16x16", target="cpu")
    args = [hidden, ids, weights, *w1, *w2]
    for i, a in enumerate(args):
        np.save(f"{d}/in{i}.npy", a)
    pairs, rows, offsets = compiler.moe_route(ids, E, target="cpu")
    x = compiler.moe_dispatch(hidden, pairs, target="cpu")
    gu = compiler.grouped_linear(x, *w1, offsets, out_dtype="bf16", target="cpu")
    h = compiler.swiglu(gu, target="cpu")
    y = compiler.grouped_linear(h, *w2, offsets, out_dtype="bf16", target="cpu")
    np.save(f"{d}/want.npy", compiler.moe_combine(y, rows, weights, target="cpu"))


def check(d):
    got, want = np.load(f"{d}/out.npy"), np.load(f"{d}/want.npy")
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    assert np.array_equal(got, want), int(np.count_nonzero(got != want))
    assert np.isfinite(ref.bf16_bits_to_f32(got)).all()
    print("moe block: the runner's output equals the ops one by one")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
