"""nvfp4-mlir next to its peers on one GPU, in one process (one device call).

    python3 benchmarks/bench_h200.py [--out DIR] [--cases gpumode1,dense_8k]
                                     [--no-peers] [--reps N] [--check-shared [PATH]]

Runs, in this order and in the same process:
  1. benchmarks/peers.py, the project's peer measurements (its docstring
     says how they are made and checked): the copy bandwidth (kernel-driven)
     and the bf16 matmul peak, then per case, on the same NVFP4 operands
     that step 2 times, cuBLAS bf16 (one call per group writing its output
     slice), torch._grouped_mm, FP8 rowwise torch._scaled_mm per group and
     torch._scaled_grouped_mm, each timed as CUDA-graph replays and checked
     against the fp64 product; without torch or CUDA it says so and the rest
     runs without peers;
  2. nvfp4-mlir on the same cases, each right after its peers: the program
     is compiled by nvfp4-runner for this GPU (sm_90a:
     convert-nvfp4-to-sm90), timed as CUDA-graph replays of one call
     (--graph, comparable with the peers) and as plain back-to-back calls
     (what a caller without graphs sees: host launch overhead included); the
     grouped cases both as a list of problems (GPU-mode's form,
     `independent`) and in the MoE layout (`contiguous`);
  3. nvfp4 quantize of an 8192 x 8192 bf16 tensor against its HBM floor.

--check-shared also runs the team's shared peer script (PATH, by default
ROOT/../shared/bench/peers_h200.py or else ROOT/shared/bench/peers_h200.py)
in this process after the cases (so that a CUDA error of its own cannot
cost peers.py's numbers), and prints its numbers next to peers.py's at the
end (and in bench.md): the one-time check of the project's peers against
it. A device copy may lack the script; then it says so and skips the
comparison.

Every timed output is checked: sampled rows of each group against the fp64
reference of the dequantized operands (numerics bar plus the fp32 summation
bound), on random data with zero blocks and E4M3-subnormal scales.

Writes DIR/bench.json (one object per measurement; the peers' own rows under
"peers") and DIR/bench.md.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

import peers  # noqa: E402  (numpy only until it measures)
from nvfp4 import compiler  # noqa: E402
from nvfp4 import reference as ref  # noqa: E402
from nvfp4_testing.selfcheck import _tolerance, summation_bound  # noqa: E402

# Group rows, N, K of each case: the peers' table (one owner).
CASES = peers.CASES
SAMPLE_ROWS = 16


# Where the team's shared peer script may be (the first that exists is run).
SHARED_PEERS = (ROOT.parent / "shared" / "bench" / "peers_h200.py",
                ROOT / "shared" / "bench" / "peers_h200.py")
# Peer numbers copied into every row of bench.json / bench.md.
PEER_KEYS = ("floor_us", "hbm_floor_us", "mma_floor_us", "cublas_bf16_us", "grouped_mm_bf16_us",
             "fp8_rowwise_us", "fp8_grouped_us")
COMPARE_KEYS = ("floor_us", "cublas_bf16_us", "grouped_mm_bf16_us", "fp8_rowwise_us",
                "fp8_grouped_us")


def peer_machine():
    """peers.measure_machine(), or None (the reason printed): without torch or
    CUDA, or if it fails, the benchmark goes on without peers."""
    try:
        machine = peers.measure_machine()
    except peers.Unavailable as e:
        print(f"peers: skipped: {e}", flush=True)
        return None
    except Exception as e:
        print(f"peers: machine limits failed ({peers.short_error(e)}); no peers", flush=True)
        return None
    print(peers.machine_line(machine), flush=True)
    return machine


def measure_peers(name, a, b, machine):
    """peers.measure_case() on this case's operands; {} if it fails."""
    try:
        pr = peers.measure_case(name, a, b, machine)
    except Exception as e:
        print(f"peers {name}: failed ({peers.short_error(e)})", flush=True)
        return {}
    print("\n".join(peers.check_lines(pr)), flush=True)
    print(json.dumps(pr), flush=True)
    return pr


def _release_torch():
    try:
        peers.release(peers.load_torch())
    except peers.Unavailable:
        pass


