"""The peers of nvfp4-mlir, measured on the NVFP4 operands that bench_h200.py times.

    python3 benchmarks/peers.py [--cases gpumode1,dense_8k] [--reps N] [--json FILE]

benchmarks/bench_h200.py imports this module and runs it in its own process,
case by case, next to nvfp4-mlir; run alone it measures the peers only.

Operands. case_operands() draws a case's NVFP4 operands (packed E2M1 codes,
swizzled E4M3 block scales) exactly as bench_h200.py does, so with the same
generator both see the same data. Every peer computes C_g = A_g @ B_g^T for
each group g (A_g [m_g, K], B_g [N, K]; one N and K per case) from them:

  cublas_bf16      one torch.matmul per group on bf16 copies of the
                   dequantized operands (e2m1 x e4m3 has at most 6 significant
                   bits: the copies are exact), each writing bf16 straight
                   into its row slice of a preallocated [sum m, N] output
                   (out=; no extra copy kernel).
  grouped_mm_bf16  torch._grouped_mm on the same bf16 values in the MoE layout:
                   rows concatenated [sum m, K], weights stacked [G, N, K]
                   and passed as their [G, K, N] transposed view, int32 group
                   end offsets; one launch.
  fp8_rowwise      what a Hopper user runs instead of 4 bits: the same values
                   quantized to e4m3 with one float32 scale per row of A and
                   per row of B (amax / 448), torch._scaled_mm per group
                   (scale_a [m, 1], scale_b [1, N], bf16 out,
                   use_fast_accum=False) writing into its slice (out=).
  fp8_grouped      the same e4m3 operands and scales through
                   torch._scaled_grouped_mm (one launch; scale_a [sum m],
                   scale_b [G, N], bf16 out, use_fast_accum=False).

A peer that the installed torch lacks or that rejects the shapes gets
<peer>_us = None and the error in <peer>_err; the others still run.

Machine limits, measured in the same process before the cases:
copy_bw_Bps, a kernel-driven copy (torch.add(x, 1.0, out=y) over 2^30 fp32,
i.e. 4 GiB read + 4 GiB written per call; a same-dtype copy_ may run on the
copy engines and report less than the SMs can move), and peak_bf16_tflops,
an 8192^3 bf16 torch.matmul. Per case, floor_us = max(hbm_floor_us,
mma_floor_us): the bytes an NVFP4 grouped GEMM must move (E2M1 operands,
E4M3 scales, a 2-byte output) at the copy bandwidth, and its flops at the
bf16 peak.

Timing (time_graph): a few warm-up calls on a side stream, then one call is
captured into a CUDA graph, the graph is replayed back to back REPS times
with a CUDA event recorded between replays, and the median interval is
reported in microseconds (no L2 flush between replays). This is how
nvfp4-runner --graph times nvfp4-mlir, so the numbers compare.

Checks: before it is timed, each peer runs once into an output filled with
NaN, and SAMPLE_ROWS rows of every group (the rows bench_h200.py checks) are
compared with the float64 product of the dequantized NVFP4 operands:
<peer>_relerr = max over groups of ||C - ref||_F / ||ref||_F on those rows.
The bf16 peers should stay within bf16 output rounding (BF16_RELERR_BAR).
FP8 cannot hold the NVFP4 values (3 mantissa bits for up to 6), so its
error against the NVFP4 reference is recorded, not judged; fp8_*_relerr_own
compares with the float64 product of its own e4m3 operands and scales,
which must be within BF16_RELERR_BAR (a wrong call shows up there). Nothing
here fails the run: bench_h200.py judges only nvfp4-mlir's outputs.

Without torch or without a CUDA device the module still imports (numpy
only): load_torch() and everything that measures raise Unavailable, and
main() prints "peers: skipped: <reason>" and exits 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import sys
from pathlib import Path

import numpy as np

from nvfp4 import reference as ref  # noqa: E402
from nvfp4_testing.selfcheck import random_operand  # noqa: E402

# Group rows, N, K of each case; benchmarks/bench_h200.py times ours on the same.
CASES = {
    "gpumode1": ([80, 176, 128, 72, 64, 248, 96, 160], 4096, 7168),
    "gpumode2": ([40, 76, 168, 72, 164, 148, 196, 160], 7168, 2048),
    "gpumode3": ([192, 320], 3072, 4096),
    "gpumode4": ([128, 384], 4096, 1536),
    "moe_prefill": ([2048] * 8, 4096, 7168),
    "dense_8k": ([8192], 8192, 8192),
}
SEED = 2026              # bench_h200.py's generator seed
SAMPLE_ROWS = 16         # rows checked per group, as in bench_h200.py
REPS = 50                # graph replays per peer
MACHINE_REPS = 20        # graph replays for the copy and the bf16 peak
WARMUP = 3
E4M3_MAX = 448.0
BF16_RELERR_BAR = 2.0 ** -7
COPY_ELEMS = 1 << 30     # fp32 elements per copy buffer: 4 GiB
PEAK_DIM = 8192
PEERS = ("cublas_bf16", "grouped_mm_bf16", "fp8_rowwise", "fp8_grouped")


class Unavailable(RuntimeError):
    """torch or a CUDA device is missing: the peers cannot be measured."""


def load_torch(need_cuda=True):
    """The torch module; Unavailable (with the reason) when it cannot be
    imported or, with need_cuda, sees no CUDA device."""
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install (OSError, ...)
        raise Unavailable(f"torch cannot be imported ({type(e).__name__}: {e})") from None
    if need_cuda and not torch.cuda.is_available():
        raise Unavailable(f"torch {torch.__version__} sees no CUDA device")
    return torch


# ---------------------------------------------------------------------------
# Operands and references (numpy only)
# ---------------------------------------------------------------------------

def case_operands(ms, n, k, rng):
    """A case's NVFP4 operands, drawn from rng as bench_h200.py draws them:
    a = [(codes uint8 [m, K/2], swizzled scales, m)] for each group, then
    b = [(codes uint8 [N, K/2], swizzled scales)] for each group."""
    a = [random_operand(m, k, "nvfp4", rng, modest=True) + (m,) for m in ms]
    b = [random_operand(n, k, "nvfp4", rng, modest=True) for _ in ms]
    return a, b


def dequantized(q, scales, rows):
    """float32 [rows, K]: e2m1(q) * e4m3(block scale), from swizzled scales.
    Exact, and exactly representable in bf16 (at most 6 significant bits)."""
    return ref.dequantize(q, scales, rows=rows, swizzled=True)


def sample_rows(m, count=SAMPLE_ROWS):
    """The rows of an m-row group that are checked (bench_h200.py's choice)."""
    return np.linspace(0, m - 1, min(m, count)).astype(int)


def reference_rows(a_rows, b):
    """float64 a_rows @ b^T (a_rows [r, K], b [N, K])."""
    return np.asarray(a_rows, np.float64) @ np.asarray(b, np.float64).T


def rel_err(got, want):
    """||got - want||_F / ||want||_F in float64; inf when got has a NaN/Inf
    (or want is zero and got is not), 0 when both are zero."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise ValueError(f"shape {got.shape} != reference shape {want.shape}")
    if not np.all(np.isfinite(got)):
        return math.inf
    num = float(np.linalg.norm(got - want))
    den = float(np.linalg.norm(want))
    if den == 0.0:
        return 0.0 if num == 0.0 else math.inf
    return num / den


def hbm_bytes(ms, n, k):
    """Bytes an NVFP4 grouped GEMM must move: E2M1 operands, E4M3 scales
    (one per 16 values) and a 2-byte output."""
    return sum(m * k // 2 + n * k // 2 + (m + n) * k // 16 + m * n * 2 for m in ms)


def floors(ms, n, k, copy_bw_Bps, peak_flops):
    """floor_us = max(bytes / copy bandwidth, flops / bf16 peak), in us."""
    hbm = hbm_bytes(ms, n, k) / copy_bw_Bps * 1e6
    mma = sum(2 * m * n * k for m in ms) / peak_flops * 1e6
    return dict(floor_us=max(hbm, mma), hbm_floor_us=hbm, mma_floor_us=mma)


def group_starts(ms):
    """[0, m_0, m_0 + m_1, ..., sum m]: group g holds rows starts[g]:starts[g+1]."""
    return [0] + np.cumsum(ms).astype(int).tolist()


# ---------------------------------------------------------------------------
# Tensors and peer calls (torch; any device, so that the CPU can test them)
# ---------------------------------------------------------------------------

def device_operands(torch, a, b, device):
    """bf16 copies of the dequantized operands on `device`: A [sum m, K]
    (groups' rows concatenated) and B [G, N, K], and for each group
    (sampled rows, float64 reference of those rows)."""
    ms = [m for _, _, m in a]
    n, k = b[0][0].shape[0], b[0][0].shape[1] * 2
    if any(bq.shape != (n, k // 2) for bq, _ in b) or any(aq.shape[1] != k // 2 for aq, _, _ in a):
        raise ValueError("every group must have the same N and K")
    A = torch.empty(sum(ms), k, dtype=torch.bfloat16, device=device)
    B = torch.empty(len(ms), n, k, dtype=torch.bfloat16, device=device)
    refs = []
    starts = group_starts(ms)
    for g, ((aq, a_s, m), (bq, b_s)) in enumerate(zip(a, b)):
        af = dequantized(aq, a_s, m)
        bf = dequantized(bq, b_s, n)
        A[starts[g]:starts[g + 1]].copy_(torch.from_numpy(af))
        B[g].copy_(torch.from_numpy(bf))
        idx = sample_rows(m)
        refs.append((idx, reference_rows(af[idx], bf)))
    return A, B, refs


def fp8_rowwise(torch, x):
    """x [..., rows, K] -> (e4m3 codes, float32 scales [..., rows, 1]) with
    x ~= codes * scale: scale = amax of the row / 448 (1 for a zero row),
    codes = x / scale rounded to nearest even, clamped to +-448."""
    xf = x.float()
    amax = xf.abs().amax(dim=-1, keepdim=True)
    scale = torch.where(amax > 0, amax / E4M3_MAX, torch.ones_like(amax))
    q = (xf / scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    return q, scale


def make_peers(torch, A, B, ms, fp8=None):
    """The peer calls: [(name, call, out)]. call() runs the peer once and
    returns its [sum m, N] bf16 result; out is the preallocated buffer it
    writes (None when the call allocates its result). fp8 = (A8, sa, B8, sb)
    from fp8_rowwise(A) and fp8_rowwise(B), or None to leave the FP8 peers out."""
    G, N = B.shape[0], B.shape[1]
    starts = group_starts(ms)
    rows = [slice(starts[g], starts[g + 1]) for g in range(G)]
    offs = torch.tensor(starts[1:], dtype=torch.int32, device=A.device)
    out = torch.empty(A.shape[0], N, dtype=torch.bfloat16, device=A.device)
    B_kn = B.transpose(-2, -1)  # [G, K, N], column-major per group
    a_g = [A[r] for r in rows]
    b_g = [B[g].t() for g in range(G)]
    c_g = [out[r] for r in rows]

    def cublas_bf16():
        for x, w, c in zip(a_g, b_g, c_g):
            torch.matmul(x, w, out=c)
        return out

    def grouped_mm_bf16():
        return torch._grouped_mm(A, B_kn, offs=offs, out_dtype=torch.bfloat16)

    peers = [("cublas_bf16", cublas_bf16, out), ("grouped_mm_bf16", grouped_mm_bf16, None)]
    if fp8 is None:
        return peers
    A8, sa, B8, sb = fp8
    sb = sb.reshape(G, N)  # [G, N, 1] -> [G, N]
    a8_g = [A8[r] for r in rows]
    sa_g = [sa[r] for r in rows]               # [m, 1]
    b8_g = [B8[g].t() for g in range(G)]       # [K, N], column-major
    sb_g = [sb[g].reshape(1, N) for g in range(G)]
    B8_kn = B8.transpose(-2, -1)
    sa_flat = sa.reshape(-1)                   # [sum m]

    def fp8_rowwise_mm():
        for x, w, s_x, s_w, c in zip(a8_g, b8_g, sa_g, sb_g, c_g):
            torch._scaled_mm(x, w, scale_a=s_x, scale_b=s_w, out_dtype=torch.bfloat16,
                             use_fast_accum=False, out=c)
        return out

    def fp8_grouped():
        return torch._scaled_grouped_mm(A8, B8_kn, sa_flat, sb, offs=offs,
                                        out_dtype=torch.bfloat16, use_fast_accum=False)

    return peers + [("fp8_rowwise", fp8_rowwise_mm, out), ("fp8_grouped", fp8_grouped, None)]


def fp8_own_refs(torch, fp8, ms, refs):
    """For each group, the float64 product of the e4m3 operands times their
    scales on the sampled rows (what a correct FP8 kernel computes)."""
    A8, sa, B8, sb = fp8
    starts = group_starts(ms)
    own = []
    for g, (idx, _) in enumerate(refs):
        rows = torch.from_numpy(starts[g] + idx).to(A8.device)
        a = A8.index_select(0, rows).double() * sa.index_select(0, rows).double()
        b = B8[g].double() * sb[g].double()
        own.append((idx, (a @ b.t()).cpu().numpy()))
    return own


def group_relerr(torch, c, refs, ms):
    """max over groups of rel_err on the sampled rows of result c [sum m, N]."""
    starts = group_starts(ms)
    worst = 0.0
    for g, (idx, want) in enumerate(refs):
        if len(idx) == 0:
            continue
        rows = torch.from_numpy(starts[g] + idx).to(c.device)
        got = c.index_select(0, rows).float().cpu().numpy()
        worst = max(worst, rel_err(got, want))
    return worst


def short_error(e):
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def run_peer(torch, res, name, call, out, refs, ms, reps=REPS, own_refs=None, timed=True):
    """Check one peer, then time it; writes res[name + '_us'] and
    res[name + '_relerr'] (res[name + '_relerr_own'] with own_refs), or
    res[name + '_us'] = None and res[name + '_err'] when it fails (after a
    good check, the error starts with "timing")."""
    timing = False
    try:
        if out is not None:
            out.fill_(float("nan"))
        c = call()
        if c.is_cuda:
            torch.cuda.synchronize()
        if tuple(c.shape) != (sum(ms), refs[0][1].shape[1]):
            raise RuntimeError(f"result shape {tuple(c.shape)}")
        res[f"{name}_relerr"] = group_relerr(torch, c, refs, ms)
        if own_refs is not None:
            res[f"{name}_relerr_own"] = group_relerr(torch, c, own_refs, ms)
        c.fill_(float("nan"))  # a later peer that reuses this memory cannot pass unwritten
        del c
        timing = timed
        res[f"{name}_us"] = time_graph(torch, call, reps) if timed else None
    except Exception as e:
        res[f"{name}_us"] = None
        res[f"{name}_err"] = ("timing (CUDA graph): " if timing else "") + short_error(e)


# ---------------------------------------------------------------------------
# Timing and measurements (CUDA)
# ---------------------------------------------------------------------------

def time_graph(torch, call, reps=REPS, warmup=WARMUP):
    """Median of `reps` back-to-back CUDA-graph replays of one call, in us."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            call()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        call()
    for _ in range(warmup):
        graph.replay()
    events = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    events[0].record()
    for e in events[1:]:
        graph.replay()
        e.record()
    torch.cuda.synchronize()
    times = [a.elapsed_time(b) * 1e3 for a, b in zip(events, events[1:])]
    graph.reset()
    return statistics.median(times)


def release(torch):
    """Give cached GPU memory back (nvfp4-runner runs in another process)."""
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _time_copy(torch, reps):
    """us per torch.add(x, 1.0, out=y) over COPY_ELEMS fp32, and whether y is right."""
    x = torch.ones(COPY_ELEMS, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    us = time_graph(torch, lambda: torch.add(x, 1.0, out=y), reps)
    return us, bool((y[:: 1 << 20] == 2.0).all())


def _time_peak(torch, reps):
    """us per PEAK_DIM^3 bf16 torch.matmul."""
    a, b = (torch.randn(PEAK_DIM, PEAK_DIM, dtype=torch.bfloat16, device="cuda") for _ in "ab")
    c = torch.empty(PEAK_DIM, PEAK_DIM, dtype=torch.bfloat16, device="cuda")
    return time_graph(torch, lambda: torch.matmul(a, b, out=c), reps)


def measure_machine(reps=MACHINE_REPS):
    """Copy bandwidth (bytes/s, kernel-driven) and bf16 matmul peak (TFLOP/s)."""
    torch = load_torch()
    copy_us, copy_ok = _time_copy(torch, reps)
    release(torch)
    mm_us = _time_peak(torch, reps)
    release(torch)
    return dict(copy_bw_Bps=2 * COPY_ELEMS * 4 / (copy_us * 1e-6), copy_us=copy_us,
                copy_ok=copy_ok, peak_bf16_tflops=2 * PEAK_DIM ** 3 / (mm_us * 1e-6) / 1e12,
                peak_matmul_us=mm_us, torch=torch.__version__,
                device=torch.cuda.get_device_name())


def measure_case(name, a, b, machine, reps=REPS):
    """One case's peers (see the module docstring): a dict with the case's
    shape, the machine limits and floors, and for each peer <peer>_us and
    <peer>_relerr, or <peer>_err."""
    torch = load_torch()
    ms = [m for _, _, m in a]
    n, k = b[0][0].shape[0], b[0][0].shape[1] * 2
    res = dict(case=name, G=len(ms), N=n, K=k, sumM=sum(ms),
               copy_bw_Bps=machine["copy_bw_Bps"], peak_bf16_tflops=machine["peak_bf16_tflops"])
    res.update(floors(ms, n, k, machine["copy_bw_Bps"], machine["peak_bf16_tflops"] * 1e12))
    try:
        run_peers(torch, res, a, b, "cuda", reps)
    finally:
        release(torch)  # the tensors died with run_peers' frame
    return res


def run_peers(torch, res, a, b, device, reps=REPS, timed=True):
    """Every peer of one case on `device` into res (timed=False: checks only)."""
    ms = [m for _, _, m in a]
    A, B, refs = device_operands(torch, a, b, device)
    fp8 = own = None
    try:
        fp8 = fp8_rowwise(torch, A) + fp8_rowwise(torch, B)
        own = fp8_own_refs(torch, fp8, ms, refs)
    except Exception as e:
        for p in ("fp8_rowwise", "fp8_grouped"):
            res[f"{p}_us"], res[f"{p}_err"] = None, "e4m3 operands: " + short_error(e)
        fp8 = None
    for peer, call, out in make_peers(torch, A, B, ms, fp8):
        run_peer(torch, res, peer, call, out, refs, ms, reps,
                 own_refs=own if peer.startswith("fp8") else None, timed=timed)


def check_lines(res):
    """One line per peer: its error against the references, judged as the
    module docstring says."""
    lines = []
    for p in PEERS:
        if res.get(f"{p}_err"):
            lines.append(f"check {res['case']} {p}: not run ({res[f'{p}_err']})")
            continue
        e = res.get(f"{p}_relerr")
        if e is None:
            continue
        if p.startswith("fp8"):
            own = res.get(f"{p}_relerr_own")
            if own is None:
                judged = "not compared with its own e4m3 operands"
            else:
                judged = (f"{own:.3g} against its own e4m3 operands "
                          f"({'ok' if own <= BF16_RELERR_BAR else 'SUSPECT'})")
            lines.append(f"check {res['case']} {p}: relerr {e:.3g} against the NVFP4 values "
                         f"(e4m3 rounding; recorded), {judged}")
        else:
            status = "ok" if e <= BF16_RELERR_BAR else "SUSPECT"
            lines.append(f"check {res['case']} {p}: relerr {e:.3g} ({status}, bar "
                         f"{BF16_RELERR_BAR:.3g})")
    return lines


def table_lines(rows):
    """A plain-text table of the peer times (us) and errors."""
    nan = float("nan")
    f = lambda v: nan if v is None else v
    lines = [f"{'case':<12}{'floor':>9}{'cublas_bf16':>13}{'grouped_mm':>12}"
             f"{'fp8_rowwise':>13}{'fp8_grouped':>13}   (us, CUDA-graph replays, medians)"]
    for r in rows:
        lines.append(f"{r['case']:<12}{f(r.get('floor_us')):9.1f}{f(r.get('cublas_bf16_us')):13.1f}"
                     f"{f(r.get('grouped_mm_bf16_us')):12.1f}{f(r.get('fp8_rowwise_us')):13.1f}"
                     f"{f(r.get('fp8_grouped_us')):13.1f}")
    lines.append(f"{'case':<12}{'':>9}{'relerr':>13}{'relerr':>12}{'relerr':>13}{'relerr':>13}"
                 "   (against the float64 NVFP4 product; FP8 is not exact)")
    for r in rows:
        lines.append(f"{r['case']:<12}{'':>9}{f(r.get('cublas_bf16_relerr')):13.2g}"
                     f"{f(r.get('grouped_mm_bf16_relerr')):12.2g}"
                     f"{f(r.get('fp8_rowwise_relerr')):13.2g}{f(r.get('fp8_grouped_relerr')):13.2g}")
    return lines


def machine_line(machine):
    wrong = "" if machine.get("copy_ok", True) else " (the copy's result was WRONG)"
    return (f"peers: torch {machine['torch']} on {machine['device']}: copy bandwidth "
            f"{machine['copy_bw_Bps'] / 1e12:.2f} TB/s (kernel-driven){wrong}, bf16 matmul "
            f"{machine['peak_bf16_tflops']:.0f} TFLOP/s")


def run(cases=None, reps=REPS, seed=SEED):
    """The machine limits, then every case's peers (JSON line per case as
    it finishes); returns the list of case dicts. Unavailable without
    torch/CUDA."""
    cases = list(CASES) if cases is None else list(cases)
    machine = measure_machine()
    print(machine_line(machine), flush=True)
    rng = np.random.default_rng(seed)
    rows = []
    for name in cases:
        a, b = case_operands(*CASES[name], rng)
        res = measure_case(name, a, b, machine, reps)
        print("\n".join(check_lines(res)), flush=True)
        print(json.dumps(res), flush=True)
        rows.append(res)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--reps", type=int, default=REPS)
    p.add_argument("--json", help="also write the case dicts to this file")
    args = p.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        p.error(f"unknown cases {unknown}; known: {', '.join(CASES)}")
    try:
        rows = run(cases, args.reps)
    except Unavailable as e:
        print(f"peers: skipped: {e}", flush=True)
        return 0
    print("\n".join(table_lines(rows)), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
