"""The main job: an NVFP4 MoE layer end to end through the compiler.

    python3 -m nvfp4.demo [--target auto|cpu|gpu] [--program docs/examples/moe_grouped.mlir]

Runs docs/examples/moe_grouped.mlir (quantize the activations and 8 expert
weights, grouped block-scaled matmul over the GPU-mode ragged token counts)
in process (nvfp4.runtime) on random bf16 data, then prints a checksum of the output,
the largest error against an fp64 reference of the same quantized operands
(python/nvfp4/reference.py) and the quantization error against the
unquantized bf16 product. On a machine without a GPU it runs on the CPU.
"""

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

from . import compiler, runtime
from . import reference as ref

TOKENS_PER_EXPERT = [80, 176, 128, 72, 64, 248, 96, 160]  # GPU-mode case 1
N, K = 512, 2048


def main(argv=None):
    repo = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="auto", choices=["auto", "cpu", "gpu"])
    parser.add_argument("--program", default=str(repo / "docs/examples/moe_grouped.mlir"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    G, M = len(TOKENS_PER_EXPERT), sum(TOKENS_PER_EXPERT)
    x_bits, x = ref.make_test_tensor((M, K), args.seed, dtype="bf16")
    w_bits, w = ref.make_test_tensor((G, N, K), args.seed + 1, dtype="bf16")
    offsets = np.concatenate([[0], np.cumsum(TOKENS_PER_EXPERT)]).astype(np.int32)

    target = args.target
    if target == "auto":  # numpy data: copied to the GPU when there is one
        target = "gpu" if runtime.gpu_available() else "cpu"
    (c_bits,), timing = compiler.run_program(Path(args.program).read_text(),
                                             [x_bits, w_bits, offsets], 1,
                                             target=target, benchmark=True,
                                             warmup=2, reps=5)
    c = ref.bf16_bits_to_f32(c_bits).astype(np.float64)

    # Reference: the same quantization (bit-exact by contract), fp64 products.
    xq, xs, xd = ref.quantize_nvfp4(x_bits, swizzle=True)
    wq, ws, wd = ref.quantize_nvfp4(w_bits, block=(16, 16), swizzle=True)
    want = ref.grouped_matmul_contiguous(xq, xs, wq, ws, offsets, xd * wd, swizzled=True)
    err = np.abs(c - want)
    tol = ref.TOL_ABS + (ref.TOL_REL + 2.0 ** -8) * np.abs(want)  # + bf16 output rounding
    exact = np.concatenate([x[offsets[g]:offsets[g + 1]].astype(np.float64) @
                            w[g].astype(np.float64).T for g in range(G)])
    rel_rms = np.sqrt(np.mean((c - exact) ** 2) / np.mean(exact ** 2))

    checksum = hashlib.sha256(np.ascontiguousarray(c_bits).tobytes()).hexdigest()[:16]
    print(f"MoE layer: {G} experts, tokens per expert {TOKENS_PER_EXPERT}, N={N}, K={K}")
    print(f"device: {timing.device}; median {timing.median_us:.1f} us per call "
          f"(quantize x2 + grouped matmul, {timing.reps} reps)")
    print(f"output checksum (sha256 of the bf16 bits): {checksum}  sum={c.sum():.6g}")
    print(f"max |C - ref| = {err.max():.4g} (ref: fp64 product of the same NVFP4 operands); "
          f"{int((err > tol).sum())} of {c.size} outside 1e-3 + 1e-3|ref| + bf16 rounding")
    print(f"relative RMS error vs the unquantized bf16 product: {rel_rms:.4f} "
          f"(NVFP4 quantization error)")
    return 0 if (err <= tol).all() else 1


if __name__ == "__main__":
    sys.exit(main())
