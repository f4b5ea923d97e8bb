"""Decode-sized layers (1-128 tokens, or a few tokens per expert) on one GPU,
weights cold in L2: nvfp4-mlir next to cuBLAS bf16 and FP8 in one process.

    python3 benchmarks/bench_decode.py [--out DIR] [--cases m1_4096x4096,...]
                                       [--configs "default;tokens=prepass"]
                                       [--reps N] [--no-peers]

Cases (CASES): the twelve dense layers of issue 21 (M x N x K, N = output
features) and three MoE decode calls (experts x tokens each: Qwen3-30B-A3B's
gate/up and down projections, DeepSeek-V3's gate/up).

Forms, each timed in this process on the same weights:
  ours           the whole layer as nvfp4.nn runs it: bf16 x -> NVFP4
                 quantize with a per-tensor amax computed on the fly -> GEMM
                 -> bf16 (torch.ops.nvfp4.linear / grouped_linear: one
                 program, the quantize fused into the GEMM by
                 nvfp4-fuse-quantize-matmul; without them, the quantize and
                 matmul ops)
  ours_static    the same with a static (calibrated) activation scale
  gemm           the GEMM alone on activations quantized beforehand
  cublas_bf16    torch.mm (cuBLAS) on the same weights dequantized to bf16
                 (exact); MoE: torch._grouped_mm
  fp8            x quantized to e4m3 per row (amax / 448, in torch) then
                 torch._scaled_mm against the same weights in e4m3 with
                 per-row scales (bf16 out); MoE: torch._scaled_grouped_mm
  marlin         dense layers: vLLM's Marlin FP4 GEMM (W4A16, what vLLM runs
                 for NVFP4 checkpoints on Hopper) on the bf16 x and the same
                 FP4 weights and scales, prepared as vLLM prepares them
                 (benchmarks/marlin_peer.py; the kernel built from vLLM's
                 source by scripts/device/marlin.sh, carried in .device/)
Each config of --configs (convert-nvfp4-to-sm90 options; "default" is the
pipeline's own choice) times ours / ours_static / gemm again.

Weights cold in L2: each form gets enough distinct weight copies (in its own
format) that together they exceed 2.5 x the L2; one CUDA graph runs the
layer on every copy in turn (the same input, as consecutive layers of a
model), and the time per layer is the median graph replay over the copies.
floor_us = (FP4 weights + E4M3 scales + bf16 activations + bf16 output) /
the copy bandwidth measured in this process (peers.measure_machine).

Checks: every timed output of ours is compared with the fp64 product of the
same quantized operands (the activations as nvfp4.quantize gives them)
within the numerics bar plus the fp32 summation bound, and computed twice
(the same bits). The peers are checked against the fp64 product of their
own operands.

Writes DIR/decode.json (one row per case: case, m, n, k, groups, ours_us,
ours_static_us, gemm_us, cublas_bf16_us, fp8_us, marlin_us, floor_us, l2_cold, device,
and per-config columns) and DIR/decode.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np


import peers  # noqa: E402
from nvfp4_testing.selfcheck import PipelineOptions  # noqa: E402

# name: (tokens per group list, N, K). Dense layers are one group.
CASES = {
    "m1_4096x4096": ([1], 4096, 4096),
    "m1_14336x4096": ([1], 14336, 4096),
    "m1_4096x14336": ([1], 4096, 14336),
    "m16_4096x4096": ([16], 4096, 4096),
    "m16_14336x4096": ([16], 14336, 4096),
    "m16_4096x14336": ([16], 4096, 14336),
    "m64_4096x4096": ([64], 4096, 4096),
    "m64_14336x4096": ([64], 14336, 4096),
    "m64_4096x14336": ([64], 4096, 14336),
    "m128_7168x16384": ([128], 7168, 16384),
    "m128_4096x7168": ([128], 4096, 7168),
    "m128_7168x2048": ([128], 7168, 2048),
    "qwen3_gate_up_128x4": ([4] * 128, 1536, 2048),
    "qwen3_down_128x4": ([4] * 128, 2048, 768),
    "deepseek_gate_up_256x2": ([2] * 256, 4096, 7168),
}
L2_FACTOR = 2.5
REPS = 30


def copies_for(bytes_per_copy, l2):
    """Distinct weight copies that together exceed L2_FACTOR x the L2 (one
    copy of at least 4 x the L2 is cold by itself: a replay starts on the
    bytes read longest ago)."""
    if bytes_per_copy >= 4 * l2:
        return 1
    return max(2, math.ceil(L2_FACTOR * l2 / bytes_per_copy))
E2M1 = [0, .5, 1, 1.5, 2, 3, 4, 6, -0., -.5, -1, -1.5, -2, -3, -4, -6]


def time_layers(torch, fn, copies, reps=REPS):
    """Median CUDA-graph replay time of fn(0); ...; fn(copies-1), per call (us)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for c in range(copies):
            fn(c)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for c in range(copies):
            fn(c)
    torch.cuda.synchronize()
    for _ in range(3):
        g.replay()
    times = []
    for _ in range(reps):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        g.replay()
        e1.record()
        torch.cuda.synchronize()
        times.append(e0.elapsed_time(e1) * 1e3 / copies)
    del g
    return statistics.median(times)


