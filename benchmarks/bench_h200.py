"""nvfp4-mlir next to its peers on one GPU, in one process (one device call).

    python3 benchmarks/bench_h200.py [--out DIR] [--cases gpumode1,dense_8k]
                                     [--no-peers] [--reps N]

Runs, in this order and in the same process:
  1. benchmarks/peers/peers_h200.py (a verbatim copy of the team's peer
     script): the measured copy bandwidth and bf16 matmul peak, and per case
     cuBLAS bf16, torch._grouped_mm, dequantize-then-matmul, and two Triton
     FP4 kernels, each timed as CUDA-graph replays;
  2. nvfp4-mlir on the same cases: the program is compiled by nvfp4-runner for
     this GPU (sm_90a: convert-nvfp4-to-sm90), timed as CUDA-graph replays of
     one call (--graph, comparable with the peers) and as plain back-to-back
     calls (what a caller without graphs sees: host launch overhead
     included); the grouped cases both as a list of problems (GPU-mode's
     form, `independent`) and in the MoE layout (`contiguous`);
  3. nvfp4 quantize of an 8192 x 8192 bf16 tensor against its HBM floor.

Every timed output is checked: sampled rows of each group against the fp64
reference of the dequantized operands (numerics bar plus the fp32 summation
bound), on random data with zero blocks and E4M3-subnormal scales.

Writes DIR/bench.json (one object per measurement) and DIR/bench.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from nvfp4 import compiler  # noqa: E402
from nvfp4 import reference as ref  # noqa: E402
from nvfp4.selfcheck import _tolerance, random_operand, summation_bound  # noqa: E402

# The peers' cases (peers_h200.py CASES): group rows, N, K.
CASES = {
    "gpumode1": ([80, 176, 128, 72, 64, 248, 96, 160], 4096, 7168),
    "gpumode2": ([40, 76, 168, 72, 164, 148, 196, 160], 7168, 2048),
    "gpumode3": ([192, 320], 3072, 4096),
    "gpumode4": ([128, 384], 4096, 1536),
    "moe_prefill": ([2048] * 8, 4096, 7168),
    "dense_8k": ([8192], 8192, 8192),
}
SAMPLE_ROWS = 16


def run_peers(cases):
    """peers_h200.main(), its printed JSON lines parsed."""
    sys.path.insert(0, str(ROOT / "benchmarks" / "peers"))
    import peers_h200  # noqa: E402  (torch, triton)

    assert all(peers_h200.CASES[c] == CASES[c] for c in cases), "peer cases changed"
    peers_h200.CASES = {c: peers_h200.CASES[c] for c in cases}
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        peers_h200.main()
    out = text.getvalue()
    print(out, flush=True)
    rows = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            rows[r["case"]] = r
    first = out.splitlines()[0]  # measured copy bandwidth X TB/s, bf16 matmul Y TFLOP/s
    bw = float(first.split("bandwidth")[1].split("TB/s")[0]) * 1e12
    peak = float(first.split("bf16 matmul")[1].split("TFLOP/s")[0]) * 1e12
    return rows, bw, peak


def check(name, got, a, b, rows_of):
    """Sampled rows of each group against the fp64 reference; returns the
    largest |err| / tolerance (must be <= 1)."""
    worst = 0.0
    for g, (a_q, a_s, m) in enumerate(a):
        if m == 0:
            continue
        b_q, b_s = b[g]
        n, k = b_q.shape[0], b_q.shape[1] * 2
        idx = np.linspace(0, m - 1, min(m, SAMPLE_ROWS)).astype(int)
        s_rm = ref.unswizzle_scales(a_s, m, k // 16)[idx]
        sub_q, sub_s = a_q[idx], ref.swizzle_scales(s_rm)
        kw = dict(a_rows=len(idx), b_rows=n, swizzled=True)
        want = ref.matmul_reference(sub_q, sub_s, b_q, b_s, **kw)
        bound = summation_bound(sub_q, sub_s, b_q, b_s, k, **kw)
        have = np.asarray(rows_of(g, idx), dtype=np.float64)
        err = np.abs(have - want) / (_tolerance(want, "f16") + bound)
        worst = max(worst, float(np.nanmax(err)))
        if not np.all(np.isfinite(have)):
            worst = float("inf")
    status = "ok" if worst <= 1.0 else "WRONG"
    print(f"check {name}: max |err|/tolerance {worst:.3g} on {SAMPLE_ROWS} rows per group "
          f"({status})", flush=True)
    return worst


def time_ours(label, fn, reps, graph_only=False):
    """(graph replays, back-to-back calls) medians in us (None when not
    measured), and the outputs."""
    t_stream = None
    if not graph_only:
        outs, t_stream = fn(benchmark=True, warmup=5, reps=reps)
    try:
        outs_g, t_graph = fn(benchmark=True, graph=True, warmup=5, reps=reps)
        graph_us = t_graph.median_us
        if graph_only:
            outs = outs_g
    except compiler.RunnerError as e:
        print(f"{label}: graph timing failed: {e}", flush=True)
        if graph_only:
            raise
        graph_us = None
    calls_us = t_stream.median_us if t_stream else None
    print(f"{label}: {graph_us} us (graph replays), {calls_us} us (calls)", flush=True)
    return graph_us, calls_us, outs


def bench_case(name, reps, rng, forms=("matmul", "independent", "contiguous"),
               graph_only=False):
    ms, n, k = CASES[name]
    a = [random_operand(m, k, "nvfp4", rng, modest=True) + (m,) for m in ms]
    b = [random_operand(n, k, "nvfp4", rng, modest=True) for _ in ms]
    flops = sum(2 * m * n * k for m in ms)
    results = []
    if len(ms) == 1:
        fn = lambda **o: compiler.matmul(a[0][0], a[0][1], b[0][0], b[0][1], out="f16",
                                         target="gpu", **o)
        tg, ts, c = time_ours(f"{name} matmul", fn, reps, graph_only)
        err = check(f"{name} matmul", c, a, b, lambda g, idx: c[idx])
        results.append(dict(case=name, form="matmul", graph_us=tg, calls_us=ts, check=err,
                            tflops=flops / (tg or ts) * 1e-6))
        return results
    if "independent" in forms:
        fn = lambda **o: compiler.grouped_matmul(
            "independent", [x[0] for x in a], [x[1] for x in a], [y[0] for y in b],
            [y[1] for y in b], out="f16", target="gpu", **o)
        tg, ts, c = time_ours(f"{name} independent", fn, reps, graph_only)
        err = check(f"{name} independent", c, a, b, lambda g, idx: c[g][idx])
        results.append(dict(case=name, form="independent", graph_us=tg, calls_us=ts,
                            check=err, tflops=flops / (tg or ts) * 1e-6))
    if "contiguous" not in forms:
        return results
    # MoE layout: rows concatenated, weights stacked, group offsets.
    offsets = np.concatenate([[0], np.cumsum(ms)]).astype(np.int32)
    a_cat = np.concatenate([x[0] for x in a])
    a_rm = np.concatenate([ref.unswizzle_scales(x[1], m, k // 16) for x, m in zip(a, ms)])
    b_stack = np.stack([y[0] for y in b])
    b_s = np.stack([y[1] for y in b])
    fn = lambda **o: compiler.grouped_matmul(
        "contiguous", a_cat, ref.swizzle_scales(a_rm), b_stack, b_s, group_offsets=offsets,
        out="f16", target="gpu", **o)
    tg, ts, c = time_ours(f"{name} contiguous", fn, reps, graph_only)
    err = check(f"{name} contiguous", c, a, b,
                lambda g, idx: c[offsets[g]:offsets[g + 1]][idx])
    results.append(dict(case=name, form="contiguous", graph_us=tg, calls_us=ts, check=err,
                        tflops=flops / (tg or ts) * 1e-6))
    return results


def bench_quantize(reps, rng, bw, shape=(8192, 8192)):
    """Two rows: the tensor amax computed by the op (two passes over x), and
    supplied by the caller (one pass; e.g. the amax of a previous step)."""
    x = (rng.standard_normal(shape) * np.exp(rng.standard_normal(shape))).astype(np.float32)
    x[:64] = 0.0  # zero blocks
    bits = ref.f32_to_bf16_bits(x)
    amax = np.float32(np.max(np.abs(ref.bf16_bits_to_f32(bits))))
    moved = x.size * 2 + x.size // 2 + x.size // 16
    rows = []
    for form, opts, passes in (("quantize bf16 1x16 swizzled", {}, 2),
                               ("quantize bf16 1x16 swizzled, caller amax", dict(amax=amax), 1)):
        fn = lambda **o: compiler.quantize(bits, target="gpu", **opts, **o)
        tg, ts, outs = time_ours(f"{form} {shape[0]}x{shape[1]}", fn, reps)
        # S_dec from the tensor amax, and the first 256 rows (two 128-row
        # scale tiles) bit for bit against the reference; the GPU suite
        # checks whole tensors.
        s_dec = np.asarray(ref.nvfp4_global_scales(amax)[1], np.float32)
        ok = bool(np.asarray(outs[2], np.float32).reshape(-1)[0] == s_dec.reshape(-1)[0])
        want = ref.quantize_nvfp4(bits[:256], amax=amax, swizzle=True)
        ok = ok and np.array_equal(outs[0][:256], want[0]) and \
            np.array_equal(outs[1][:2], want[1])
        # Each pass reads x once; the output is written once.
        floor = (moved + (passes - 1) * x.size * 2) / bw * 1e6 if bw else None
        print(f"{form}: first 256 rows and S_dec {'bit-exact' if ok else 'WRONG'}; "
              f"floor {floor and round(floor, 1)} us", flush=True)
        rows.append(dict(case=f"quantize_{shape[0]}x{shape[1]}", form=form, graph_us=tg,
                         calls_us=ts, check=0.0 if ok else float("inf"), hbm_floor_us=floor,
                         gbps=(moved + (passes - 1) * x.size * 2) / (tg or ts) * 1e-3))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/nvfp4-bench"))
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--reps", type=int, default=30)
    args = p.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    peers, bw, peak = ({}, None, None) if args.no_peers else run_peers(cases)
    rng = np.random.default_rng(2026)
    rows = []
    for name in cases:
        for r in bench_case(name, args.reps, rng):
            pr = peers.get(name, {})
            r.update({k: pr.get(k) for k in ("floor_us", "hbm_floor_us", "mma_floor_us",
                                              "cublas_bf16_us", "grouped_mm_bf16_us",
                                              "torch_dequant_us", "triton_fp4_us",
                                              "dot_scaled_us")})
            rows.append(r)
    rows += bench_quantize(args.reps, rng, bw)
    meta = dict(commit=os.environ.get("NVFP4_COMMIT", "unknown"),
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                copy_bandwidth_tbs=bw and bw / 1e12, bf16_peak_tflops=peak and peak / 1e12,
                seconds=round(time.time() - start, 1))
    with open(out / "bench.json", "w") as f:
        json.dump(dict(meta=meta, rows=rows), f, indent=1)
    lines = [f"# nvfp4-mlir vs peers, {meta['date']}, commit {meta['commit']}", ""]
    if bw:
        lines.append(f"Measured in the same process: copy bandwidth {bw / 1e12:.2f} TB/s, "
                     f"bf16 matmul peak {peak / 1e12:.0f} TFLOP/s. Times are medians in us.")
        lines.append("")
    head = ("| case | form | ours (graph) | ours (calls) | ours TFLOP/s | floor | cuBLAS bf16 | "
            "grouped_mm bf16 | Triton FP4 | dot_scaled | torch dequant | check |")
    lines += [head, "|" + "---|" * 12]
    fmt = lambda v: "-" if v is None else f"{v:.1f}"
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['form']} | {fmt(r['graph_us'])} | {fmt(r['calls_us'])} | "
            f"{fmt(r.get('tflops'))} | "
            f"{fmt(r.get('floor_us') or r.get('hbm_floor_us'))} | {fmt(r.get('cublas_bf16_us'))} | "
            f"{fmt(r.get('grouped_mm_bf16_us'))} | {fmt(r.get('triton_fp4_us'))} | "
            f"{fmt(r.get('dot_scaled_us'))} | {fmt(r.get('torch_dequant_us'))} | "
            f"{r['check']:.2g} |")
    (out / "bench.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    bad = [r for r in rows if not r["check"] <= 1.0]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
