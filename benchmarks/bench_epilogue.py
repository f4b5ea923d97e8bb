"""A gated MLP's / MoE block's gate_up projection with its SwiGLU, on one GPU,
weights cold in L2: the activation fused into the GEMM's epilogue
(nvfp4-fuse-matmul-epilogue) next to the same ops unfused and to bf16 torch,
in one process.

    python3 benchmarks/bench_epilogue.py [--out DIR] [--cases a,b] [--reps N]

Forms (each the whole call: bf16 x in, bf16 activation out):
  fused        torch.ops.nvfp4.linear / grouped_linear(..., activation="swiglu"):
               one program, the activation quantize, the GEMM, the SwiGLU of
               each gate/up column pair in the GEMM's epilogue (the [M, N]
               product never written)
  unfused      the same linear to a bf16 [M, N], then torch.ops.nvfp4.swiglu
  bf16         torch.mm / torch._grouped_mm on the same weights dequantized
               (exact in bf16), then F.silu(gate) * up in torch
Both of ours round the product to bf16 before the activation
(intermediate_dtype="bf16"), so their outputs must be equal bit for bit
(checked, and each computed twice: the same bits). The bf16 peer's output
is compared with ours (relative RMS difference: the NVFP4 activations'
quantization).

Weights cold in L2 as in bench_decode.py: enough distinct weight copies
that together they exceed 2.5x the L2, one CUDA graph over all of them, the
time per call the median replay over the copies.

And whole MoE expert blocks (BLOCKS: nvfp4.models.MoEExperts, routing,
gate_up + SwiGLU, down and the weighted combine, bf16 in and out; ours
routes and combines with nvfp4.moe_route / moe_dispatch / moe_combine):
fused (the SwiGLU in gate_up's epilogue), unfused (the activation as its
own kernel) and bf16 torch (torch._grouped_mm, F.silu(gate) * up, routing
by a stable argsort, the combine a product by the weights, a gather by the
inverse permutation and a sum over the slots), and FP8 rowwise torch (torch._scaled_grouped_mm on the
same weights in e4m3 with per-row scales, the activations quantized per
row in torch before each GEMM). With calibrated activation scales (a
checkpoint's input_global_scale): static fused (the down projection's FP4
inputs written by gate_up's epilogue, nvfp4.fused's output quantize, under
the pipeline option quantize-in-epilogue) and
static (the down projection quantizes its bf16 inputs itself); their bits
must be equal. The experts' FP4 weights (302 MB) are cold
in L2 by themselves; one copy.

And linear layers with a bias (BIAS_CASES): the bias in the matmul's
epilogue (fused) against the same linear then a torch add of the bias
(unfused; its output rounded twice), the fused bits checked against the
product to f32 plus the bias in fp32.

Writes DIR/epilogue.json (case, m, n, k, groups, fused_us, unfused_us,
bf16_us, same_bits, deterministic, rel_rms_vs_bf16, l2_cold, device) and
DIR/epilogue.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from bench_decode import CASES as DECODE_CASES, copies_for, dequant, time_layers  # noqa: E402
from nvfp4_testing.selfcheck import PipelineOptions  # noqa: E402

# name: (tokens per group, N (gate and up rows interleaved), K)
CASES = {
    # Llama-3-8B's MLP gate_up (2 x 14336 rows), decode and prefill.
    "llama8b_gate_up_m1": ([1], 28672, 4096),
    "llama8b_gate_up_m16": ([16], 28672, 4096),
    "llama8b_gate_up_m128": ([128], 28672, 4096),
    "llama8b_gate_up_m2048": ([2048], 28672, 4096),
    # Qwen3-30B-A3B's experts (128, gate_up 2 x 768 rows, K 2048): decode
    # (4 tokens each) and a 2048-token prefill at top-8 (128 each).
    "qwen3_gate_up_128x4": DECODE_CASES["qwen3_gate_up_128x4"],
    "qwen3_gate_up_128x128": ([128] * 128, 1536, 2048),
}
REPS = 30


def _setup(torch, name, ms, n, k):
    """A case's device, groups, tokens, generator, L2 size and result row."""
    import nvfp4.ops  # noqa: F401
    dev = "cuda"
    G, S = len(ms), sum(ms)
    dense = G == 1
    gen = torch.Generator(device=dev).manual_seed(hash(name) % (2 ** 31))
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    row = dict(case=name, m=ms[0] if dense else S, n=n, k=k, groups=G, l2_cold=True,
               device=torch.cuda.get_device_name(0))
    return dev, G, S, dense, gen, l2, row