def unswizzle(s_sw, rows, k):
    """128x4-swizzled E4M3 scales [.., rt, ct, 32, 4, 4] -> [.., rows, K/16]."""
    s = s_sw
    lead = s.shape[:-5]
    rt, ct = s.shape[-5], s.shape[-4]
    s = s.permute(*range(len(lead)), -5, -2, -3, -4, -1).reshape(*lead, rt * 128, ct * 4)
    return s[..., :rows, :k // 16]


def dequant(torch, q, s_sw, rows, k):
    """FP4 codes [.., rows, K/2] and swizzled scales -> float64 values."""
    lut = torch.tensor(E2M1, dtype=torch.float64, device=q.device)
    qb = q.view(torch.uint8)
    vals = torch.stack([lut[(qb & 15).long()], lut[(qb >> 4).long()]], -1)
    vals = vals.reshape(*qb.shape[:-1], k)
    s = s_sw.view(torch.uint8).view(torch.float8_e4m3fn).to(torch.float64)
    return vals * unswizzle(s, rows, k).repeat_interleave(16, dim=-1)


def load_marlin():
    """vLLM's Marlin FP4 GEMM (benchmarks/marlin_peer.py over the library
    scripts/device/marlin.sh builds), or None with why not."""
    try:
        import marlin_peer
        marlin_peer.MarlinLib.get()
        return marlin_peer, None
    except Exception as e:  # no library here: the column stays empty
        return None, str(e)[:200]


def check(torch, name, got, want_f64, k, rep):
    """The numerics bar (1e-3 + 1e-3|ref|, + half a bf16 ulp) plus the fp32
    summation bound K 2^-24 sum|a b| (passed in as want_f64[1])."""
    want, absum = want_f64
    err = (got.double() - want).abs()
    tol = 1e-3 + 1e-3 * want.abs() + 2.0 ** -8 * want.abs() + k * 2.0 ** -24 * absum
    bad = int((~(err <= tol)).sum())
    rep.append(f"{name}: {bad}/{err.numel()} outside tolerance, max err/tol "
               f"{float((err / tol).max()):.3g}")
    return bad == 0


def run_case(torch, F, name, ms, n, k, machine, configs, peers_on, reps, static_api,
             marlin=None):
    from nvfp4 import compiler
    dev = os.environ.get("BENCH_DEVICE", "cuda")
    G = len(ms)
    dense = G == 1
    S = sum(ms)
    gen = torch.Generator(device=dev).manual_seed(hash(name) % (2 ** 31))
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    row = dict(case=name, m=ms[0] if dense else S, n=n, k=k, groups=G, l2_cold=True,
               device=torch.cuda.get_device_name(0))
    log = []
    # Activations: bf16, a spread of magnitudes.
    x = (torch.randn(S, k, device=dev, generator=gen) *
         torch.exp(torch.randn(S, 1, device=dev, generator=gen))).to(torch.bfloat16)
    # FP4 weights: quantize random bf16 weights once per copy (as a model
    # holds them), 16x16 blocks as nvfp4.nn does.
    fp4_bytes = G * (n * k // 2 + n * k // 16)
    copies = copies_for(fp4_bytes, l2)
    weights = []
    for c in range(copies):
        w = torch.randn(G * n, k, device=dev, generator=gen, dtype=torch.bfloat16)
        q, s, d = compiler.quantize(w.view(G, n, k) if not dense else w, block="16x16")
        weights.append((q, s, d))
        del w
    offsets = torch.tensor(np.concatenate([[0], np.cumsum(ms)]), dtype=torch.int32, device=dev)
    floor_bytes = fp4_bytes + S * k * 2 + S * n * 2
    row["floor_us"] = floor_bytes / machine["copy_bw_Bps"] * 1e6
    row["copies_fp4"] = copies

    def gemm_call(c, xq, xs, xd):
        q, s, d = weights[c]
        if dense:
            return torch.ops.nvfp4.matmul(xq, xs, q, s, xd, d, None, "nvfp4", "bf16")
        return torch.ops.nvfp4.grouped_matmul_contiguous(xq, xs, q, s, offsets, xd, d, None,
                                                        "nvfp4", "bf16", False)

    def layer_call(c, static=None):
        q, s, d = weights[c]
        if hasattr(torch.ops.nvfp4, "linear"):
            opts = {} if static is None else {"decode_scale": static}
            if dense:
                return torch.ops.nvfp4.linear(x, q, s, d, **opts)
            return torch.ops.nvfp4.grouped_linear(x, q, s, d, offsets, check_tables=False,
                                                  **opts)
        opts = {} if static is None else {"decode_scale": static}
        xq, xs, xd = torch.ops.nvfp4.quantize(x, **opts)
        return gemm_call(c, xq, xs, xd)

    # Reference of copy 0: fp64 product of the quantized operands.
    wq, ws, wd = weights[0]
    offs = offsets.tolist()

    def reference(aq, as_, adec):
        ad = dequant(torch, aq, as_, S, k)
        want = torch.empty(S, n, dtype=torch.float64, device=dev)
        absum = torch.empty_like(want)
        for g in range(G):
            lo, hi = offs[g], offs[g + 1]
            if hi > lo:
                bd = dequant(torch, wq if dense else wq[g], ws if dense else ws[g], n, k)
                scale = float(adec) * float(wd.reshape(-1)[g])
                want[lo:hi] = ad[lo:hi] @ bd.T * scale
                absum[lo:hi] = ad[lo:hi].abs() @ bd.abs().T * abs(scale)
        return want, absum

    xq, xs, xd = torch.ops.nvfp4.quantize(x)
    want, absum = reference(xq, xs, xd)
    # A static activation scale: the decode scale this input's amax gives
    # (a calibrated scale would come from a checkpoint). S_enc = fl(1/d)
    # then need not be the amax's S_enc: its own reference.
    static = xd.clone() if static_api else None
    want_static = None
    if static is not None:
        sq, ss, sd = torch.ops.nvfp4.quantize(x, decode_scale=static)
        want_static = reference(sq, ss, sd)

    for config in configs:
        suffix = "" if config == "default" else f"[{config}]"
        with PipelineOptions(config):
            try:
                y = layer_call(0)
                y2 = layer_call(0)
                ok = check(torch, f"ours{suffix}", y, (want, absum), k, log)
                same = bool(torch.equal(y.view(torch.int16), y2.view(torch.int16)))
                log.append(f"ours{suffix}: the same bits twice: {same}")
                row[f"ours_ok{suffix}"] = ok and same
                row[f"ours_us{suffix}"] = time_layers(torch, lambda c: layer_call(c), copies,
                                                      reps)
                if static is not None:
                    ys = layer_call(0, static)
                    row[f"ours_static_ok{suffix}"] = check(torch, f"ours_static{suffix}", ys,
                                                           want_static, k, log)
                    row[f"ours_static_us{suffix}"] = time_layers(
                        torch, lambda c: layer_call(c, static), copies, reps)
                yg = gemm_call(0, xq, xs, xd)
                row[f"gemm_ok{suffix}"] = check(torch, f"gemm{suffix}", yg, (want, absum), k,
                                                log)
                row[f"gemm_us{suffix}"] = time_layers(
                    torch, lambda c: gemm_call(c, xq, xs, xd), copies, reps)
            except Exception as e:  # a config the shape does not take
                log.append(f"ours{suffix}: failed: {str(e)[:300]}")
    if peers_on:
        # bf16: our FP4 weights dequantized (exact in bf16), expert by expert;
        # a bf16 copy is 4x an FP4 one, so it needs no more copies.
        copies_bf16 = copies_for(G * n * k * 2, l2)
        wb = []
        for c in range(copies_bf16):
            q, s_, d = weights[c]
            w = torch.empty(G, n, k, dtype=torch.bfloat16, device=dev)
            for g in range(G):
                qg, sg = (q, s_) if dense else (q[g], s_[g])
                w[g] = (dequant(torch, qg, sg, n, k) *
                        float(d.reshape(-1)[g])).to(torch.bfloat16)
            wb.append(w)
        row["copies_bf16"] = copies_bf16
        out = torch.empty(S, n, dtype=torch.bfloat16, device=dev)
        xw = x
        if dense:
            fn = lambda c: torch.mm(xw, wb[c][0].t(), out=out)  # noqa: E731
        else:
            wt = [w.transpose(1, 2) for w in wb]
            fn = lambda c: torch._grouped_mm(xw, wt[c], offs=offsets[1:],  # noqa: E731
                                             out_dtype=torch.bfloat16)
        try:
            r = fn(0).double()
            ref64 = torch.cat([x[offs[g]:offs[g + 1]].double() @ wb[0][g].double().T
                               for g in range(G)])
            rel = float((r - ref64).norm() / ref64.norm())
            row["cublas_bf16_relerr"] = rel
            row["cublas_bf16_us"] = time_layers(torch, fn, copies_bf16, reps)
        except Exception as e:
            log.append(f"bf16 peer failed: {str(e)[:200]}")
        # FP8 rowwise, activation quantization included: e4m3 weights with
        # one scale per output row (amax / 448), converted expert by expert.
        copies_fp8 = copies_for(G * n * k, l2)
        w8 = []
        for c in range(copies_fp8):
            w = wb[c % len(wb)]
            q8 = torch.empty(G, n, k, dtype=torch.float8_e4m3fn, device=dev)
            sc = torch.empty(G, n, dtype=torch.float32, device=dev)
            for g in range(G):
                wg = w[g].float()
                sg = wg.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 448.0
                q8[g] = (wg / sg).to(torch.float8_e4m3fn)
                sc[g] = sg.squeeze(1)
            w8.append((q8, sc))
        del wb
        row["copies_fp8"] = copies_fp8

        def fp8_act():
            sa = x.float().abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / 448.0
            return (x.float() / sa).to(torch.float8_e4m3fn), sa

        if dense:
            def fn8(c):
                xa, sa = fp8_act()
                return torch._scaled_mm(xa, w8[c][0][0].T, scale_a=sa,
                                        scale_b=w8[c][1][0].reshape(1, n),
                                        out_dtype=torch.bfloat16, use_fast_accum=False)
        else:
            def fn8(c):
                xa, sa = fp8_act()
                return torch._scaled_grouped_mm(xa, w8[c][0].transpose(1, 2), sa.reshape(-1),
                                                w8[c][1], offs=offsets[1:],
                                                out_dtype=torch.bfloat16)
        try:
            fn8(0)
            row["fp8_us"] = time_layers(torch, fn8, copies_fp8, reps)
        except Exception as e:
            log.append(f"fp8 peer failed: {str(e)[:200]}")
        del w8
    if peers_on and dense and marlin is not None:
        # vLLM's Marlin FP4 (W4A16: the bf16 activations as they are, our
        # FP4 weights and E4M3 scales prepared as vLLM prepares an NVFP4
        # checkpoint's), one prepared copy per weight copy: as cold in L2.
        try:
            ml = [marlin.MarlinFP4Linear(q.view(torch.uint8),
                                         unswizzle(s_.view(torch.uint8), n, k).contiguous(),
                                         float(d.reshape(-1)[0]), n, k)
                  for q, s_, d in weights]
            ym = ml[0](x).double()
            wd64 = dequant(torch, wq, ws, n, k) * float(wd.reshape(-1)[0])
            ref64 = x.double() @ wd64.T
            row["marlin_relerr"] = float((ym - ref64).norm() / ref64.norm())
            log.append(f"marlin: relative error {row['marlin_relerr']:.3g} against the fp64 "
                       "product of x and the dequantized weights")
            row["marlin_us"] = time_layers(torch, lambda c: ml[c](x), copies, reps)
            del ml
        except Exception as e:
            log.append(f"marlin peer failed: {str(e)[:200]}")
    del weights[:]
    torch.cuda.empty_cache()
    return row, log


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--configs", default="default",
                    help="';'-separated sm_90a pipeline options to time ours under")
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args(argv)
    torch = peers.load_torch()
    import torch.nn.functional as F
    import nvfp4.ops  # noqa: F401  (registers torch.ops.nvfp4)
    from nvfp4 import compiler
    static_api = "decode_scale" in compiler.quantize.__code__.co_varnames
    machine = peers.measure_machine()
    print(peers.machine_line(machine), flush=True)
    configs = [c.strip() for c in args.configs.split(";") if c.strip()] or ["default"]
    marlin, why = load_marlin() if not args.no_peers else (None, "--no-peers")
    if marlin is None:
        print(f"no Marlin peer: {why}", flush=True)
    rows = []
    for name in args.cases.split(","):
        ms, n, k = CASES[name]
        t0 = time.time()
        row, log = run_case(torch, F, name, ms, n, k, machine, configs, not args.no_peers,
                            args.reps, static_api, marlin)
        print("\n".join(log), flush=True)
        print(json.dumps(row), f"({time.time() - t0:.1f} s)", flush=True)
        rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = dict(machine=machine, configs=configs, rows=rows,
               commit=os.environ.get("NVFP4_COMMIT", "unknown"),
               date=time.strftime("%Y-%m-%d", time.gmtime()))
    (out / "decode.json").write_text(json.dumps(doc, indent=1))
    cols = ["ours_us", "ours_static_us", "gemm_us", "cublas_bf16_us", "fp8_us", "marlin_us",
            "floor_us"]
    for c in configs:
        if c != "default":
            cols += [f"ours_us[{c}]", f"gemm_us[{c}]"]
    lines = ["| case | " + " | ".join(cols) + " |", "|" + "---|" * (len(cols) + 1)]
    for r in rows:
        cells = [f"{r[c]:.1f}" if isinstance(r.get(c), float) else "-" for c in cols]
        lines.append(f"| {r['case']} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    (out / "decode.md").write_text(peers.machine_line(machine) + "\n\n" + table + "\n")
    print(table, flush=True)
    bad = [r["case"] for r in rows
           if any(k.startswith(("ours_ok", "ours_static_ok", "gemm_ok")) and not v
                  for k, v in r.items())]
    if bad:
        print(f"FAILED checks: {bad}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