def run_shared(path, cases):
    """The team's shared peer script (path, or the first of SHARED_PEERS that
    exists when path is ""), run in this process on its own random data:
    dict(rows={case: its JSON row}, copy_bw_Bps, peak_bf16_tflops, path), or
    None with the reason printed."""
    tried = [Path(path)] if path else list(SHARED_PEERS)
    found = [t for t in tried if t.is_file()]
    if not found:
        print(f"check-shared: no shared peer script at {', '.join(map(str, tried))} "
              "(a device copy may lack it); no comparison", flush=True)
        return None
    path = found[0]
    text = io.StringIO()
    try:
        with contextlib.redirect_stdout(text):
            spec = importlib.util.spec_from_file_location("shared_peers_h200", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)  # torch, triton
            theirs = dict(mod.CASES)
            mod.CASES = {c: theirs[c] for c in cases if c in theirs}
            mod.main()
    except Exception as e:
        print(text.getvalue(), flush=True)
        print(f"check-shared: {path} failed ({peers.short_error(e)}); no comparison", flush=True)
        _release_torch()
        return None
    _release_torch()
    out = text.getvalue()
    print(out, flush=True)
    differ = [c for c in cases if theirs.get(c) != CASES[c]]
    if differ:
        print(f"check-shared: its cases lack or differ from bench_h200.CASES for {differ}: "
              "those are not compared", flush=True)
    rows = {}
    for line in out.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            if r.get("case") in CASES and r["case"] not in differ:
                rows[r["case"]] = r
    m = re.search(r"bandwidth ([0-9.]+) TB/s, bf16 matmul ([0-9.]+) TFLOP/s", out)
    return dict(path=str(path), rows=rows, copy_bw_Bps=m and float(m.group(1)) * 1e12,
                peak_bf16_tflops=m and float(m.group(2)))