def _weights(torch, gen, ms, n, k, l2):
    """Enough distinct FP4 weight copies to be cold in L2 (16x16 blocks, as
    nvfp4.nn quantizes), of a trained layer's magnitude: products of order
    1, where the sigmoid is not flat."""
    from nvfp4 import compiler
    G = len(ms)
    copies = copies_for(G * (n * k // 2 + n * k // 16), l2)
    weights = []
    for _ in range(copies):
        w = torch.randn(G * n, k, device="cuda", generator=gen, dtype=torch.bfloat16) / k ** 0.5
        weights.append(compiler.quantize(w.view(G, n, k) if G > 1 else w, block="16x16"))
        del w
    return copies, weights


def run_case(torch, name, ms, n, k, reps):
    import torch.nn.functional as F

    dev, G, S, dense, gen, l2, row = _setup(torch, name, ms, n, k)
    x = (torch.randn(S, k, device=dev, generator=gen) *
         torch.exp(torch.randn(S, 1, device=dev, generator=gen) / 2)).to(torch.bfloat16)
    copies, weights = _weights(torch, gen, ms, n, k, l2)
    offsets = torch.tensor(np.concatenate([[0], np.cumsum(ms)]), dtype=torch.int32, device=dev)
    row["copies_fp4"] = copies

    def ours(c, activation):
        q, s, d = weights[c]
        kw = dict(out_dtype="bf16")
        if activation:
            kw.update(activation="swiglu", intermediate_dtype="bf16")
        if dense:
            return torch.ops.nvfp4.linear(x, q, s, d, **kw)
        return torch.ops.nvfp4.grouped_linear(x, q, s, d, offsets, check_tables=False, **kw)

    fused = lambda c: ours(c, True)  # noqa: E731
    unfused = lambda c: torch.ops.nvfp4.swiglu(ours(c, False))  # noqa: E731
    a, b = fused(0), unfused(0)
    row["same_bits"] = bool(torch.equal(a.view(torch.int16), b.view(torch.int16)))
    row["deterministic"] = bool(torch.equal(a.view(torch.int16), fused(0).view(torch.int16)))
    row["fused_us"] = time_layers(torch, fused, copies, reps)
    row["unfused_us"] = time_layers(torch, unfused, copies, reps)

    # bf16 torch: the same weights dequantized (exact in bf16).
    copies_bf16 = copies_for(G * n * k * 2, l2)
    wb = []
    for c in range(copies_bf16):
        q, s_, d = weights[c]
        w = torch.empty(G, n, k, dtype=torch.bfloat16, device=dev)
        for g in range(G):
            qg, sg = (q, s_) if dense else (q[g], s_[g])
            w[g] = (dequant(torch, qg, sg, n, k) * float(d.reshape(-1)[g])).to(torch.bfloat16)
        wb.append(w)
    wt = [w.transpose(1, 2) for w in wb]

    def bf16(c):
        if dense:
            h = torch.mm(x, wb[c][0].t())
        else:
            h = torch._grouped_mm(x, wt[c], offs=offsets[1:], out_dtype=torch.bfloat16)
        return F.silu(h[:, 0::2]) * h[:, 1::2]

    p = bf16(0).float()
    row["rel_rms_vs_bf16"] = float((a.float() - p).norm() / p.norm())
    row["bf16_us"] = time_layers(torch, bf16, copies_bf16, reps)
    row["copies_bf16"] = copies_bf16
    del wb, wt, weights
    torch.cuda.empty_cache()
    return row


# Linear layers with a bias (Qwen2's q/k/v projections, gpt-oss's experts'
# down projection with its per-expert bias): tokens per group, N, K.
BIAS_CASES = {
    "bias_m1_4096x3584": ([1], 4096, 3584),
    "bias_m16_4096x3584": ([16], 4096, 3584),
    "bias_experts_32x4_2880x2880": ([4] * 32, 2880, 2880),
}


def run_bias(torch, name, ms, n, k, reps):
    """The bias in the matmul's epilogue (one program) against the same
    linear followed by a torch add of the bias (what nvfp4.nn.Linear did
    before), bf16 in and out, weights cold in L2."""
    dev, G, S, dense, gen, l2, row = _setup(torch, name, ms, n, k)
    x = torch.randn(S, k, device=dev, generator=gen).to(torch.bfloat16)
    copies, weights = _weights(torch, gen, ms, n, k, l2)
    bias = torch.randn(n if dense else (G, n), device=dev, generator=gen).to(torch.bfloat16)
    offsets = torch.tensor(np.concatenate([[0], np.cumsum(ms)]), dtype=torch.int32, device=dev)
    rows = torch.repeat_interleave(torch.arange(G, device=dev),
                                   torch.tensor(ms, device=dev))

    def layer(c, with_bias=True, out="bf16"):
        q, s, d = weights[c]
        b = bias if with_bias else None
        if dense:
            return torch.ops.nvfp4.linear(x, q, s, d, out_dtype=out, bias=b)
        return torch.ops.nvfp4.grouped_linear(x, q, s, d, offsets, out_dtype=out,
                                              check_tables=False, bias=b)

    def added(c):
        y = layer(c, False)
        return y + (bias if dense else bias[rows])

    a = layer(0)
    want = (layer(0, False, "f32") + (bias if dense else bias[rows]).float()).to(torch.bfloat16)
    row["same_bits"] = bool(torch.equal(a.view(torch.int16), want.view(torch.int16)))
    row["deterministic"] = bool(torch.equal(a.view(torch.int16), layer(0).view(torch.int16)))
    row["fused_us"] = time_layers(torch, layer, copies, reps)
    row["unfused_us"] = time_layers(torch, added, copies, reps)
    row["copies_fp4"] = copies
    return row


# MoE blocks (nvfp4.models.MoEExperts): tokens, hidden, experts, their
# intermediate size, top-k. Qwen3-30B-A3B's experts, a 2048-token prefill
# and a 64-token decode step.
BLOCKS = {
    "qwen3_moe_block_t2048": (2048, 2048, 128, 768, 8),
    "qwen3_moe_block_t64": (64, 2048, 128, 768, 8),
}


def torch_route(torch, top_k_index, num_experts):
    """The torch peers' routing: a stable sort of the (token, slot) pairs by
    expert (the permutation) and group_offsets [E + 1] (int32)."""
    flat = top_k_index.reshape(-1)
    order = torch.argsort(flat, stable=True)
    counts = torch.zeros(num_experts, dtype=torch.int64, device=flat.device)
    counts.scatter_add_(0, flat, torch.ones_like(flat))
    offsets = torch.zeros(num_experts + 1, dtype=torch.int32, device=flat.device)
    offsets[1:] = torch.cumsum(counts, 0).to(torch.int32)
    return order, offsets


def torch_combine(torch, y, order, wts, tokens, top_k):
    """The torch peers' combine: each row times its weight, the rows back in
    (token, slot) order (a gather by the inverse permutation; an index_put
    of the rows costs several times more), summed over the k slots. (One
    batched [1, k] x [k, H] product per token instead measured slower on
    the H200: 939 against 906 us for the 2048-token block.)"""
    y = y * wts.reshape(-1)[order, None]
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(order.numel(), device=order.device)
    return y[inverse].view(tokens, top_k, y.shape[-1]).sum(1)


def run_block(torch, name, tokens, hidden, experts, inter, top_k, reps):
    """The whole expert block (routing, gate_up + SwiGLU, down, weighted
    combine; bf16 in and out) as nvfp4.models.MoEExperts runs it (fused:
    the SwiGLU in the gate_up GEMM's epilogue), the same with the
    activation as its own kernel (unfused), and in bf16 torch
    (torch._grouped_mm on the same weights dequantized, F.silu(gate) * up,
    the same routing and combine)."""
    import torch.nn.functional as F

    import nvfp4.nn as nvnn
    from nvfp4 import models
    dev = "cuda"
    gen = torch.Generator(device=dev).manual_seed(hash(name) % (2 ** 31))
    row = dict(case=name, m=tokens * top_k, n=2 * inter, k=hidden, groups=experts,
               l2_cold=True, device=torch.cuda.get_device_name(0))
    w1 = torch.randn(experts, 2 * inter, hidden, device=dev, generator=gen) / hidden ** 0.5
    w2 = torch.randn(experts, hidden, inter, device=dev, generator=gen) / inter ** 0.5
    gate_up = nvnn.GroupedExperts.from_weight(w1.to(torch.bfloat16))
    down = nvnn.GroupedExperts.from_weight(w2.to(torch.bfloat16))
    del w1, w2
    # Dequantized before MoEExperts interleaves gate_up's rows: [gate; up].
    deq = []
    for layer in (gate_up, down):
        e, n, half = layer.weight_values.shape
        d = layer.weight_decode.view(torch.float32)
        deq.append(torch.stack([
            (dequant(torch, layer.weight_values[g], layer.weight_scales[g], n, 2 * half) *
             float(d[g])).to(torch.bfloat16) for g in range(e)]))
    block = models.MoEExperts(down, gate_up=gate_up)
    x = (torch.randn(tokens, hidden, device=dev, generator=gen)).to(torch.bfloat16)
    logits = torch.randn(tokens, experts, device=dev, generator=gen)
    top_w, top_i = torch.topk(torch.softmax(logits, -1), top_k, dim=-1)
    top_w = (top_w / top_w.sum(-1, keepdim=True)).to(torch.bfloat16)

    class Unfused(torch.nn.Module):
        """gate_up's product, then the activation as its own kernel."""
        def __init__(self, inner):
            super().__init__()
            self.inner, self.weight_only = inner, inner.weight_only

        def forward(self, xs, offsets, swiglu=None, bias=None, check_tables=None):
            return torch.ops.nvfp4.swiglu(
                self.inner(xs, offsets, bias=bias, check_tables=check_tables), **swiglu)

    unfused = models.MoEExperts(down, gate_up=Unfused(gate_up), interleaved=True)
    w1t, w2t = deq[0].transpose(1, 2), deq[1].transpose(1, 2)

    def bf16_block(hs, idx, wts):
        order, offsets = torch_route(torch, idx, experts)
        xs = hs[order // top_k]
        gu = torch._grouped_mm(xs, w1t, offs=offsets[1:], out_dtype=torch.bfloat16)
        h = F.silu(gu[:, :inter]) * gu[:, inter:]
        y = torch._grouped_mm(h, w2t, offs=offsets[1:], out_dtype=torch.bfloat16)
        return torch_combine(torch, y, order, wts, tokens, top_k)

    a = block(x, top_i, top_w)
    b = unfused(x, top_i, top_w)
    row["same_bits"] = bool(torch.equal(a.view(torch.int16), b.view(torch.int16)))
    row["deterministic"] = bool(torch.equal(a.view(torch.int16),
                                            block(x, top_i, top_w).view(torch.int16)))
    # FP8 rowwise (torch._scaled_grouped_mm): the same weights in e4m3 with
    # a scale per row, the activations quantized per row on the fly (in
    # torch), before each GEMM.
    from peers import fp8_rowwise
    w8 = [fp8_rowwise(torch, w) for w in deq]
    w8t = [(q.transpose(1, 2), s.reshape(s.shape[0], -1)) for q, s in w8]

    def fp8_block(hs, idx, wts):
        order, offsets = torch_route(torch, idx, experts)
        xs = hs[order // top_k]

        def gemm(a, which):
            a8, sa = fp8_rowwise(torch, a)
            b8, sb = w8t[which]
            return torch._scaled_grouped_mm(a8, b8, sa.reshape(-1), sb, offs=offsets[1:],
                                            out_dtype=torch.bfloat16, use_fast_accum=False)
        gu = gemm(xs, 0)
        y = gemm(F.silu(gu[:, :inter]) * gu[:, inter:], 1)
        return torch_combine(torch, y, order, wts, tokens, top_k)

    # Calibrated activation scales (a checkpoint's input_global_scale,
    # here 2688 over this batch's amax): gate_up's tokens quantized with
    # one, and the down projection's inputs with another, which gate_up's
    # epilogue applies (static_fused: the FP4 activations written by the
    # GEMM) or the down projection's own quantize (static).
    order, offsets = torch_route(torch, top_i, experts)
    xs = x[order // top_k]
    h = block.gate_up(xs, offsets, swiglu=block._swiglu())
    scales = [torch.tensor(2688.0, device=dev) / t.float().abs().max() for t in (xs, h)]

    def static_layer(layer, scale):
        return nvnn.GroupedExperts.from_quantized(
            layer.weight_values, layer.weight_scales, layer.weight_decode.view(torch.float32),
            input_encode_scale=scale)

    static = models.MoEExperts(static_layer(down, scales[1]),
                               gate_up=static_layer(gate_up, scales[0]), interleaved=True)
    static_unfused = models.MoEExperts(static_layer(down, scales[1]),
                                       gate_up=static_layer(gate_up, scales[0]),
                                       interleaved=True)
    static_unfused._fp4_intermediate = lambda *args: None

    epilogue_quantize = PipelineOptions("quantize-in-epilogue=1")
    with epilogue_quantize:
        sa = static(x, top_i, top_w)
    row["static_same_bits"] = bool(torch.equal(
        sa.view(torch.int16), static_unfused(x, top_i, top_w).view(torch.int16)))
    p = bf16_block(x, top_i, top_w).float()
    row["static_rel_rms_vs_bf16"] = float((sa.float() - p).norm() / p.norm())
    row["rel_rms_vs_bf16"] = float((a.float() - p).norm() / p.norm())
    row["fp8_rel_rms_vs_bf16"] = float((fp8_block(x, top_i, top_w).float() - p).norm() /
                                       p.norm())
    row["fused_us"] = time_layers(torch, lambda c: block(x, top_i, top_w), 1, reps)
    row["unfused_us"] = time_layers(torch, lambda c: unfused(x, top_i, top_w), 1, reps)
    row["bf16_us"] = time_layers(torch, lambda c: bf16_block(x, top_i, top_w), 1, reps)
    row["fp8_us"] = time_layers(torch, lambda c: fp8_block(x, top_i, top_w), 1, reps)
    with epilogue_quantize:
        row["static_fused_us"] = time_layers(torch, lambda c: static(x, top_i, top_w), 1,
                                             reps)
    row["static_us"] = time_layers(torch, lambda c: static_unfused(x, top_i, top_w), 1, reps)
    row["copies_fp4"] = row["copies_bf16"] = 1  # 302 MB of FP4 experts: > 4x the L2
    del deq, w1t, w2t, block, unfused, static, static_unfused
    torch.cuda.empty_cache()
    return row


def same(row):
    """Whether each pair of forms gave the same bits, and reruns too."""
    return row["same_bits"] and row["deterministic"] and row.get("static_same_bits", True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=".")
    ap.add_argument("--cases", default=",".join(list(CASES) + list(BLOCKS) + list(BIAS_CASES)))
    ap.add_argument("--reps", type=int, default=REPS)
    args = ap.parse_args(argv)
    import torch
    rows = []
    for name in args.cases.split(","):
        t0 = time.time()
        if name in BLOCKS:
            row = run_block(torch, name, *BLOCKS[name], args.reps)
        elif name in BIAS_CASES:
            row = run_bias(torch, name, *BIAS_CASES[name], args.reps)
        else:
            ms, n, k = CASES[name]
            row = run_case(torch, name, ms, n, k, args.reps)
        print(json.dumps(row), f"({time.time() - t0:.1f} s)", flush=True)
        rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "epilogue.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = [f"# gate_up + SwiGLU, {rows[0]['device'] if rows else ''}, weights cold in L2",
             "", f"commit {os.environ.get('NVFP4_COMMIT', '?')}; µs per call (median CUDA-graph "
             "replay over the weight copies)", "",
             "| case | M | N x K | groups | fused | unfused | static, fused | static "
             "| bf16 torch | FP8 torch | same bits | rel. RMS vs bf16 (ours, FP8) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def us(key):
            return f"{r[key]:.1f}" if key in r else "-"
        rms = " / ".join(f"{r[key]:.4f}" for key in ("rel_rms_vs_bf16", "fp8_rel_rms_vs_bf16")
                         if key in r) or "-"
        lines.append(f"| {r['case']} | {r['m']} | {r['n']} x {r['k']} | {r['groups']} | "
                     f"{us('fused_us')} | {us('unfused_us')} | {us('static_fused_us')} | "
                     f"{us('static_us')} | {us('bf16_us')} | {us('fp8_us')} | "
                     f"{same(r)} | {rms} |")
    (out / "epilogue.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(same(r) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
