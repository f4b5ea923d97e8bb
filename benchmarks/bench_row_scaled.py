"""What row-scaled NVFP4 costs on the GPU against per-tensor NVFP4 (issue 11).

    python3 benchmarks/bench_row_scaled.py            # JSON on stdout
    python3 benchmarks/bench_row_scaled.py --one matmul-rows-ab --shape 4096,7168,4096
        # one call of one variant, for ncu --kernel-name regex:nvfp4_sm90_gemm

Kernel time per call (a torch CUDA graph of 20 calls back to back, replayed,
timed with CUDA events: bench_runtime._graph_time) of
  * quantize of bf16 [M, K], swizzled scales: per tensor (amax kernel, then
    quantize; one kernel for small inputs) and row-scaled (one kernel, a
    warp per row);
  * the dense matmul [M, K] x [N, K] -> bf16 on the default GPU target
    (sm_90a on an H200): decode scales per tensor, A per row (activations,
    TransformerEngine's use), A and B per row.
The operands are random codes with unit block scales (values do not change
the kernels' work).
"""

import argparse
import json

from bench_runtime import _graph_time
from nvfp4 import compiler

QUANTIZE_SHAPES = [(128, 7168), (4096, 7168), (16384, 4096)]
MATMUL_SHAPES = [(128, 7168, 4096), (4096, 7168, 4096), (8192, 8192, 8192)]
MATMUL_VARIANTS = ["matmul-tensor", "matmul-rows-a", "matmul-rows-ab"]


def _quantize_call(torch, variant, m, k):
    x = torch.randn((m, k), dtype=torch.bfloat16, device="cuda")
    rows = variant == "quantize-rows"
    return lambda: compiler.quantize(x, row_scaled=rows)


def _matmul_call(torch, variant, m, n, k):
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randint(0, 256, (m, k // 2), dtype=torch.uint8, device="cuda", generator=g)
    b = torch.randint(0, 256, (n, k // 2), dtype=torch.uint8, device="cuda", generator=g)
    sa = torch.full(compiler.swizzled_shape((), m, k // 16), 0x38, dtype=torch.uint8,
                    device="cuda")
    sb = torch.full(compiler.swizzled_shape((), n, k // 16), 0x38, dtype=torch.uint8,
                    device="cuda")
    da = (torch.rand(m, device="cuda") + 0.5 if variant != "matmul-tensor"
          else torch.tensor(0.75, device="cuda"))
    db = (torch.rand(n, device="cuda") + 0.5 if variant == "matmul-rows-ab"
          else torch.tensor(1.25, device="cuda"))
    out = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
    return lambda: compiler.matmul(a, sa, b, sb, a_decode=da, b_decode=db, out_dtype="bf16",
                                   out=out)


def _call(torch, variant, shape):
    if variant.startswith("quantize"):
        return _quantize_call(torch, variant, *shape)
    return _matmul_call(torch, variant, *shape)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--one", help="run one call of this variant (for ncu) and exit")
    p.add_argument("--shape", help="its shape: M,K (quantize) or M,N,K (matmul)")
    args = p.parse_args()
    import torch
    if args.one:
        fn = _call(torch, args.one, tuple(int(v) for v in args.shape.split(",")))
        fn()
        torch.cuda.synchronize()
        fn()
        torch.cuda.synchronize()
        return
    res = {"device": torch.cuda.get_device_name(), "quantize": [], "matmul": []}
    for m, k in QUANTIZE_SHAPES:
        row = {"M": m, "K": k}
        for variant in ("quantize-tensor", "quantize-rows"):
            row[variant + "_us"] = round(_graph_time(torch, _call(torch, variant, (m, k))), 2)
        res["quantize"].append(row)
    for m, n, k in MATMUL_SHAPES:
        row = {"M": m, "N": n, "K": k}
        for variant in MATMUL_VARIANTS:
            us = _graph_time(torch, _call(torch, variant, (m, n, k)))
            row[variant + "_us"] = round(us, 2)
            row[variant + "_tflops"] = round(2.0 * m * n * k / us / 1e6, 1)
        res["matmul"].append(row)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