def compare_lines(machine, peer_rows, shared):
    """Markdown: peers.py's numbers next to the shared script's."""
    def cell(v, err=None):
        if v is None:
            return f"failed: {err[:80]}" if err else "-"
        return f"{v:.2f}" if v < 100 else f"{v:.1f}"

    def ratio(ours, theirs):
        return f"{theirs / ours:.2f}" if ours and theirs else "-"

    lines = [f"peers.py next to {shared['path']} (same process, same shapes, its own "
             "random data and unit FP8 scales: times compare, errors do not); times in us.",
             "", "| case | quantity | peers.py | shared | shared / peers.py |",
             "|---|---|---|---|---|"]
    bw = machine and machine["copy_bw_Bps"] / 1e12
    sbw = shared["copy_bw_Bps"] and shared["copy_bw_Bps"] / 1e12
    pk = machine and machine["peak_bf16_tflops"]
    spk = shared["peak_bf16_tflops"]
    lines.append(f"| machine | copy bandwidth TB/s | {cell(bw)} | {cell(sbw)} | {ratio(bw, sbw)} |")
    lines.append(f"| machine | bf16 matmul peak TFLOP/s | {cell(pk)} | {cell(spk)} | "
                 f"{ratio(pk, spk)} |")
    ours_by_case = {r["case"]: r for r in peer_rows}
    for case in [c for c in CASES if c in ours_by_case or c in shared["rows"]]:
        pr, sr = ours_by_case.get(case, {}), shared["rows"].get(case, {})
        for key in COMPARE_KEYS:
            err_key = key[:-3] + "_err"
            ours, theirs = pr.get(key), sr.get(key)
            lines.append(f"| {case} | {key} | {cell(ours, pr.get(err_key))} | "
                         f"{cell(theirs, sr.get(err_key))} | {ratio(ours, theirs)} |")
    return lines


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
               graph_only=False, operands=None):
    """operands: (a, b) from peers.case_operands(); drawn from rng when None."""
    ms, n, k = CASES[name]
    a, b = operands if operands is not None else peers.case_operands(ms, n, k, rng)
    flops = sum(2 * m * n * k for m in ms)
    results = []
    if len(ms) == 1:
        fn = lambda **o: compiler.matmul(a[0][0], a[0][1], b[0][0], b[0][1], out_dtype="f16",
                                         target="gpu", **o)
        tg, ts, c = time_ours(f"{name} matmul", fn, reps, graph_only)
        err = check(f"{name} matmul", c, a, b, lambda g, idx: c[idx])
        results.append(dict(case=name, form="matmul", graph_us=tg, calls_us=ts, check=err,
                            tflops=flops / (tg or ts) * 1e-6))
        return results
    if "independent" in forms:
        fn = lambda **o: compiler.grouped_matmul(
            "independent", [x[0] for x in a], [x[1] for x in a], [y[0] for y in b],
            [y[1] for y in b], out_dtype="f16", target="gpu", **o)
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
        out_dtype="f16", target="gpu", **o)
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
    p.add_argument("--check-shared", nargs="?", const="", default=None, metavar="PATH",
                   help="also run the shared peer script (default ROOT/../shared/bench/"
                   "peers_h200.py, else ROOT/shared/bench/peers_h200.py) and print its "
                   "numbers next to peers.py's")
    args = p.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        p.error(f"unknown cases {unknown}; known: {', '.join(CASES)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    machine = None if args.no_peers else peer_machine()
    rng = np.random.default_rng(2026)
    rows, peer_rows = [], []
    for name in cases:
        a, b = peers.case_operands(*CASES[name], rng)
        pr = measure_peers(name, a, b, machine) if machine else {}
        if pr:
            peer_rows.append(pr)
        for r in bench_case(name, args.reps, rng, operands=(a, b)):
            r.update({k: pr.get(k) for k in PEER_KEYS})
            rows.append(r)
    shared = run_shared(args.check_shared, cases) if args.check_shared is not None else None
    bw = machine and machine["copy_bw_Bps"]
    peak = machine and machine["peak_bf16_tflops"] * 1e12
    rows += bench_quantize(args.reps, rng, bw)
    meta = dict(commit=os.environ.get("NVFP4_COMMIT", "unknown"),
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                copy_bandwidth_tbs=bw and bw / 1e12, bf16_peak_tflops=peak and peak / 1e12,
                torch=machine and machine["torch"], gpu=machine and machine["device"],
                seconds=round(time.time() - start, 1))
    result = dict(meta=meta, rows=rows, peers=peer_rows)
    if shared:
        result["shared_peers"] = shared
    with open(out / "bench.json", "w") as f:
        json.dump(result, f, indent=1)
    lines = [f"# nvfp4-mlir vs peers, {meta['date']}, commit {meta['commit']}", ""]
    if bw:
        lines.append(f"Measured in the same process (torch {machine['torch']}): copy bandwidth "
                     f"{bw / 1e12:.2f} TB/s (kernel-driven), bf16 matmul peak "
                     f"{peak / 1e12:.0f} TFLOP/s. Times are medians in us; peers from "
                     "benchmarks/peers.py (FP8: e4m3 rowwise, not the same numbers).")
        lines.append("")
    head = ("| case | form | ours (graph) | ours (calls) | ours TFLOP/s | floor | cuBLAS bf16 | "
            "grouped_mm bf16 | FP8 rowwise | FP8 grouped | check |")
    lines += [head, "|" + "---|" * 11]
    fmt = lambda v: "-" if v is None else f"{v:.1f}"
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['form']} | {fmt(r['graph_us'])} | {fmt(r['calls_us'])} | "
            f"{fmt(r.get('tflops'))} | "
            f"{fmt(r.get('floor_us') or r.get('hbm_floor_us'))} | {fmt(r.get('cublas_bf16_us'))} | "
            f"{fmt(r.get('grouped_mm_bf16_us'))} | {fmt(r.get('fp8_rowwise_us'))} | "
            f"{fmt(r.get('fp8_grouped_us'))} | {r['check']:.2g} |")
    if peer_rows:
        lines += ["", "Peer checks (sampled rows against the fp64 product):", ""]
        lines += [f"- {line}" for pr in peer_rows for line in peers.check_lines(pr)]
    if shared:
        lines += [""] + compare_lines(machine, peer_rows, shared)
    (out / "bench.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    bad = [r for r in rows if not r["check"] <= 1.0]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
