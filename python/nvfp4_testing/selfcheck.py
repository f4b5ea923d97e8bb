"""Checks the compiler against the reference on fresh random data.

    python3 -m nvfp4_testing.selfcheck quantize|dequantize|swizzle|activation|moe|matmul|grouped|decode|fused|empty|all
                               [--target cpu|gpu|auto] [--size ci|full]

Every case runs a generated program through the Python API (outputs poisoned
with 0xff before the run, so an unwritten element cannot pass) and compares
with python/nvfp4/reference.py: quantize/dequantize/swizzle outputs bit for
bit, matmuls against an fp64 reference of the dequantized operands within
|c - ref| <= 1e-3 + 1e-3*|ref| (plus half an output ulp for bf16, whose
rounding alone exceeds 1e-3 relative: 2^-8 |ref|). Data includes zero blocks, outlier
blocks and E4M3-subnormal block scales; NaN/Inf inputs are separate cases.

Prints one line per case (PASS/FAIL) and a SUMMARY line per family; the lit
tests in test/Integration check those lines. Exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from nvfp4 import compiler, runtime
from nvfp4 import reference as ref

GPU_MODE_CASES = [
    ("gpumode1", [80, 176, 128, 72, 64, 248, 96, 160], 4096, 7168),
    ("gpumode2", [40, 76, 168, 72, 164, 148, 196, 160], 7168, 2048),
    ("gpumode3", [192, 320], 3072, 4096),
    ("gpumode4", [128, 384], 4096, 1536),
]


class Report:
    def __init__(self, family):
        self.family = family
        self.cases = 0
        self.failures = 0
        self.exact_bytes = 0
        self.worst_rel = 0.0
        self.worst_abs = 0.0

    def record(self, name, ok, details):
        self.cases += 1
        self.failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} {self.family} {name}: {details}", flush=True)

    def exact(self, name, pairs):
        """pairs: (label, got, expected) arrays compared bit for bit."""
        ok = True
        parts = []
        for label, got, want in pairs:
            got = np.ascontiguousarray(np.atleast_1d(got))
            want = np.ascontiguousarray(np.atleast_1d(want))
            if got.shape != want.shape:
                ok = False
                parts.append(f"{label} shape {got.shape} != {want.shape}")
                continue
            if got.dtype != want.dtype:
                ok = False
                parts.append(f"{label} dtype {got.dtype} != {want.dtype}")
                continue
            g, w = got.view(np.uint8), want.view(np.uint8)
            bad = int(np.count_nonzero(g != w))
            self.exact_bytes += g.size
            ok &= bad == 0
            parts.append(f"{label} {bad}/{g.size} bytes differ")
        self.record(name, ok, ", ".join(parts))

    def close(self, name, got, want, out, bound=None):
        """Matmul check: the numerics bar, plus (when `bound` is given) the
        worst-case fp32 summation error K * 2^-24 * sum|a_k b_k| that any
        summation order may make. Without a bound the bar alone applies."""
        got64 = _as_f64(got, out)
        bar = _tolerance(want, out)
        tol = bar if bound is None else bar + bound
        err = np.abs(got64 - want)
        with np.errstate(invalid="ignore"):
            ok_mask = err <= tol
            beyond_bar = int(np.count_nonzero(err > bar))
        rel = err / np.maximum(np.abs(want), 1e-3)
        worst_rel = float(np.nanmax(rel)) if rel.size else 0.0
        worst_tol = float(np.nanmax(err / tol)) if err.size else 0.0
        self.worst_rel = max(self.worst_rel, worst_rel)
        bad = int(np.count_nonzero(~ok_mask))
        details = (f"{bad}/{got64.size} outside tolerance, max |err|/tolerance {worst_tol:.3g}, "
                   f"max |err|/max(|ref|,1e-3) {worst_rel:.3g}")
        if bound is not None:
            details += f", {beyond_bar} beyond the 1e-3 bar (within the fp32 summation bound)"
        self.record(name, bad == 0, details)

    def summary(self):
        line = (f"SUMMARY {self.family}: {self.cases} cases, {self.failures} failures, "
                f"{self.exact_bytes} bytes compared bit for bit")
        if self.worst_rel:
            line += f", worst relative error {self.worst_rel:.3g}"
        print(line, flush=True)


def _as_f64(c, out):
    if out == "bf16":
        return ref.bf16_bits_to_f32(c).astype(np.float64)
    return np.asarray(c).astype(np.float64)


def _tolerance(want, out):
    """The numerics bar; bf16 outputs may also be off by their own rounding
    (half an ulp: up to 2^-8 relative just above a power of two)."""
    tol = ref.TOL_ABS + ref.TOL_REL * np.abs(want)
    if out == "bf16":
        tol = tol + np.abs(want) * 2.0 ** -8
    return tol


def _abs_codes(q):
    """Packed codes with both sign bits cleared: |e2m1| values."""
    return q & np.uint8(0x77)


def _abs_activations(a):
    """|A| of a weight-only matmul's bf16 bits or f16 values."""
    a = np.asarray(a)
    return a & np.uint16(0x7FFF) if a.dtype == np.uint16 else np.abs(a)


def summation_bound(a_q, a_s, b_q, b_s, k, *, fmt="nvfp4", alpha=1.0, **kw):
    """K * 2^-24 * |alpha| * sum_k |a_k b_k|: the worst-case error of summing
    the K exact fp32 products in fp32 in any order (Higham, gamma_K).
    a_s=None: A is bf16/f16 activations (weight-only)."""
    a_abs = _abs_activations(a_q) if a_s is None else _abs_codes(a_q)
    terms = ref.matmul_reference(a_abs, a_s, _abs_codes(b_q), b_s, fmt=fmt,
                                 alpha=np.abs(np.asarray(alpha, np.float64)), **kw)
    return terms * (k * 2.0 ** -24)


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

def high_precision(shape, seed, dtype, kind="mixed"):
    """(array as passed to the compiler, same values as float32)."""
    if dtype == "bf16":
        bits, xf = ref.make_test_tensor(shape, seed, kind=kind, dtype="bf16")
        return bits, xf
    x = ref.make_test_tensor(shape, seed, kind=kind, dtype=dtype)
    x = x[0] if isinstance(x, tuple) else x
    x = x.astype(np.float16 if dtype == "f16" else np.float32)
    return x, x.astype(np.float32)


def random_operand(rows, k, fmt, rng, *, modest=False):
    """Packed E2M1 codes and swizzled scales of a [rows, K] operand.

    Codes are uniform random bytes with ~5% zero blocks. NVFP4 scales are
    E4M3 bytes around 1.0 with ~1% zero scales, ~2% subnormal scales
    (0x01..0x07) and ~1% outliers up to 448 (unless `modest`, for f16
    outputs whose range is small). MXFP4 scales are 2^-3..2^3 with rare
    2^-20 / 2^10 blocks.
    """
    bs = 16 if fmt == "nvfp4" else 32
    q = rng.integers(0, 256, size=(rows, k // 2), dtype=np.uint8)
    blocks = q.reshape(rows, k // bs, bs // 2)
    blocks[rng.random((rows, k // bs)) < 0.05] = 0
    shape = (rows, k // bs)
    u = rng.random(shape)
    if fmt == "nvfp4":
        s = rng.integers(0x28, 0x48, size=shape, dtype=np.uint8)
        s[u < 0.01] = 0
        s[(u >= 0.01) & (u < 0.03)] = rng.integers(1, 8, size=int(((u >= 0.01) & (u < 0.03)).sum()))
        if not modest:
            big = (u >= 0.03) & (u < 0.04)
            s[big] = rng.integers(0x60, 0x7F, size=int(big.sum()))
    else:
        s = rng.integers(124, 131, size=shape, dtype=np.uint8)
        s[u < 0.01] = 107
        if not modest:
            s[(u >= 0.01) & (u < 0.02)] = 137
    return q, ref.swizzle_scales(s)


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------

def e2m1_boundary_data(rows, k, seed):
    """f32 [rows, k] whose NVFP4 quantize with amax=448*6 casts every value
    to E2M1 as it is (S_enc = 1; each 16-block holds +-6, so sf = 1 and
    enc_b = 1): the E2M1 grid, every rounding threshold and tie, their fp32
    neighbours, values just below 6, subnormals, +-0 and NaNs of both signs,
    with random signs."""
    grid = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    ties = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0]
    pool = []
    for v in grid + ties:
        v = np.float32(v)
        pool += [v, np.nextafter(v, np.float32(0)), np.nextafter(v, np.float32(7))]
    pool += [np.float32(5.9999995), np.float32(1e-40), np.float32(1.4e-45),
             np.float32(2.0 ** -126), np.float32(np.nan),
             np.float32(-np.nan)]
    pool = np.array([p for p in pool if not (p > 6)], np.float32)
    rng = np.random.default_rng(seed)
    x = rng.choice(pool, size=(rows, k))
    sign = rng.random((rows, k)) < 0.5
    x = np.where(sign, -x, x).astype(np.float32)
    blocks = x.reshape(rows, k // 16, 16)
    lead = rng.integers(0, 16, size=(rows, k // 16))
    np.put_along_axis(blocks, lead[..., None],
                      np.where(rng.random((rows, k // 16, 1)) < 0.5, 6.0, -6.0)
                      .astype(np.float32), axis=2)
    return x


# 16-chunks (x_0, x_1, x_2, 0, ...) whose Hadamard transform lands on ties of
# the input type (python/tests/test_reference.py derives them): the sums
# (x_0 + x_1 + x_2, x_0 - x_1 + x_2, x_0 + x_1 - x_2, x_0 - x_1 - x_2) / 4.
RHT_TIE_CHUNKS = {
    "bf16": [(22.0, 1.96875, 0.03125), (22.0, 2.0, 0.0625)],
    "f16": [(22.0, 1.99609375, 2.0 ** -8), (22.0, 2.0, 2.0 ** -7)],
    "f32": [(22.0, 1.96875, 0.03125)],
}


def rht_tie_data(shape, seed, dtype):
    """[rows, k] input (as passed to the compiler) where half of the
    16-chunks are RHT_TIE_CHUNKS scaled by 2^-4..2^4 with random signs (their
    transforms are exact fp32 sums on ties of bf16/f16) and half gaussian."""
    rng = np.random.default_rng(seed)
    rows, k = shape
    x = rng.standard_normal((rows * k // 16, 16)).astype(np.float32)
    pick = rng.random(x.shape[0]) < 0.5
    for n in np.nonzero(pick)[0]:
        a, b, c = RHT_TIE_CHUNKS[dtype][rng.integers(len(RHT_TIE_CHUNKS[dtype]))]
        scale = np.float32(2.0 ** int(rng.integers(-4, 5))) * np.float32(rng.choice([-1, 1]))
        x[n] = 0
        x[n, :3] = np.float32([a, b, c]) * scale
    x = x.reshape(rows, k)
    if dtype == "bf16":
        return ref.f32_to_bf16_bits(x)
    if dtype == "f16":
        return x.astype(np.float16)
    return x


def four_six_tie_data(shape, seed):
    """f32 [rows, k] of 16-blocks with |max| 6 whose 4/6 candidate errors
    are exact ties or differ by a few ulp when quantized with amax = C =
    1536 (e4m3_max 256: S_enc = 1, error-domain values e2m1 * sf exactly):
    6, 1.75 (error 0.25 for both candidates), 4 + a (6: a, 4: 0.5 - a) and
    4.5 - b (6: 0.5 - b, 4: b) with a, b in {1, 2, 3} * 2^-21 (python/tests
    derives such blocks), 5.25 (0.75 for both), random signs and positions;
    a quarter of the blocks gaussian with one +-6."""
    rng = np.random.default_rng(seed)
    rows, k = shape
    blocks = np.zeros((rows * k // 16, 16), np.float32)
    for n in range(blocks.shape[0]):
        u = rng.random()
        if u < 0.25:
            v = np.clip(rng.standard_normal(16) * 2, -6, 6).astype(np.float32)
            v[rng.integers(16)] = 6.0
        else:
            a, b = (int(rng.integers(1, 4)) * 2.0 ** -21 for _ in range(2))
            pool = [6.0, 1.75, 4.0 + a, 4.5 - b] + [5.25] * int(rng.integers(0, 3))
            v = np.zeros(16, np.float32)
            v[:len(pool)] = pool
            v = rng.permutation(v)
        blocks[n] = v * np.where(rng.random(16) < 0.5, -1, 1)
    return blocks.reshape(rows, k)


def _option_text(key, value, opts):
    """A case option as its name shows it: an array is per row, or per batch
    entry (given scales: their values)."""
    if not isinstance(value, np.ndarray):
        return value
    if key in ("encode_scale", "decode_scale") or not opts.get("row_scaled"):
        return "[" + ", ".join(f"{v:g}" for v in value.tolist()) + "]"
    return "per row"


def check_quantize(target, size):
    rep = Report("quantize")
    nv_shapes = [(256, 272), (304, 304), (320, 256), (16, 128), (100, 112), (200, 80), (157, 48)]
    mx_shapes = [(256, 288), (100, 96), (157, 160), (16, 128)]
    cases = []
    for i, shape in enumerate(nv_shapes):
        dtype = ("bf16", "f16", "f32")[i % 3]
        cases.append(("nvfp4", shape, dtype, dict()))
        cases.append(("nvfp4", shape, dtype, dict(swizzle=False)))
    for shape in [(256, 272), (157, 48)]:
        cases += [
            ("nvfp4", shape, "bf16", dict(block="16x16")),
            ("nvfp4", shape, "bf16", dict(rounding="stochastic", seed=2024)),
            ("nvfp4", shape, "f32", dict(rounding="stochastic", seed=2 ** 63 + 12345)),
            ("nvfp4", shape, "bf16", dict(hadamard=True)),
            ("nvfp4", shape, "bf16", dict(scale_rule="four_over_six")),
            ("nvfp4", shape, "bf16", dict(scale_rule="four_over_six", error_metric="mae")),
            ("nvfp4", shape, "f16", dict(scale_rule="four_over_six", error_metric="abs_max")),
            ("nvfp4", shape, "bf16", dict(block="16x16", scale_rule="four_over_six", hadamard=True)),
            ("nvfp4", shape, "bf16", dict(rounding="stochastic", seed=9, hadamard=True,
                                          scale_rule="four_over_six")),
            ("nvfp4", shape, "bf16", dict(amax=1.5)),
        ]
    cases.append(("nvfp4", (3, 100, 48), "bf16", dict()))
    cases.append(("nvfp4", (2, 130, 64), "f32", dict(block="16x16", swizzle=False)))
    cases.append(("nvfp4", (2, 64, 32), "bf16", dict(amax=[2.0, 0.25])))
    cases.append(("nvfp4", (64, 96), "f32", dict(kind="nonfinite")))
    cases.append(("nvfp4", (64, 96), "bf16", dict(kind="nonfinite", scale_rule="four_over_six")))
    cases.append(("nvfp4", (64, 96), "bf16", dict(kind="zeros")))
    # Stochastic rounding of NaN, Inf and of elements of blocks whose scale
    # is 0 (enc_b = FLT_MAX: the caller's amax is 1000 times the data's).
    cases.append(("nvfp4", (64, 96), "f32", dict(kind="nonfinite", rounding="stochastic",
                                                 seed=5)))
    cases.append(("nvfp4", (64, 96), "bf16", dict(amax=1e6, rounding="stochastic", seed=6)))
    for shape in mx_shapes:
        cases.append(("mxfp4", shape, "bf16", dict()))
        cases.append(("mxfp4", shape, "f32", dict(scale_rule="floor", swizzle=False)))
    cases += [
        ("mxfp4", (256, 288), "bf16", dict(rounding="stochastic", seed=77)),
        ("mxfp4", (256, 288), "bf16", dict(hadamard=True)),
        ("mxfp4", (2, 100, 96), "f16", dict()),
        ("mxfp4", (64, 96), "f32", dict(kind="nonfinite")),
    ]
    # Hadamard: the transform is rounded to bf16/f16 (f32 keeps it).
    cases += [
        ("nvfp4", (256, 272), "f16", dict(hadamard=True)),
        ("nvfp4", (157, 48), "f32", dict(hadamard=True, block="16x16")),
        ("nvfp4", (64, 256), "bf16", dict(kind="rht_ties", hadamard=True)),
        ("nvfp4", (64, 256), "f16", dict(kind="rht_ties", hadamard=True, amax=2688.0)),
        ("mxfp4", (100, 96), "f16", dict(hadamard=True)),
    ]
    # four_over_six: TE's error modes, both E4M3 maxima, both tile shapes;
    # coarse bf16 data (an amax of few significant bits); near-tie blocks.
    for j, (metric, e4m3_max, blk) in enumerate(
            [(m, e, bl) for m in ("mae", "mse") for e in (448, 256) for bl in ("1x16", "16x16")]):
        shape = [(157, 48), (100, 112), (256, 272), (48, 64)][j % 4]
        dtype = ("bf16", "f16", "f32")[j % 3]
        cases.append(("nvfp4", shape, dtype, dict(scale_rule="four_over_six", error_metric=metric,
                                                 e4m3_max=e4m3_max, block=blk)))
    cases += [
        ("nvfp4", (128, 256), "bf16", dict(kind="coarse", scale_rule="four_over_six")),
        ("nvfp4", (128, 256), "bf16", dict(kind="coarse", scale_rule="four_over_six",
                                           error_metric="mse", e4m3_max=256, block="16x16")),
    ]
    for metric, blk in (("mae", "1x16"), ("mse", "1x16"), ("mae", "16x16")):
        cases.append(("nvfp4", (64, 128), "f32", dict(kind="four_six_ties",
                                                     scale_rule="four_over_six",
                                                     error_metric=metric, e4m3_max=256,
                                                     amax=1536.0, block=blk)))
    cases.append(("nvfp4", (64, 256), "f32", dict(kind="boundaries", amax=448.0 * 6)))
    # Row-scaled NVFP4 (TE's row_scaled_nvfp4): amax and decode scale per row.
    row_amax = np.random.default_rng(77).uniform(0.5, 8, 100).astype(np.float32)
    row_amax[::7] = 0.0
    cases += [
        ("nvfp4", (256, 272), "bf16", dict(row_scaled=True)),
        ("nvfp4", (157, 48), "f32", dict(row_scaled=True, swizzle=False)),
        ("nvfp4", (3, 100, 48), "f16", dict(row_scaled=True)),
        ("nvfp4", (130, 4128), "bf16", dict(row_scaled=True)),
        ("nvfp4", (256, 272), "bf16", dict(row_scaled=True, scale_rule="four_over_six")),
        ("nvfp4", (157, 48), "f32", dict(row_scaled=True, scale_rule="four_over_six",
                                         error_metric="mse", e4m3_max=256)),
        ("nvfp4", (256, 272), "bf16", dict(row_scaled=True, hadamard=True)),
        ("nvfp4", (157, 48), "bf16", dict(row_scaled=True, rounding="stochastic", seed=31)),
        ("nvfp4", (100, 96), "bf16", dict(row_scaled=True, amax=row_amax)),
        ("nvfp4", (64, 96), "f32", dict(row_scaled=True, kind="nonfinite")),
        ("nvfp4", (64, 96), "bf16", dict(row_scaled=True, kind="zeros")),
    ]
    # Calibrated global scales (encode_scale = S_enc, decode_scale = S_dec,
    # used as given; no amax pass): per tensor and per batch entry, each
    # input type, the variants that need no amax, a scale that saturates
    # most block scales to 448 and one that makes most of them subnormal
    # (the data's |x| reaches ~1000, its median ~0.5), a decode scale with
    # fl(1/fl(1/d)) != d, and the unguarded values 0, Inf, NaN, negative.
    batch_e = np.float32([0.75, 2688.0 / 999.0, 40.0])
    cases += [
        ("nvfp4", (256, 272), "bf16", dict(encode_scale=2.6875)),
        ("nvfp4", (157, 48), "f16", dict(decode_scale=0.37, swizzle=False)),
        ("nvfp4", (100, 112), "f32", dict(encode_scale=0.5)),
        ("nvfp4", (3, 100, 48), "bf16", dict(encode_scale=batch_e)),
        ("nvfp4", (3, 100, 48), "f32", dict(decode_scale=batch_e, swizzle=False)),
        ("nvfp4", (2, 130, 64), "f16", dict(decode_scale=np.float32([0.25, 3.0]),
                                            block="16x16")),
        ("nvfp4", (256, 272), "bf16", dict(encode_scale=3.0, block="16x16")),
        ("nvfp4", (157, 48), "bf16", dict(decode_scale=0.0009, rounding="stochastic",
                                          seed=4242)),
        ("nvfp4", (3, 100, 48), "f32", dict(encode_scale=batch_e, rounding="stochastic",
                                            seed=2 ** 40 + 3, hadamard=True)),
        ("nvfp4", (256, 272), "f16", dict(decode_scale=1.5, hadamard=True)),
        ("nvfp4", (157, 48), "bf16", dict(encode_scale=0.1, hadamard=True, block="16x16")),
        ("nvfp4", (256, 272), "bf16", dict(encode_scale=2e4)),          # sf 448
        ("nvfp4", (2, 64, 96), "f32", dict(decode_scale=np.float32([1e-5, 2e-5]))),
        ("nvfp4", (256, 272), "bf16", dict(encode_scale=0.02)),         # subnormal sf
        ("nvfp4", (100, 112), "f16", dict(decode_scale=64.0, block="16x16")),
        ("nvfp4", (64, 96), "f32", dict(kind="nonfinite", decode_scale=0.01)),
        ("nvfp4", (64, 96), "bf16", dict(kind="zeros", encode_scale=5.0)),
        ("nvfp4", (64, 96), "bf16", dict(encode_scale=0.0)),
        ("nvfp4", (64, 96), "f32", dict(kind="nonfinite", decode_scale=0.0)),
        ("nvfp4", (64, 96), "bf16", dict(decode_scale=np.inf)),
        ("nvfp4", (64, 96), "f16", dict(decode_scale=np.nan)),
        ("nvfp4", (2, 64, 96), "bf16", dict(encode_scale=np.float32([-2.0, -0.0]))),
    ]
    if size == "full":
        cases.append(("nvfp4", (8192, 8192), "bf16", dict()))
    else:
        cases.append(("nvfp4", (1024, 1024), "bf16", dict()))

    for i, (fmt, shape, dtype, opts) in enumerate(cases):
        opts = dict(opts)
        kind = opts.pop("kind", "mixed")
        if kind == "zeros":
            x = np.zeros(shape, np.uint16 if dtype == "bf16" else
                         (np.float16 if dtype == "f16" else np.float32))
        elif kind == "boundaries":
            x = e2m1_boundary_data(*shape, 1000 + i)
        elif kind == "rht_ties":
            x = rht_tie_data(shape, 1000 + i, dtype)
        elif kind == "four_six_ties":
            x = four_six_tie_data(shape, 1000 + i)
        elif kind == "coarse":
            g = np.random.default_rng(1000 + i).standard_normal(shape)
            xf = (np.clip(np.round(g * 16), -112, 112) / 16).astype(np.float32)
            x = ref.f32_to_bf16_bits(xf) if dtype == "bf16" else xf
        else:
            x, _ = high_precision(shape, 1000 + i, dtype, kind=kind)
        swizzle = opts.pop("swizzle", True)
        name = f"{fmt} {dtype} {shape} {'swizzled' if swizzle else 'row-major'}" + \
               ("" if kind == "mixed" else f" {kind} data") + \
               "".join(f" {k}={_option_text(k, v, opts)}" for k, v in opts.items())
        if fmt == "nvfp4":
            got = compiler.quantize(x, fmt, swizzle=swizzle, target=target, **opts)
            want = ref.quantize_nvfp4(x, swizzle=swizzle, **opts)
            rep.exact(name, [("codes", got[0], want[0]), ("scales", got[1], want[1]),
                             ("s_dec", got[2], np.asarray(want[2], np.float32))])
        else:
            got = compiler.quantize(x, fmt, swizzle=swizzle, target=target, **opts)
            want = ref.quantize_mxfp4(x, swizzle=swizzle, **opts)
            rep.exact(name, [("codes", got[0], want[0]), ("scales", got[1], want[1])])
    # One program called twice (its workspace kept between the calls): the
    # amax kernel's scratch (above fused-quantize-max-elements) is left zero
    # by its last block, so a second call on data of a thousandth of the
    # magnitude finds its own amax, not the first call's.
    x, _ = high_precision((256, 272), 4242, "f32")
    for factor in (1000.0, 1.0):
        xs = x * np.float32(factor)
        got = compiler.quantize(xs, "nvfp4", swizzle=True, target=target)
        want = ref.quantize_nvfp4(xs, swizzle=True)
        rep.exact(f"nvfp4 f32 (256, 272) the same program again, data x {factor:g}",
                  [("codes", got[0], want[0]), ("scales", got[1], want[1]),
                   ("s_dec", got[2], np.asarray(want[2], np.float32))])
    rep.summary()
    return rep


def check_dequantize(target, size):
    rep = Report("dequantize")
    rng = np.random.default_rng(5)
    for i, (fmt, shape, swizzle, out, decode) in enumerate([
            ("nvfp4", (200, 96), True, "f32", True),
            ("nvfp4", (200, 96), False, "bf16", True),
            ("nvfp4", (3, 64, 48), True, "f16", True),
            ("nvfp4", (130, 32), True, "f32", False),
            ("nvfp4", (200, 96), True, "bf16", "per row"),
            ("nvfp4", (3, 64, 48), False, "f32", "per row"),
            ("mxfp4", (100, 128), True, "f32", False),
            ("mxfp4", (2, 50, 64), False, "bf16", False)]):
        x, _ = high_precision(shape, 2000 + i, "bf16")
        if fmt == "nvfp4":
            q, s, d = ref.quantize_nvfp4(x, swizzle=swizzle, row_scaled=decode == "per row")
        else:
            (q, s), d = ref.quantize_mxfp4(x, swizzle=swizzle), None
        d_arg = d if decode else None
        got = compiler.dequantize(q, s, d_arg, fmt=fmt, out_dtype=out, target=target)
        want = ref.dequantize(q, s, d_arg, fmt=fmt, rows=shape[-2], cols=shape[-1] // (16 if fmt == "nvfp4" else 32),
                              swizzled=swizzle)
        want = ref.cast_output(want, out)
        rep.exact(f"{fmt} {shape} {'swizzled' if swizzle else 'row-major'} -> {out}"
                  f"{' with decode scale' if decode else ''}"
                  f"{' per row' if decode == 'per row' else ''}", [("values", got, want)])
    del rng
    rep.summary()
    return rep


def check_swizzle(target, size):
    rep = Report("swizzle")
    rng = np.random.default_rng(6)
    for fmt, shape in [("nvfp4", (200, 28)), ("nvfp4", (128, 4)), ("nvfp4", (1, 1)),
                       ("mxfp4", (300, 9)), ("nvfp4", (2, 130, 5)), ("mxfp4", (3, 64, 16))]:
        s = rng.integers(1, 256, size=shape, dtype=np.uint8)
        sw = compiler.swizzle_scales(s, fmt, target=target)
        rep.exact(f"swizzle {fmt} {shape}", [("swizzled", sw, ref.swizzle_scales(s))])
        back = compiler.unswizzle_scales(ref.swizzle_scales(s), shape[-2], shape[-1], fmt,
                                         target=target)
        rep.exact(f"unswizzle {fmt} {shape}", [("row-major", back, s)])
    rep.summary()
    return rep


def swiglu_data(shape, seed, dtype):
    """[..., 2N] gate/up values (as passed to the compiler, and as f32)
    covering every path of the activation: |x| up to 300 (e^x overflows
    and underflows inside the sigmoid), values around the gpt-oss clamp,
    zeros of both signs, fp32 subnormals, +-inf and NaN."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 6).astype(np.float32)
    flat = x.reshape(-1)
    n = flat.size
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 7.0, -7.0, 7.5, -7.5, 88.5,
                         -88.5, 104.0, -104.0, 300.0, -300.0, 1e-40, -1e-40, 20.0, -20.0],
                        dtype=np.float32)
    pos = rng.choice(n, size=min(n, 4 * specials.size), replace=False)
    flat[pos] = np.resize(specials, pos.size)
    wide = rng.choice(n, size=n // 8, replace=False)
    flat[wide] *= 16
    if dtype == "bf16":
        bits = ref.f32_to_bf16_bits(x)
        return bits, ref.bf16_bits_to_f32(bits)
    if dtype == "f16":
        with np.errstate(over="ignore"):
            h = x.astype(np.float16)
        return h, h.astype(np.float32)
    return x, x


def _swiglu_f64(v, sigmoid_scale, limit, up_offset):
    """The activation in float64 from the spec's own fp32 inputs to the
    sigmoid and the product (fl(sigmoid_scale * g), fl(u + up_offset): the
    steps 2.10 defines as rounded), so that the bar measures the e^x,
    sigmoid and product chain, not the conditioning of those inputs."""
    f = np.float32
    g, u = v[..., 0::2].copy(), v[..., 1::2].copy()
    if limit is not None:
        g = np.where(g > f(limit), f(limit), g)
        u = np.where(u > f(limit), f(limit), np.where(u < -f(limit), -f(limit), u))
    with np.errstate(over="ignore", invalid="ignore"):
        s = (g if sigmoid_scale == 1.0 else f(sigmoid_scale) * g).astype(np.float64)
        u = (u if up_offset == 0.0 else u + f(up_offset)).astype(np.float64)
        return g.astype(np.float64) / (1 + np.exp(-s)) * u


def check_activation(target, size):
    """nvfp4.swiglu (docs/spec.md 2.10): bit for bit against
    python/nvfp4/reference.py (the spec's fixed fp32 sequence), and within
    4 fp32 ulps (before the output rounding) of the float64 activation."""
    rep = Report("activation")
    shapes = [(37, 64), (3, 5, 22), (4098,)] + ([(256, 5760)] if size == "full" else [])
    params = [dict(), dict(limit=7.0), dict(sigmoid_scale=1.702, limit=7.0, up_offset=1.0)]
    for i, shape in enumerate(shapes):
        for j, kw in enumerate(params):
            dtype = ["bf16", "f16", "f32"][(i + j) % 3]
            out = ["f32", dtype][j % 2]
            x, v = swiglu_data(shape, 100 * i + j, dtype)
            got = compiler.swiglu(x, out_dtype=out, target=target, **kw)
            want = ref.swiglu(x, out_dtype=out, **kw)
            if out == "bf16":
                want = ref.f32_to_bf16_bits(want)
            elif out == "f16":
                want = want.astype(np.float16)
            name = f"{shape} {dtype} -> {out} {kw or 'swiglu'}"
            # NaN payloads are not part of the contract: compare NaN as NaN.
            gf, wf = np.asarray(got), np.asarray(want)
            nan_g, nan_w = np.isnan(ref.to_f32(gf)), np.isnan(ref.to_f32(wf))
            if not np.array_equal(nan_g, nan_w):
                rep.record(name, False, f"{int(np.count_nonzero(nan_g != nan_w))} NaN "
                           "positions differ")
                continue
            rep.exact(name, [("values", np.where(nan_g, 0, gf).astype(gf.dtype),
                              np.where(nan_w, 0, wf).astype(wf.dtype))])
            if out == "f32":
                # Accuracy of the fp32 sequence itself, where the result is a
                # normal fp32 value.
                y64 = _swiglu_f64(v, **{"sigmoid_scale": 1.0, "limit": None,
                                        "up_offset": 0.0, **kw})
                y = np.asarray(got, dtype=np.float64)
                ok = np.isfinite(y64) & (np.abs(y64) > 1e-30) & (np.abs(y64) < 1e38)
                ulp = np.abs(y[ok] - y64[ok]) / np.spacing(np.abs(y64[ok]).astype(np.float32))
                worst = float(ulp.max()) if ulp.size else 0.0
                rep.record(f"{name} accuracy", worst <= 4.0,
                           f"max {worst:.3g} fp32 ulp from the float64 activation "
                           f"({int(ok.sum())} values)")
    rep.summary()
    return rep


def _moe_data(rng, tokens, top_k, experts, width, dtype, w_dtype, layout):
    """Router indices (dropped pairs: -1, E and beyond; `layout` "one"
    routes every kept pair to one expert), weights with zeros, and token
    rows / expert rows as the compiler takes them."""
    if layout == "one":
        ids = np.full((tokens, top_k), min(3, experts - 1), dtype=np.int32)
    else:
        ids = rng.integers(0, experts, (tokens, top_k)).astype(np.int32)
    drop = rng.random((tokens, top_k)) < 0.1
    ids[drop] = rng.choice(np.array([-1, experts, experts + 7, -2 ** 31], dtype=np.int64),
                           int(drop.sum())).astype(np.int32)
    w = rng.uniform(-1, 1, (tokens, top_k)).astype(np.float32)
    w[rng.random((tokens, top_k)) < 0.1] = 0.0

    def values(shape, kind):
        v = (rng.standard_normal(shape) * 4).astype(np.float32)
        v[rng.random(shape) < 0.01] = 1e-40  # fp32 subnormals
        if kind == "bf16":
            return ref.f32_to_bf16_bits(v)
        return v.astype(np.float16) if kind == "f16" else v

    return ids, values((tokens, top_k), w_dtype) if w_dtype != "f32" else w, \
        values((tokens, width), dtype), values((tokens * top_k, width), dtype), drop


def check_moe(target, size):
    """The MoE routing ops (docs/spec.md 2.11) bit for bit against
    python/nvfp4/reference.py: moe_route's sort (dropped pairs of every
    kind, all pairs on one expert), moe_dispatch's rows (and zero rows for
    pair indices out of range), moe_combine's slot-order fp32 sums (NaN and
    infinity in the rows of dropped pairs and zero weights must not reach
    the output), and the combine within K fp32 roundings of float64."""
    rep = Report("moe")
    cases = [(1, 1, 1, 16, "f32", "f32", "random"), (37, 4, 6, 24, "bf16", "f32", "random"),
             (9, 3, 5, 20, "f16", "bf16", "random"), (13, 2, 4, 9, "f32", "f16", "one"),
             (300, 8, 128, 264, "bf16", "bf16", "random"), (64, 2, 257, 64, "bf16", "f32", "one")]
    if size == "full":
        cases += [(2048, 8, 128, 2048, "bf16", "bf16", "random"),
                  (4096, 8, 256, 136, "bf16", "f32", "random")]
    rng = np.random.default_rng(23)
    for i, (tokens, top_k, experts, width, dtype, w_dtype, layout) in enumerate(cases):
        name = f"T={tokens} K={top_k} E={experts} H={width} {dtype} w={w_dtype} {layout}"
        ids, w, x, y, drop = _moe_data(rng, tokens, top_k, experts, width, dtype, w_dtype,
                                       layout)
        pairs, rows, offsets = compiler.moe_route(ids, experts, target=target)
        want = ref.moe_route(ids, experts)
        rep.exact(f"route {name}", [("sorted_pairs", pairs, want[0]),
                                    ("pair_rows", rows, want[1]),
                                    ("group_offsets", offsets, want[2])])
        # An out-of-range pair index gives a row of zeros.
        bad = np.array(pairs, copy=True)
        bad[:: max(1, bad.size // 3)] = np.array([-1, bad.size, 2 ** 31 - 1])[i % 3]
        for label, table in (("", pairs), (" out-of-range pairs", bad)):
            got = compiler.moe_dispatch(x, table, target=target)
            rep.exact(f"dispatch {name}{label}", [("rows", got, ref.moe_dispatch(x, table))])
        # The rows no kept pair reads: NaN and infinities.
        unused = np.ones(y.shape[0], dtype=bool)
        kept = np.asarray(rows)[(np.asarray(rows) >= 0) & (ref.to_f32(w) != 0)]
        unused[kept] = False
        yf = ref.to_f32(y).copy()
        yf[unused] = np.resize(np.array([np.nan, np.inf, -np.inf], np.float32),
                               yf[unused].shape)
        y = (ref.f32_to_bf16_bits(yf) if dtype == "bf16" else yf.astype(y.dtype))
        # Each product rounded to the rows' type (torch's y * w) in the
        # second output type's case.
        for out, product in dict.fromkeys((("f32", None), (dtype, dtype))):
            got = compiler.moe_combine(y, rows, w, out_dtype=out, product_dtype=product,
                                       target=target)
            want = ref.moe_combine(y, rows, w, out, product)
            want = (ref.f32_to_bf16_bits(want) if out == "bf16" else
                    want.astype(np.float16) if out == "f16" else want)
            rep.exact(f"combine {name} -> {out}{' products ' + product if product else ''}",
                      [("out", got, want)])
        # Accuracy: the float64 sum within K roundings of fp32 (plus the
        # output's own rounding: f32 here).
        got = np.asarray(compiler.moe_combine(y, rows, w, out_dtype="f32", target=target),
                         dtype=np.float64)
        r = np.asarray(rows, dtype=np.int64)
        wf = ref.to_f32(w).astype(np.float64)
        keep = (r >= 0) & (wf != 0)
        terms = np.where(keep[..., None], wf[..., None] * ref.to_f32(y)[np.where(keep, r, 0)],
                         0.0)
        exact, mag = terms.sum(1), np.abs(terms).sum(1)
        ok = np.abs(got - exact) <= top_k * 2.0 ** -23 * mag + 1e-44
        rep.record(f"combine {name} accuracy", bool(ok.all()),
                   f"{int((~ok).sum())} of {ok.size} outside K * 2^-23 * sum|w y|")
    rep.summary()
    return rep


def check_matmul(target, size):
    rep = Report("matmul")
    rng = np.random.default_rng(7)
    shapes = [(128, 128, 128), (256, 64, 256), (1024, 1024, 1024), (4096, 512, 3072),
              (112, 128, 96), (304, 640, 304), (1008, 3072, 992), (128, 128, 112)]
    outs = ["bf16", "f32", "f16"]
    cases = [(shape, outs[i % 3], False) for i, shape in enumerate(shapes)]
    # Without outlier scales the numerics bar must hold with no allowance.
    cases += [((1024, 1024, 1024), "f32", True), ((1008, 3072, 992), "f16", True)]
    for (m, k, n), out, tame in cases:
        modest = tame or out == "f16"
        a_q, a_s = random_operand(m, k, "nvfp4", rng, modest=modest)
        b_q, b_s = random_operand(n, k, "nvfp4", rng, modest=modest)
        da, db = np.float32(rng.uniform(0.5, 2)), np.float32(rng.uniform(0.5, 2))
        got = compiler.matmul(a_q, a_s, b_q, b_s, a_decode=da, b_decode=db, out_dtype=out, target=target)
        alpha = ref.alpha_eff(da, db)
        kw = dict(a_rows=m, b_rows=n, swizzled=True)
        want = ref.matmul_reference(a_q, a_s, b_q, b_s, alpha=alpha, **kw)
        bound = None if tame else summation_bound(a_q, a_s, b_q, b_s, k, alpha=alpha, **kw)
        rep.close(f"nvfp4 M={m} K={k} N={n} -> {out}{' (no outliers, bar only)' if tame else ''}",
                  got, want, out, bound)
    # MXFP4 (on sm_90a the kernel's bf16 MMA, bf16-mma by default; the full
    # size has gpt-oss's K = 2880: a last stage of 64), accumulate, alpha.
    for (m, k, n), out in [((200, 256, 136), "f32")] + (
            [((256, 2880, 200), "bf16")] if size == "full" else []):
        kw = dict(a_rows=m, b_rows=n, swizzled=True)
        a_q, a_s = random_operand(m, k, "mxfp4", rng)
        b_q, b_s = random_operand(n, k, "mxfp4", rng)
        got = compiler.matmul(a_q, a_s, b_q, b_s, fmt="mxfp4", out_dtype=out, target=target)
        want = ref.matmul_reference(a_q, a_s, b_q, b_s, fmt="mxfp4", **kw)
        rep.close(f"mxfp4 M={m} K={k} N={n} -> {out}", got, want, out,
                  summation_bound(a_q, a_s, b_q, b_s, k, fmt="mxfp4", **kw))
    a_q, a_s = random_operand(m, k, "nvfp4", rng)
    b_q, b_s = random_operand(n, k, "nvfp4", rng)
    acc = rng.standard_normal((m, n)).astype(np.float32) * 100
    got = compiler.matmul(a_q, a_s, b_q, b_s, alpha=0.75, acc=acc, beta=-0.5, out_dtype="f32",
                          target=target)
    want = ref.matmul_reference(a_q, a_s, b_q, b_s, alpha=0.75, beta=-0.5, c_in=acc, **kw)
    rep.close(f"nvfp4 M={m} K={k} N={n} alpha=0.75 acc beta=-0.5 -> f32", got, want, "f32",
              summation_bound(a_q, a_s, b_q, b_s, k, alpha=0.75, **kw))
    # Row-scaled operands: alpha_eff[m, n] = fl(fl(da[m] * db[n]) * alpha),
    # with M and N off the tiles and each output type.
    for (m, k, n), out, rows_a, rows_b, extra in [
            ((200, 256, 136), "f32", True, False, {}),
            ((112, 128, 96), "bf16", False, True, {}),
            ((304, 640, 304), "f16", True, True, {}),
            ((200, 256, 136), "f32", True, True, dict(alpha=0.75, beta=-0.5, acc=True))]:
        kw = dict(a_rows=m, b_rows=n, swizzled=True)
        a_q, a_s = random_operand(m, k, "nvfp4", rng, modest=out == "f16")
        b_q, b_s = random_operand(n, k, "nvfp4", rng, modest=out == "f16")
        da = (rng.uniform(0.25, 4, m).astype(np.float32) if rows_a
              else np.float32(rng.uniform(0.5, 2)))
        db = (rng.uniform(0.25, 4, n).astype(np.float32) if rows_b
              else np.float32(rng.uniform(0.5, 2)))
        acc = rng.standard_normal((m, n)).astype(np.float32) * 100 if extra.get("acc") else None
        got = compiler.matmul(a_q, a_s, b_q, b_s, a_decode=da, b_decode=db,
                              alpha=extra.get("alpha"), acc=acc, beta=extra.get("beta"),
                              out_dtype=out, target=target)
        alpha = ref.alpha_eff(da, db, extra.get("alpha"))
        want = ref.matmul_reference(a_q, a_s, b_q, b_s, alpha=alpha, beta=extra.get("beta", 0.0),
                                    c_in=acc, **kw)
        rep.close(f"nvfp4 M={m} K={k} N={n} row-scaled {'A' if rows_a else ''}"
                  f"{'B' if rows_b else ''}{' alpha acc beta' if acc is not None else ''} -> {out}",
                  got, want, out, summation_bound(a_q, a_s, b_q, b_s, k, alpha=alpha, **kw))
    rep.summary()
    return rep


def _grouped_operands(ms, n, k, fmt, rng, modest=False):
    A = [random_operand(m, k, fmt, rng, modest=modest) for m in ms]
    B = [random_operand(n, k, fmt, rng, modest=modest) for _ in ms]
    return A, B


def _flat(arrays):
    return np.concatenate([np.asarray(a).reshape(-1) for a in arrays])


def check_grouped(target, size):
    rep = Report("grouped")
    rng = np.random.default_rng(8)
    cases = [(name, ms, n, k, False) for name, ms, n, k in GPU_MODE_CASES]
    # The first GPU-mode case again without outlier scales: bar only.
    cases.append(("gpumode1", GPU_MODE_CASES[0][1], GPU_MODE_CASES[0][2], GPU_MODE_CASES[0][3],
                  True))
    for name, ms, n, k, tame in cases:
        G = len(ms)
        A, B = _grouped_operands(ms, n, k, "nvfp4", rng, modest=tame)
        da = rng.uniform(0.5, 2, G).astype(np.float32)
        db = rng.uniform(0.5, 2, G).astype(np.float32)
        alphas = [ref.alpha_eff(da[g], db[g]) for g in range(G)]
        label = f"{name} M={ms} N={n} K={k}" + (" (no outliers, bar only)" if tame else "")
        bounds = None if tame else [
            summation_bound(a[0], a[1], b[0], b[1], k, alpha=alphas[g], a_rows=m, b_rows=n,
                            swizzled=True)
            for g, (a, b, m) in enumerate(zip(A, B, ms))]
        # independent (GPU-mode list of problems)
        got = compiler.grouped_matmul("independent", [a[0] for a in A], [a[1] for a in A],
                                      [b[0] for b in B], [b[1] for b in B], a_decode=da,
                                      b_decode=db, out_dtype="bf16", target=target)
        wants = ref.grouped_matmul_independent(
            [(a[0], a[1], b[0], b[1], alphas[g]) for g, (a, b) in enumerate(zip(A, B))],
            swizzled=True)
        rep.close(f"independent {label} -> bf16", _flat(got), _flat(wants), "bf16",
                  None if tame else _flat(bounds))
        if tame:
            continue
        # contiguous (MoE): the same rows concatenated, B stacked.
        offsets = np.concatenate([[0], np.cumsum(ms)]).astype(np.int32)
        a_cat = np.concatenate([a[0] for a in A])
        a_rm = np.concatenate([ref.unswizzle_scales(a[1], m, k // 16) for a, m in zip(A, ms)])
        b_stack = np.stack([b[0] for b in B])
        b_s = np.stack([b[1] for b in B])
        got = compiler.grouped_matmul("contiguous", a_cat, ref.swizzle_scales(a_rm), b_stack, b_s,
                                      group_offsets=offsets, b_decode=db, alpha=da, out_dtype="f32",
                                      target=target)
        want = ref.grouped_matmul_contiguous(a_cat, ref.swizzle_scales(a_rm), b_stack, b_s, offsets,
                                             da * db, swizzled=True)
        rep.close(f"contiguous {label} -> f32", got, want, "f32", _flat(bounds).reshape(want.shape))
        if name in ("gpumode1", "gpumode3"):
            # masked: [G, maxM, K], valid rows per group; the rows past them
            # hold data that must be ignored, and get beta * acc.
            max_m = max(ms) + 8
            a_pad = np.zeros((G, max_m, k // 2), np.uint8)
            a_s_rm = np.zeros((G, max_m, k // 16), np.uint8)
            bound = np.zeros((G, max_m, n))
            for g, (a, m) in enumerate(zip(A, ms)):
                a_pad[g, :m] = a[0]
                a_s_rm[g, :m] = ref.unswizzle_scales(a[1], m, k // 16)
                a_pad[g, m:] = rng.integers(0, 256, size=(max_m - m, k // 2), dtype=np.uint8)
                a_s_rm[g, m:] = 0x38
                bound[g, :m] = bounds[g]
            a_s_sw = ref.swizzle_scales(a_s_rm)
            masked = np.asarray(ms, np.int32)
            acc = rng.standard_normal((G, max_m, n)).astype(np.float32)
            got = compiler.grouped_matmul("masked", a_pad, a_s_sw, b_stack, b_s, masked_m=masked,
                                          a_decode=da, b_decode=db, acc=acc, beta=0.5, out_dtype="f32",
                                          target=target)
            want = ref.grouped_matmul_masked(a_pad, a_s_sw, b_stack, b_s, masked, da * db,
                                             beta=0.5, c_in=acc, swizzled=True)
            want = np.where(np.isnan(want), 0.5 * acc.astype(np.float64), want)
            rep.close(f"masked {label} maxM={max_m} acc beta=0.5 -> f32", got, want, "f32", bound)
    # MXFP4 grouped, f16 output.
    ms, n, k = [48, 200, 16], 96, 256
    A, B = _grouped_operands(ms, n, k, "mxfp4", rng, modest=True)
    got = compiler.grouped_matmul("independent", [a[0] for a in A], [a[1] for a in A],
                                  [b[0] for b in B], [b[1] for b in B], fmt="mxfp4", out_dtype="f16",
                                  target=target)
    wants = ref.grouped_matmul_independent([(a[0], a[1], b[0], b[1], 1.0) for a, b in zip(A, B)],
                                           fmt="mxfp4", swizzled=True)
    rep.close("independent mxfp4 M=[48,200,16] N=96 K=256 -> f16 (bar only)", _flat(got),
              _flat(wants), "f16")
    rep.summary()
    return rep


def check_weight_only(target, size):
    """W4A16 (docs/spec.md 2.7, M9/G9): bf16/f16 activations taken as they
    are against NVFP4/MXFP4 weights, dense (decode and prefill sizes, M and
    N off the tiles) and grouped in every mode, against the fp64 product."""
    rep = Report("weight_only")
    rng = np.random.default_rng(9)
    seed = iter(range(900, 1000))

    def activations(shape, dtype, modest):
        x, _ = high_precision(shape, next(seed), dtype, kind="gaussian" if modest else "mixed")
        return x

    cases = [(1, 256, 512, "bf16", "nvfp4", "bf16"), (16, 512, 256, "bf16", "nvfp4", "bf16"),
             (64, 1024, 384, "bf16", "nvfp4", "f32"), (200, 256, 136, "f16", "nvfp4", "f16"),
             (128, 2048, 256, "bf16", "nvfp4", "bf16"), (37, 256, 96, "bf16", "mxfp4", "bf16"),
             (8, 512, 128, "f16", "mxfp4", "f32")]
    if size == "full":
        cases += [(1, 4096, 4096, "bf16", "nvfp4", "bf16"), (256, 4096, 1024, "bf16", "nvfp4",
                                                               "bf16"),
                  (16, 4096, 4096, "f16", "nvfp4", "bf16"),
                  # gpt-oss's experts' shapes (K = 2880: a last stage of 64)
                  (1, 2880, 5760, "bf16", "mxfp4", "bf16"),
                  (64, 2880, 200, "bf16", "mxfp4", "f32")]
    for m, k, n, act, fmt, out in cases:
        modest = out == "f16" or act == "f16"
        x = activations((m, k), act, modest)
        b_q, b_s = random_operand(n, k, fmt, rng, modest=modest)
        db = np.float32(rng.uniform(0.5, 2)) if fmt == "nvfp4" else None
        got = compiler.matmul(x, None, b_q, b_s, fmt=fmt, b_decode=db, out_dtype=out,
                              target=target)
        alpha = ref.alpha_eff(None, db)
        kw = dict(fmt=fmt, b_rows=n, swizzled=True)
        want = ref.matmul_reference(x, None, b_q, b_s, alpha=alpha, **kw)
        rep.close(f"{fmt} weights, {act} activations M={m} K={k} N={n} -> {out}", got, want,
                  out, summation_bound(x, None, b_q, b_s, k, alpha=alpha, **kw))
    # alpha, accumulate, beta; the linear() form (no quantize in the program).
    m, k, n = 48, 512, 200
    x = activations((m, k), "bf16", False)
    b_q, b_s = random_operand(n, k, "nvfp4", rng)
    acc = rng.standard_normal((m, n)).astype(np.float32) * 100
    got = compiler.matmul(x, None, b_q, b_s, b_decode=0.5, alpha=0.75, acc=acc, beta=-0.5,
                          out_dtype="f32", target=target)
    kw = dict(b_rows=n, swizzled=True)
    alpha = ref.alpha_eff(None, 0.5, 0.75)
    want = ref.matmul_reference(x, None, b_q, b_s, alpha=alpha, beta=-0.5, c_in=acc, **kw)
    rep.close(f"nvfp4 bf16 M={m} K={k} N={n} alpha acc beta -> f32", got, want, "f32",
              summation_bound(x, None, b_q, b_s, k, alpha=alpha, **kw))
    b_rm = ref.unswizzle_scales(b_s, n, k // 16)
    got = compiler.linear(x, b_q, b_rm, np.float32(0.5), weight_only=True, target=target)
    want = ref.matmul_reference(x, None, b_q, b_s, alpha=np.float32(0.5), **kw)
    rep.close(f"linear(weight_only) bf16 M={m} K={k} N={n} row-major weight scales -> bf16",
              got, want, "bf16", summation_bound(x, None, b_q, b_s, k, alpha=0.5, **kw))
    # Grouped: independent, contiguous (MoE, with an empty expert), masked.
    ms, n, k = [5, 0, 33, 130], 96, 512
    G = len(ms)
    X = [activations((mg, k), "bf16", False) for mg in ms]
    B = [random_operand(n, k, "nvfp4", rng) for _ in ms]
    db = rng.uniform(0.5, 2, G).astype(np.float32)
    bounds = [summation_bound(x, None, b[0], b[1], k, alpha=db[g], b_rows=n, swizzled=True)
              for g, (x, b) in enumerate(zip(X, B))]
    got = compiler.grouped_matmul("independent", X, None, [b[0] for b in B], [b[1] for b in B],
                                  b_decode=db, out_dtype="bf16", target=target)
    wants = [ref.matmul_reference(x, None, b[0], b[1], alpha=db[g], b_rows=n, swizzled=True)
             for g, (x, b) in enumerate(zip(X, B))]
    rep.close(f"independent M={ms} N={n} K={k} bf16 -> bf16", _flat(got), _flat(wants), "bf16",
              _flat(bounds))
    offsets = np.concatenate([[0], np.cumsum(ms)]).astype(np.int32)
    x_cat = np.concatenate(X)
    b_stack, b_s = np.stack([b[0] for b in B]), np.stack([b[1] for b in B])
    got = compiler.grouped_matmul("contiguous", x_cat, None, b_stack, b_s, group_offsets=offsets,
                                  b_decode=db, out_dtype="f32", target=target)
    want = ref.grouped_matmul_contiguous(x_cat, None, b_stack, b_s, offsets, db, swizzled=True)
    rep.close(f"contiguous M={ms} N={n} K={k} bf16 -> f32", got, want, "f32",
              np.concatenate(bounds))
    got = compiler.grouped_linear(x_cat, b_stack, b_s, db, offsets, weight_only=True,
                                  target=target)
    rep.close(f"grouped_linear(weight_only) M={ms} N={n} K={k} -> bf16", got, want, "bf16",
              np.concatenate(bounds))
    # MXFP4 experts on bf16 activations (gpt-oss; on sm_90a the kernel's
    # bf16 MMA, bf16-mma by default): K of 64 past the last 128.
    kx, nx = 320, 136
    Xm = [activations((mg, kx), "bf16", False) for mg in ms]
    Bm = [random_operand(nx, kx, "mxfp4", rng) for _ in ms]
    bm_stack, bm_s = np.stack([b[0] for b in Bm]), np.stack([b[1] for b in Bm])
    xm_cat = np.concatenate(Xm)
    got = compiler.grouped_matmul("contiguous", xm_cat, None, bm_stack, bm_s, fmt="mxfp4",
                                  group_offsets=offsets, out_dtype="f32", target=target)
    want = ref.grouped_matmul_contiguous(xm_cat, None, bm_stack, bm_s, offsets,
                                         np.ones(G, np.float32), fmt="mxfp4", swizzled=True)
    rep.close(f"contiguous mxfp4 M={ms} N={nx} K={kx} bf16 -> f32", got, want, "f32",
              np.concatenate([summation_bound(x, None, b[0], b[1], kx, fmt="mxfp4", b_rows=nx,
                                              swizzled=True) for x, b in zip(Xm, Bm)]))
    # f16 activations (the sm_90a kernel takes these: exact in its f16 MMA).
    x16 = np.concatenate([activations((mg, k), "f16", True) for mg in ms])
    B16 = [random_operand(n, k, "nvfp4", rng, modest=True) for _ in ms]
    b16, s16 = np.stack([b[0] for b in B16]), np.stack([b[1] for b in B16])
    got = compiler.grouped_matmul("contiguous", x16, None, b16, s16, group_offsets=offsets,
                                  b_decode=db, out_dtype="f32", target=target)
    want = ref.grouped_matmul_contiguous(x16, None, b16, s16, offsets, db, swizzled=True)
    bound16 = np.concatenate([
        summation_bound(x16[offsets[g]:offsets[g + 1]], None, B16[g][0], B16[g][1], k,
                        alpha=db[g], b_rows=n, swizzled=True) for g in range(G)])
    rep.close(f"contiguous M={ms} N={n} K={k} f16 -> f32", got, want, "f32", bound16)
    max_m = max(ms) + 6
    x_pad = np.zeros((G, max_m, k), np.uint16)
    bound = np.zeros((G, max_m, n))
    for g, (x, mg) in enumerate(zip(X, ms)):
        x_pad[g, :mg] = x
        x_pad[g, mg:] = activations((max_m - mg, k), "bf16", False) if max_m > mg else 0
        bound[g, :mg] = bounds[g]
    masked = np.asarray(ms, np.int32)
    acc = rng.standard_normal((G, max_m, n)).astype(np.float32)
    got = compiler.grouped_matmul("masked", x_pad, None, b_stack, b_s, masked_m=masked,
                                  b_decode=db, acc=acc, beta=0.5, out_dtype="f32", target=target)
    want = ref.grouped_matmul_masked(x_pad, None, b_stack, b_s, masked, db, beta=0.5, c_in=acc,
                                     swizzled=True)
    want = np.where(np.isnan(want), 0.5 * acc.astype(np.float64), want)
    rep.close(f"masked M={ms} maxM={max_m} N={n} K={k} acc beta=0.5 -> f32", got, want, "f32",
              bound)
    rep.summary()
    return rep


class PipelineOptions:
    """Programs compiled under NVFP4_PIPELINE_OPTIONS=`options` (the sm_90a
    kernel's schedule and token source; "default" or "" for none): the
    compiler keys its programs by the variable, so each op compiles under
    these options."""

    def __init__(self, options):
        self.options = "" if options == "default" else options

    def __enter__(self):
        import os
        self.saved = os.environ.get("NVFP4_PIPELINE_OPTIONS")
        os.environ["NVFP4_PIPELINE_OPTIONS"] = self.options

    def __exit__(self, *exc):
        import os
        if self.saved is None:
            os.environ.pop("NVFP4_PIPELINE_OPTIONS", None)
        else:
            os.environ["NVFP4_PIPELINE_OPTIONS"] = self.saved


# The decode kernel's configurations (convert-nvfp4-to-sm90 options): the
# default (in-kernel FP4 tokens, stream-K for token tiles of at most 64,
# K split between two consumer pairs on data-parallel narrow tiles), each
# choice forced the other way, and stream-K grids so small that every tile
# is split over many CTAs, or so large that CTAs get nothing.
#: The decode selfcheck's sm_90a configurations. Data-parallel decode tiles
#: of at most 16 tokens on one CTA per SM split their K stages between two
#: consumer pairs: with 3 stages at the smallest ring the split takes, with
#: 2 unsplit (a split ring of 2 hung). Clusters of 2 and 4 CTAs split each
#: dense tile's K stages and sum through distributed shared memory (the
#: grouped cases keep the default schedule).
# The default (dense layers of at most 16 tokens on the narrow-token
# kernel: gemv=auto), that kernel forced on every dense case (gemv=on),
# with an uneven K split over 3 warps and with one warp (no hand-over), and
# with f16 tokens from the pre-pass where it reads FP4 tokens itself (9-16
# tokens), without a CTAs-per-SM bound and with each warp's whole K range
# prefetched; then the wgmma kernel's decode paths (gemv=off).
DECODE_CONFIGS = ["", "gemv=on", "gemv=on gemv-warps=3", "gemv=on gemv-warps=1",
                  "gemv=on tokens=prepass",
                  "gemv=on gemv-ctas-per-sm=-1 gemv-prefetch=64",
                  "gemv=off", "gemv=off k-split=1", "gemv=off schedule=stream-k",
                  "gemv=off schedule=data-parallel", "gemv=off tokens=prepass",
                  "gemv=off ctas=7 schedule=stream-k",
                  "gemv=off ctas=1000 stages=2 schedule=stream-k",
                  "gemv=off schedule=data-parallel stages=3",
                  "gemv=off schedule=data-parallel stages=2",
                  "gemv=off cluster=2", "gemv=off cluster=4"]


def check_decode(target, size):
    """Small-M (decode) matmuls: dense M = 1..64, MoE experts with a few
    tokens each (contiguous, with empty groups and a group wider than a
    token tile), masked slots; under each DECODE_CONFIGS entry, and the
    default twice (stream-K results must not change between runs)."""
    rep = Report("decode")
    rng = np.random.default_rng(10)
    big = size == "full"
    dense = [((1, 4096, 4096) if big else (1, 512, 384), "bf16"),
             ((5, 4064, 200) if big else (5, 480, 200), "f32"),
             ((16, 14336, 512) if big else (16, 2048, 256), "f16"),
             ((33, 1024, 7168) if big else (33, 256, 640), "bf16"),
             ((64, 4096, 1024) if big else (64, 512, 256), "f32"),
             ((64, 128, 136), "bf16")]
    configs = DECODE_CONFIGS if target != "cpu" else [""]
    for config in configs:
        with PipelineOptions(config):
            tag = f"[{config or 'default'}]"
            for (m, k, n), out in dense:
                modest = out == "f16"
                a_q, a_s = random_operand(m, k, "nvfp4", rng, modest=modest)
                b_q, b_s = random_operand(n, k, "nvfp4", rng, modest=modest)
                da, db = np.float32(rng.uniform(0.5, 2)), np.float32(rng.uniform(0.5, 2))
                got = compiler.matmul(a_q, a_s, b_q, b_s, a_decode=da, b_decode=db,
                                      out_dtype=out, target=target)
                alpha = ref.alpha_eff(da, db)
                kw = dict(a_rows=m, b_rows=n, swizzled=True)
                want = ref.matmul_reference(a_q, a_s, b_q, b_s, alpha=alpha, **kw)
                rep.close(f"{tag} nvfp4 M={m} K={k} N={n} -> {out}", got, want, out,
                          summation_bound(a_q, a_s, b_q, b_s, k, alpha=alpha, **kw))
                if (config in ("", "gemv=on") or "cluster" in config) and m == 16:
                    again = compiler.matmul(a_q, a_s, b_q, b_s, a_decode=da, b_decode=db,
                                            out_dtype=out, target=target)
                    rep.exact(f"{tag} M={m} K={k} N={n} the same bits twice",
                              [("C", np.asarray(again), np.asarray(got))])
                if "stream-k" in config and m == 1:
                    # The program again on new operands: its arrival flags
                    # are the ones the first call's last CTAs set back to 0
                    # (kept zero: the runtime does not zero them again).
                    a_q, a_s = random_operand(m, k, "nvfp4", rng)
                    b_q, b_s = random_operand(n, k, "nvfp4", rng)
                    got = compiler.matmul(a_q, a_s, b_q, b_s, a_decode=da, b_decode=db,
                                          out_dtype=out, target=target)
                    want = ref.matmul_reference(a_q, a_s, b_q, b_s, alpha=alpha, **kw)
                    rep.close(f"{tag} nvfp4 M={m} K={k} N={n} -> {out}, the program again",
                              got, want, out,
                              summation_bound(a_q, a_s, b_q, b_s, k, alpha=alpha, **kw))
            # Row-scaled A and B, alpha, accumulate.
            m, k, n = (8, 1536, 392) if big else (8, 384, 136)
            kw = dict(a_rows=m, b_rows=n, swizzled=True)
            a_q, a_s = random_operand(m, k, "nvfp4", rng)
            b_q, b_s = random_operand(n, k, "nvfp4", rng)
            da = rng.uniform(0.25, 4, m).astype(np.float32)
            db = rng.uniform(0.25, 4, n).astype(np.float32)
            acc = rng.standard_normal((m, n)).astype(np.float32) * 100
            got = compiler.matmul(a_q, a_s, b_q, b_s, a_decode=da, b_decode=db, alpha=0.75,
                                  acc=acc, beta=-0.5, out_dtype="f32", target=target)
            alpha = ref.alpha_eff(da, db, 0.75)
            want = ref.matmul_reference(a_q, a_s, b_q, b_s, alpha=alpha, beta=-0.5, c_in=acc, **kw)
            rep.close(f"{tag} nvfp4 M={m} K={k} N={n} row-scaled AB alpha acc beta -> f32", got,
                      want, "f32", summation_bound(a_q, a_s, b_q, b_s, k, alpha=alpha, **kw))
            # MoE decode: E experts, a few tokens each (some none, one more
            # than a token tile), tokens sorted by expert.
            E, n, k = (128, 256, 1024) if big else (32, 136, 256)
            ms = rng.integers(0, 9, E)
            ms[rng.integers(0, E, E // 8)] = 0
            ms[3] = 70
            offsets = np.concatenate([[0], np.cumsum(ms)]).astype(np.int32)
            S = int(offsets[-1])
            a_q, a_s = random_operand(S, k, "nvfp4", rng)
            B = [random_operand(n, k, "nvfp4", rng) for _ in range(E)]
            b_stack, b_sw = np.stack([b[0] for b in B]), np.stack([b[1] for b in B])
            db = rng.uniform(0.5, 2, E).astype(np.float32)
            da = np.float32(rng.uniform(0.5, 2))
            got = compiler.grouped_matmul("contiguous", a_q, a_s, b_stack, b_sw,
                                          group_offsets=offsets, a_decode=da, b_decode=db,
                                          out_dtype="bf16", target=target)
            alphas = np.array([ref.alpha_eff(da, d) for d in db])
            want = ref.grouped_matmul_contiguous(a_q, a_s, b_stack, b_sw, offsets, alphas,
                                                 swizzled=True)
            a_rm = ref.unswizzle_scales(a_s, S, k // 16)
            bound = np.concatenate([
                summation_bound(a_q[lo:hi], ref.swizzle_scales(a_rm[lo:hi]), B[g][0], B[g][1],
                                k, alpha=alphas[g], a_rows=hi - lo, b_rows=n, swizzled=True)
                for g, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])) if hi > lo])
            rep.close(f"{tag} contiguous E={E} S={S} N={n} K={k} -> bf16", got, want, "bf16",
                      bound)
            # Masked slots of at most 8 tokens.
            G, max_m, n, k = 4, 8, 384, (1024 if big else 256)
            masked = np.array([3, 0, 8, 5], np.int32)
            a_pad = rng.integers(0, 256, size=(G, max_m, k // 2), dtype=np.uint8)
            a_s_rm = np.stack([ref.unswizzle_scales(random_operand(max_m, k, "nvfp4", rng)[1],
                                                    max_m, k // 16) for _ in range(G)])
            a_s_sw = ref.swizzle_scales(a_s_rm)
            B = [random_operand(n, k, "nvfp4", rng) for _ in range(G)]
            b_stack, b_sw = np.stack([b[0] for b in B]), np.stack([b[1] for b in B])
            got = compiler.grouped_matmul("masked", a_pad, a_s_sw, b_stack, b_sw, masked_m=masked,
                                          out_dtype="f32", target=target)
            want = ref.grouped_matmul_masked(a_pad, a_s_sw, b_stack, b_sw, masked,
                                             np.ones(G), swizzled=True)
            want = np.where(np.isnan(want), 0.0, want)
            rep.close(f"{tag} masked G={G} maxM={max_m} masked_m={masked.tolist()} N={n} K={k} "
                      "-> f32", got, want, "f32")
    rep.summary()
    return rep


def check_fused(target, size):
    """Activation quantize + matmul as one program (compiler.linear /
    grouped_linear, and a masked program), which the sm_90a pipeline fuses:
    the GEMM quantizes its tokens itself. The output must be bit for bit
    that of the quantize and the matmul run as two programs (the same
    kernel schedule consumes the same values), and within the numerics bar
    of the fp64 product of the quantized operands. Wider token tiles (more
    than 16 tokens per group) take the quantize into the f16 pre-pass by
    default. And the GEMM epilogue's fusions: the swiglu of the matmul's
    output (nvfp4-fuse-matmul-epilogue) against the matmul and swiglu
    programs, and the bias against the product to f32 plus the bias in
    fp32, bit for bit."""
    rep = Report("fused")
    # The pipeline's own choice (the pre-pass quantizing: for the
    # narrow-token kernel of dense layers of at most 16 tokens, and for
    # wider token tiles), the GEMM quantizing its tokens itself
    # (tokens=in-kernel), and without the narrow-token kernel (gemv=off:
    # at decode sizes the two ops unfused, the GEMM on FP4 tokens).
    for config in (["", "tokens=in-kernel", "gemv=off"] if target != "cpu" else [""]):
        with PipelineOptions(config):
            _check_fused_cases(rep, target, size, f"[{config or 'default'}] ")
    # The output quantize in the GEMM's epilogue (by default its own kernel).
    if target != "cpu":
        config = "quantize-in-epilogue=1"
        with PipelineOptions(config):
            rng = np.random.default_rng(12)
            k = 4000 if size == "full" else 480
            _check_output_quantize(
                rep, target, f"[{config}] ", rng, k,
                lambda m, dtype: high_precision((m, k), int(rng.integers(1 << 30)), dtype)[0])
    rep.summary()
    return rep


def _check_fused_cases(rep, target, size, tag):
    rng = np.random.default_rng(11)
    big = size == "full"
    n, k = (392, 4000) if big else (136, 480)
    w = rng.standard_normal((n, k)).astype(np.float32)
    wq, ws, wd = compiler.quantize(w, block="16x16", target=target)
    def activations(m, dtype):
        return high_precision((m, k), int(rng.integers(1 << 30)), dtype)[0]

    cases = [(1, "bf16", {}), (5, "f16", {}), (16, "f32", {}),
             (3, "bf16", dict(decode_scale=np.float32(0.0125))),
             (8, "bf16", dict(encode_scale=np.float32(37.5))),
             (4, "f32", dict(amax=np.float32(9.0))),
             (7, "bf16", dict(rounding="stochastic", seed=1234)),
             (6, "bf16", dict(hadamard=True)),
             (9, "f16", dict(scale_rule="four_over_six", error_metric="mse")),
             (12, "bf16", dict(decode_scale=np.float32(0.003), rounding="stochastic", seed=7,
                               hadamard=True)),
             # A scale known before the launch, one token tile, each input
             # type: the narrow-token kernel's pre-pass quantizes with it.
             (1, "bf16", dict(decode_scale=np.float32(0.0125), rounding="stochastic", seed=5,
                              hadamard=True)),
             (2, "f32", dict(encode_scale=np.float32(20.0))),
             (5, "f16", dict(decode_scale=np.float32(0.02), hadamard=True)),
             # Wider than a decode tile: the pre-pass quantizes by default.
             (40, "bf16", {}), (64, "f16", dict(decode_scale=np.float32(0.0125))),
             (33, "bf16", dict(rounding="stochastic", seed=99, hadamard=True)),
             (130, "f32", dict(scale_rule="four_over_six", error_metric="mse"))]
    for m, dtype, opts in cases:
        x = activations(m, dtype)
        out = "f32"
        label = f"{tag}M={m} N={n} K={k} {dtype} {opts or 'amax computed'}"
        got = compiler.linear(x, wq, ws, wd, input_options=opts, out_dtype=out, target=target)
        q, sc, d = compiler.quantize(x, target=target, **opts)
        unfused = compiler.matmul(q, sc, wq, ws, a_decode=d, b_decode=wd, out_dtype=out,
                                  target=target)
        rep.exact(f"linear {label}: the unfused quantize + matmul's bits",
                  [("C", np.asarray(got), np.asarray(unfused))])
        alpha = ref.alpha_eff(d, wd)
        kw = dict(a_rows=m, b_rows=n, swizzled=True)
        want = ref.matmul_reference(q, sc, wq, ws, alpha=alpha, **kw)
        rep.close(f"linear {label} vs fp64", got, want, out,
                  summation_bound(q, sc, wq, ws, k, alpha=alpha, **kw))
    # MoE experts: tokens of many small groups (decode), and of a few wide
    # ones (a mean above 16: the pre-pass quantizes), quantized together.
    E, ne, ke = (64, 256, 1024) if big else (16, 136, 256)
    ms = rng.integers(0, 7, E)
    ms[2] = 0
    ms[5] = 21
    for ms in (ms, np.array([40, 0, 70, 25, 33, 48])):
        E = len(ms)
        offsets = np.concatenate([[0], np.cumsum(ms)]).astype(np.int32)
        x = high_precision((int(offsets[-1]), ke), 5, "bf16")[0]
        We = rng.standard_normal((E, ne, ke)).astype(np.float32)
        Wq, Ws, Wd = compiler.quantize(We, block="16x16", target=target)
        for opts in ({}, dict(decode_scale=np.float32(0.02))):
            got = compiler.grouped_linear(x, Wq, Ws, Wd, offsets, input_options=opts,
                                          out_dtype="bf16", target=target)
            q, sc, d = compiler.quantize(x, target=target, **opts)
            unfused = compiler.grouped_matmul("contiguous", q, sc, Wq, Ws,
                                              group_offsets=offsets, a_decode=d,
                                              b_decode=Wd, out_dtype="bf16", target=target)
            rep.exact(f"{tag}grouped_linear E={E} S={offsets[-1]} N={ne} K={ke} "
                      f"{opts or 'amax computed'}"
                      ": the unfused ops' bits", [("C", np.asarray(got), np.asarray(unfused))])
    # Masked slots: a 3-D quantize (one decode scale per slot) feeding the
    # masked grouped matmul, as a program; slots of 8 rows (decode) and of
    # 40 (the pre-pass quantizes).
    for max_m, masked in ((8, [5, 0, 8]), (40, [37, 0, 40])):
        _check_fused_masked(rep, target, tag, rng, max_m, np.array(masked, np.int32))
    _check_fused_swiglu(rep, target, tag, rng, n, k, wq, ws, wd, activations)
    _check_bias(rep, target, tag, rng, n, k, wq, ws, wd, activations)
    _check_output_quantize(rep, target, tag, rng, k, activations)
    for max_m, masked in ((8, [5, 0, 8]), (40, [37, 0, 40])):
        _check_fused_masked(rep, target, tag, rng, max_m, np.array(masked, np.int32), True)


# nvfp4.swiglu's parameter sets: the default SwiGLU, gpt-oss's, a clamp alone.
_GPT_OSS = dict(sigmoid_scale=1.702, limit=7.0, up_offset=1.0)


def _check_fused_swiglu(rep, target, tag, rng, n, k, wq, ws, wd, activations):
    """The matmul's epilogue computing nvfp4.swiglu (nvfp4.fused: on sm_90a
    the [M, N] product is never written) against the matmul and the
    swiglu run as two programs, bit for bit: the fused epilogue rounds to
    the intermediate type exactly as the unfused matmul's output."""
    # A decode scale that puts the products where the sigmoid is not flat.
    wd_small = np.float32(wd / 256)
    cases = [(1, "bf16", {}, "f32", "bf16", _GPT_OSS),
             (6, "bf16", dict(decode_scale=np.float32(0.0125)), "bf16", "bf16", {}),
             (16, "f16", {}, "f16", "f32", dict(limit=3.0)),
             (40, "bf16", {}, "bf16", "bf16", _GPT_OSS),
             (130, "f32", dict(decode_scale=np.float32(0.003)), "f32", "f16", {})]
    for m, dtype, opts, inter, out, params in cases:
        x = activations(m, dtype)
        label = (f"{tag}linear+swiglu M={m} N={n} K={k} {dtype} {opts or 'amax computed'} "
                 f"{params or 'swiglu'} via {inter} -> {out}")
        got = compiler.linear(x, wq, ws, wd_small, input_options=opts, out_dtype=out,
                              swiglu=params or True, intermediate_dtype=inter, target=target)
        q, sc, d = compiler.quantize(x, target=target, **opts)
        y = compiler.matmul(q, sc, wq, ws, a_decode=d, b_decode=wd_small, out_dtype=inter,
                            target=target)
        unfused = compiler.swiglu(y, out_dtype=out, target=target, **params)
        rep.exact(f"{label}: the unfused matmul + swiglu's bits",
                  [("H", np.asarray(got), np.asarray(unfused))])
    # MoE gate_up: the contiguous grouped matmul of tokens quantized
    # together, and its activation.
    E, ne, ke = 6, 136, 256
    offsets = np.array([0, 3, 3, 40, 41, 58, 70], np.int32)
    x = high_precision((int(offsets[-1]), ke), 17, "bf16")[0]
    We = (rng.standard_normal((E, ne, ke)) / 16).astype(np.float32)
    Wq, Ws, Wd = compiler.quantize(We, block="16x16", target=target)
    for opts, inter in (({}, "bf16"), (dict(decode_scale=np.float32(0.02)), "f32")):
        got = compiler.grouped_linear(x, Wq, Ws, Wd, offsets, input_options=opts,
                                      out_dtype="bf16", swiglu=_GPT_OSS,
                                      intermediate_dtype=inter, target=target)
        q, sc, d = compiler.quantize(x, target=target, **opts)
        y = compiler.grouped_matmul("contiguous", q, sc, Wq, Ws, group_offsets=offsets,
                                    a_decode=d, b_decode=Wd, out_dtype=inter, target=target)
        unfused = compiler.swiglu(y, out_dtype="bf16", target=target, **_GPT_OSS)
        rep.exact(f"{tag}grouped_linear+swiglu E={E} S={offsets[-1]} N={ne} K={ke} "
                  f"{opts or 'amax computed'} via {inter}: the unfused ops' bits",
                  [("H", np.asarray(got), np.asarray(unfused))])


def _check_output_quantize(rep, target, tag, rng, k, activations):
    """The NVFP4 quantize of a matmul's result (or of its swiglu's) with a
    given scale (nvfp4.fused, F6: on sm_90a the GEMM epilogue writes the
    codes and scales) against the matmul program and quantize() of its
    result, byte for byte: codes, scales (padding included: outputs are
    poisoned) and the decode scale. Results with all-zero blocks (zero
    weight rows) and outliers; given scales that put block scales in
    E4M3's normal range, among its subnormals and past 448 (saturated);
    13 scale columns (padding columns) and row counts that leave padding
    rows; encode and decode scales, swizzled and row-major scales."""
    n = 208
    w = (rng.standard_normal((2 * n, k)) / 8).astype(np.float32)
    w[16:32] = 0.0
    w[50] *= 1000.0
    wq, ws, wd = compiler.quantize(w[:n], block="16x16", target=target)
    wq2, ws2, wd2 = compiler.quantize(w, block="16x16", target=target)

    def check(label, got, y, scale_kind, scale, swizzle):
        want = compiler.quantize(y, target=target, swizzle=swizzle, **{scale_kind: scale})
        rep.exact(f"{tag}{label}: quantize() of the unfused result",
                  [(name, np.asarray(g), np.asarray(e))
                   for name, g, e in zip(("Q", "S", "D"), got, want)])

    cases = [(1, "bf16", "bf16", "encode_scale", 1.0, True, False, None),
             (40, "bf16", "bf16", "encode_scale", 1.0, True, False, None),
             (130, "f16", "f32", "decode_scale", 1.0, True, False, None),
             (200, "bf16", "bf16", "encode_scale", 1e-3, False, False, None),
             (64, "f32", "f16", "encode_scale", 300.0, True, False, "bf16"),
             (72, "bf16", "bf16", "decode_scale", 1.0, True, True, None),
             (150, "bf16", "bf16", "encode_scale", 1e-3, False, True, "f32")]
    for m, dtype, out, kind, factor, swizzle, swiglu, bias_dtype in cases:
        x = activations(m, dtype)
        width = 2 * n if swiglu else n
        weights = (wq2, ws2, wd2) if swiglu else (wq, ws, wd)
        kw = dict(out_dtype=out, target=target)
        if swiglu:
            kw.update(swiglu=_GPT_OSS, intermediate_dtype="f32")
        if bias_dtype:
            kw["bias"] = _as_dtype(_bias_values(rng, (width,), bias_dtype), bias_dtype)
        y = compiler.linear(x, *weights, **kw)
        # The scale from the result's amax (2688 / amax encodes it at the
        # top of the range), times `factor`.
        amax = float(np.max(np.abs(ref.to_f32(np.asarray(y)))))
        e = np.float32(2688.0 / amax * factor)
        scale = e if kind == "encode_scale" else np.float32(1.0 / e)
        got = compiler.linear(x, *weights, output_quantize={kind: scale, "swizzle": swizzle},
                              **kw)
        check(f"linear{'+swiglu' if swiglu else ''}{'+bias' if bias_dtype else ''}"
              f"+quantize M={m} N={width} K={k} {dtype} -> {out} {kind}x{factor} "
              f"{'swizzled' if swizzle else 'row-major'}", got, y, kind, scale, swizzle)
    # MoE gate_up + swiglu + quantize: the down projection's FP4 tokens.
    E, ke = 6, 256
    offsets = np.array([0, 3, 3, 40, 41, 58, 70], np.int32)
    x = high_precision((int(offsets[-1]), ke), 31, "bf16")[0]
    We = (rng.standard_normal((E, 2 * n, ke)) / 16).astype(np.float32)
    Wq, Ws, Wd = compiler.quantize(We, block="16x16", target=target)
    kw = dict(out_dtype="bf16", swiglu=_GPT_OSS, intermediate_dtype="bf16", target=target)
    h = compiler.grouped_linear(x, Wq, Ws, Wd, offsets, **kw)
    e = np.float32(2688.0 / float(np.max(np.abs(ref.to_f32(np.asarray(h))))))
    got = compiler.grouped_linear(x, Wq, Ws, Wd, offsets,
                                  output_quantize=dict(encode_scale=e), **kw)
    check(f"grouped_linear+swiglu+quantize E={E} S={offsets[-1]} N={2 * n} K={ke}", got, h,
          "encode_scale", e, True)


def _bias_values(rng, shape, dtype):
    """A bias in `dtype` (f32 values exact in it), with zeros and -0."""
    b = ref.round_to_dtype(rng.standard_normal(shape).astype(np.float32) * 4, dtype)
    b.reshape(-1)[::7] = 0.0
    b.reshape(-1)[3::11] = -0.0
    return b


def _as_dtype(x, dtype):
    """f32 values exact in `dtype` as the array the API takes."""
    return {"f32": lambda v: v.astype(np.float32), "f16": lambda v: v.astype(np.float16),
            "bf16": ref.f32_to_bf16_bits}[dtype](x)


def _check_bias(rep, target, tag, rng, n, k, wq, ws, wd, activations):
    """The matmul's bias (docs/spec.md 2.7: fl(fl(alpha * sum) + bias[n])
    before the accumulator and the rounding to the output type) against
    the same program without it, to f32, plus the bias in numpy fp32, then
    rounded: bit for bit. Dense (narrow-token and wide-token kernels), the
    contiguous experts of an MoE layer, weight-only (W4A16), masked slots
    with an accumulator (rows past masked_m: bias + beta * acc), and the
    swiglu of a biased gate_up matmul."""
    def added(y32, bias, out):
        return _as_dtype(ref.round_to_dtype(np.float32(y32) + bias, out), out)

    for m, dtype, bdtype, out in ((1, "bf16", "bf16", "bf16"), (7, "f16", "f32", "f16"),
                                  (16, "bf16", "f16", "f32"), (40, "bf16", "bf16", "bf16"),
                                  (130, "f32", "f32", "bf16")):
        x = activations(m, dtype)
        bias = _bias_values(rng, (n,), bdtype)
        got = compiler.linear(x, wq, ws, wd, out_dtype=out, bias=_as_dtype(bias, bdtype),
                              target=target)
        y32 = compiler.linear(x, wq, ws, wd, out_dtype="f32", target=target)
        rep.exact(f"{tag}linear+bias M={m} N={n} K={k} {dtype} bias {bdtype} -> {out}: the "
                  "product + bias in fp32", [("C", np.asarray(got), added(y32, bias, out))])
    # Weight-only (W4A16) with a bias.
    xw = ref.round_to_dtype(activations(5, "f32"), "bf16")
    bias = _bias_values(rng, (n,), "bf16")
    got = compiler.linear(_as_dtype(xw, "bf16"), wq, ws, wd, out_dtype="bf16",
                          bias=_as_dtype(bias, "bf16"), weight_only=True, target=target)
    y32 = compiler.linear(_as_dtype(xw, "bf16"), wq, ws, wd, out_dtype="f32",
                          weight_only=True, target=target)
    rep.exact(f"{tag}weight-only linear+bias M=5 N={n} K={k}: the product + bias in fp32",
              [("C", np.asarray(got), added(y32, bias, "bf16"))])
    # MoE experts: expert e's bias row on its tokens.
    E, ne, ke = 6, 136, 256
    offsets = np.array([0, 3, 3, 40, 41, 58, 70], np.int32)
    x = high_precision((int(offsets[-1]), ke), 23, "bf16")[0]
    We = (rng.standard_normal((E, ne, ke)) / 16).astype(np.float32)
    Wq, Ws, Wd = compiler.quantize(We, block="16x16", target=target)
    bias = _bias_values(rng, (E, ne), "f32")
    rows = np.repeat(np.arange(E), np.diff(offsets))
    got = compiler.grouped_linear(x, Wq, Ws, Wd, offsets, out_dtype="bf16", bias=bias,
                                  target=target)
    y32 = compiler.grouped_linear(x, Wq, Ws, Wd, offsets, out_dtype="f32", target=target)
    rep.exact(f"{tag}grouped_linear+bias E={E} S={offsets[-1]} N={ne} K={ke}: the product "
              "+ bias in fp32", [("C", np.asarray(got), added(y32, bias[rows], "bf16"))])
    # The swiglu of the biased product (bias before the activation).
    h = compiler.grouped_linear(x, Wq, Ws, Wd, offsets, out_dtype="bf16", bias=bias,
                                swiglu=_GPT_OSS, target=target)
    want = compiler.swiglu(added(y32, bias[rows], "f32"), out_dtype="bf16", target=target,
                           **_GPT_OSS)
    rep.exact(f"{tag}grouped_linear+bias+swiglu E={E}: the swiglu of the product + bias",
              [("H", np.asarray(h), np.asarray(want))])
    # Masked slots with an accumulator: rows past masked_m hold
    # fl(bias + fl(beta * acc)).
    G, max_m = 3, 8
    masked = np.array([5, 0, 8], np.int32)
    xm = high_precision((G, max_m, ke), 29, "bf16")[0]
    q, sc, d = compiler.quantize(xm, target=target)
    Wm = (rng.standard_normal((G, ne, ke)) / 16).astype(np.float32)
    Wmq, Wms, Wmd = compiler.quantize(Wm, block="16x16", target=target)
    acc = rng.standard_normal((G, max_m, ne)).astype(np.float32)
    bias = _bias_values(rng, (G, ne), "bf16")
    kw = dict(masked_m=masked, a_decode=d, b_decode=Wmd, out_dtype="f32", target=target)
    got = compiler.grouped_matmul("masked", q, sc, Wmq, Wms, acc=acc, beta=0.5,
                                  bias=_as_dtype(bias, "bf16"), **kw)
    y32 = np.asarray(compiler.grouped_matmul("masked", q, sc, Wmq, Wms, **kw))
    want = (y32 + bias[:, None, :]).astype(np.float32)
    for g in range(G):
        want[g, masked[g]:] = bias[g]
    want = (want + np.float32(0.5) * acc).astype(np.float32)
    rep.exact(f"{tag}masked+bias+acc G={G} maxM={max_m} masked_m={masked.tolist()}: "
              "fl(fl(product + bias) + 0.5 acc), past masked_m fl(bias + 0.5 acc)",
              [("C", np.asarray(got), want)])


def _check_fused_masked(rep, target, tag, rng, max_m, masked, swiglu=False):
    """The masked program (with swiglu: the activation of its output, via
    bf16) against its ops run one by one."""
    G, nm, km = 3, 136, 256
    xm = high_precision((G, max_m, km), 9, "bf16")[0]
    Wm = rng.standard_normal((G, nm, km)).astype(np.float32)
    Wmq, Wms, Wmd = compiler.quantize(Wm, block="16x16", target=target)
    swz = compiler.swizzled_shape((G,), max_m, km // 16)
    sw_t = "x".join(str(v) for v in swz)
    wsw_t = "x".join(str(v) for v in Wms.shape)
    inter = "bf16" if swiglu else "f32"
    product = f"tensor<{G}x{max_m}x{nm}x{inter}>"
    result, ret = product, f"return %y : {product}"
    if swiglu:
        Wmd = np.float32(Wmd / 64)
        result = f"tensor<{G}x{max_m}x{nm // 2}xf32>"
        ret = (f"%h = nvfp4.swiglu %y {{limit = 7.0 : f32}} : {product} -> {result}\n"
               f"  return %h : {result}")
    program = f"""func.func @main(%x: tensor<{G}x{max_m}x{km}xbf16>, %w: tensor<{G}x{nm}x{km}xf4E2M1FN>,
    %ws: tensor<{wsw_t}xf8E4M3FN, #nvfp4.swizzled_128x4>, %wd: tensor<{G}xf32>, %mm: tensor<{G}xi32>)
    -> {result} {{
  %q, %s, %d = nvfp4.quantize nvfp4 %x : tensor<{G}x{max_m}x{km}xbf16> -> tensor<{G}x{max_m}x{km}xf4E2M1FN>, tensor<{sw_t}xf8E4M3FN, #nvfp4.swizzled_128x4>, tensor<{G}xf32>
  %y = nvfp4.grouped_matmul masked a(%q : tensor<{G}x{max_m}x{km}xf4E2M1FN>) a_scales(%s : tensor<{sw_t}xf8E4M3FN, #nvfp4.swizzled_128x4>) b(%w : tensor<{G}x{nm}x{km}xf4E2M1FN>) b_scales(%ws : tensor<{wsw_t}xf8E4M3FN, #nvfp4.swizzled_128x4>) masked_m(%mm : tensor<{G}xi32>) a_decode_scale(%d : tensor<{G}xf32>) b_decode_scale(%wd : tensor<{G}xf32>) -> {product}
  {ret}
}}
"""
    got = compiler.run_program(program, [xm, Wmq, Wms, Wmd, masked], 1, target=target)[0]
    q, sc, d = compiler.quantize(xm, target=target)
    unfused = compiler.grouped_matmul("masked", q, sc, Wmq, Wms, masked_m=masked, a_decode=d,
                                      b_decode=Wmd, out_dtype=inter, target=target)
    what = "C"
    if swiglu:
        unfused = compiler.swiglu(unfused, limit=7.0, out_dtype="f32", target=target)
        what = "H"
    rep.exact(f"{tag}masked G={G} maxM={max_m} masked_m={masked.tolist()}"
              f"{' + swiglu via bf16' if swiglu else ''}: the unfused ops' bits",
              [(what, np.asarray(got), np.asarray(unfused))])


def check_empty(target, size):
    """Zero-size dimensions (docs/spec.md 2.6): every op takes them, an empty
    launch where there is nothing to write; what there is (the decode scales
    of empty tensors, beta * acc of a K = 0 matmul) matches the reference."""
    rep = Report("empty")
    rng = np.random.default_rng(9)
    dtypes = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32}
    for fmt, shape, dtype, opts in [
            ("nvfp4", (0, 64), "bf16", dict()),
            ("nvfp4", (0, 64), "f32", dict(swizzle=False)),
            ("nvfp4", (16, 0), "f32", dict()),
            ("nvfp4", (16, 0), "bf16", dict(swizzle=False, scale_rule="four_over_six")),
            ("nvfp4", (0, 64), "bf16", dict(amax=3.0)),
            ("nvfp4", (2, 0, 32), "f16", dict(amax=[2.0, 0.25])),
            ("nvfp4", (0, 64), "bf16", dict(encode_scale=3.0)),
            ("nvfp4", (2, 0, 32), "f16", dict(decode_scale=[0.5, 0.0009])),
            ("nvfp4", (3, 16, 0), "f32", dict(encode_scale=[0.0, 2.0, -4.0], swizzle=False)),
            ("nvfp4", (3, 16, 0), "bf16", dict(block="16x16", swizzle=False)),
            ("nvfp4", (0, 16, 32), "bf16", dict()),
            ("nvfp4", (130, 0), "bf16", dict(row_scaled=True)),
            ("nvfp4", (2, 0, 32), "f32", dict(row_scaled=True, swizzle=False)),
            ("mxfp4", (0, 64), "bf16", dict()),
            ("mxfp4", (16, 0), "f32", dict(swizzle=False))]:
        x = np.zeros(shape, dtypes[dtype])
        opts = dict(opts)
        swizzle = opts.pop("swizzle", True)
        name = f"quantize {fmt} {dtype} {shape} {'swizzled' if swizzle else 'row-major'}" + \
               "".join(f" {k}={v}" for k, v in opts.items())
        got = compiler.quantize(x, fmt, swizzle=swizzle, target=target, **opts)
        if fmt == "nvfp4":
            want = ref.quantize_nvfp4(x, swizzle=swizzle, **opts)
            rep.exact(name, [("codes", got[0], want[0]), ("scales", got[1], want[1]),
                             ("s_dec", got[2], np.asarray(want[2], np.float32))])
        else:
            want = ref.quantize_mxfp4(x, swizzle=swizzle, **opts)
            rep.exact(name, [("codes", got[0], want[0]), ("scales", got[1], want[1])])

    for shape, swizzle in [((0, 64), True), ((16, 0), False), ((2, 0, 32), True)]:
        rows, k = shape[-2:]
        q = np.zeros(shape[:-1] + (k // 2,), np.uint8)
        s = np.zeros(shape[:-1] + (k // 16,), np.uint8)
        if swizzle:
            s = ref.swizzle_scales(s)
        d = np.full(shape[:-2], 2.0, np.float32)
        got = compiler.dequantize(q, s, d, out_dtype="f32", target=target)
        want = ref.dequantize(q, s, d, fmt="nvfp4", rows=rows, cols=k // 16, swizzled=swizzle)
        rep.exact(f"dequantize {shape} {'swizzled' if swizzle else 'row-major'}",
                  [("values", got, want.astype(np.float32))])

    for shape in [(0, 4), (5, 0), (2, 0, 3)]:
        sm = np.zeros(shape, np.uint8)
        rep.exact(f"swizzle {shape}", [("swizzled", compiler.swizzle_scales(sm, target=target),
                                        ref.swizzle_scales(sm))])
        back = compiler.unswizzle_scales(ref.swizzle_scales(sm), shape[-2], shape[-1],
                                         target=target)
        rep.exact(f"unswizzle {shape}", [("row-major", back, sm)])

    # Matmuls: no token row, no weight row, and K = 0 (beta * acc alone).
    for m, n, k in [(0, 64, 128), (128, 0, 128), (128, 64, 0), (200, 136, 0)]:
        a_q, a_s = random_operand(m, k, "nvfp4", rng)
        b_q, b_s = random_operand(n, k, "nvfp4", rng)
        acc = rng.standard_normal((m, n)).astype(np.float32) * 100
        got = compiler.matmul(a_q, a_s, b_q, b_s, alpha=0.75, acc=acc, beta=-0.5, out_dtype="f32",
                              target=target)
        want = ref.matmul_reference(a_q, a_s, b_q, b_s, alpha=0.75, beta=-0.5, c_in=acc,
                                    a_rows=m, b_rows=n, swizzled=True)
        rep.exact(f"matmul M={m} N={n} K={k} alpha=0.75 acc beta=-0.5 -> f32",
                  [("c", got, want.astype(np.float32))])

    # Grouped: an empty group among others, no rows at all, K = 0.
    ms, n, k = [40, 0, 24], 64, 128
    A, B = _grouped_operands(ms, n, k, "nvfp4", rng, modest=True)
    got = compiler.grouped_matmul("independent", [a[0] for a in A], [a[1] for a in A],
                                  [b[0] for b in B], [b[1] for b in B], out_dtype="f32",
                                  target=target)
    wants = ref.grouped_matmul_independent([(a[0], a[1], b[0], b[1], 1.0) for a, b in zip(A, B)],
                                           swizzled=True)
    rep.close(f"grouped independent M={ms} N={n} K={k} -> f32", _flat(got), _flat(wants),
              "f32")
    b_stack = np.stack([b[0] for b in B])
    b_s = np.stack([b[1] for b in B])
    a0_q, a0_s = random_operand(0, k, "nvfp4", rng)
    got = compiler.grouped_matmul("contiguous", a0_q, a0_s, b_stack, b_s,
                                  group_offsets=np.zeros(4, np.int32), out_dtype="f32", target=target)
    rep.exact(f"grouped contiguous S=0 N={n} K={k} -> f32", [("c", got, np.zeros((0, n),
                                                                                   np.float32))])
    a_m = np.zeros((3, 0, k // 2), np.uint8)
    a_ms = np.zeros((3, 0, k // 64, 32, 4, 4), np.uint8)
    got = compiler.grouped_matmul("masked", a_m, a_ms, b_stack, b_s,
                                  masked_m=np.zeros(3, np.int32), out_dtype="f32", target=target)
    rep.exact(f"grouped masked maxM=0 N={n} K={k} -> f32", [("c", got, np.zeros((3, 0, n),
                                                                                  np.float32))])
    S, G = 50, 2
    acc = rng.standard_normal((S, n)).astype(np.float32)
    got = compiler.grouped_matmul("contiguous", np.zeros((S, 0), np.uint8),
                                  np.zeros((1, 0, 32, 4, 4), np.uint8),
                                  np.zeros((G, n, 0), np.uint8),
                                  np.zeros((G, 1, 0, 32, 4, 4), np.uint8),
                                  group_offsets=np.array([0, 20, S], np.int32),
                                  alpha=np.array([2.0, 3.0], np.float32), acc=acc, beta=0.25,
                                  out_dtype="f32", target=target)
    rep.exact(f"grouped contiguous S={S} N={n} K=0 acc beta=0.25 -> f32",
              [("c", got, (np.float32(0.25) * acc).astype(np.float32))])
    rep.summary()
    return rep


def check_sanitize(target, size):
    """A small case of every op (for runs under compute-sanitizer)."""
    rep = Report("sanitize")
    rng = np.random.default_rng(9)
    for name, opts in [("nvfp4 1x16 swizzled", dict()),
                       ("nvfp4 16x16 four_over_six", dict(block="16x16", scale_rule="four_over_six")),
                       ("nvfp4 stochastic hadamard", dict(rounding="stochastic", seed=3, hadamard=True)),
                       ("nvfp4 row-scaled", dict(row_scaled=True)),
                       ("nvfp4 given decode scale", dict(decode_scale=0.01))]:
        x, _ = high_precision((200, 96), 31, "bf16")
        got = compiler.quantize(x, target=target, **opts)
        want = ref.quantize_nvfp4(x, swizzle=True, **opts)
        rep.exact(f"quantize {name}", [("codes", got[0], want[0]), ("scales", got[1], want[1]),
                                       ("s_dec", got[2], np.asarray(want[2], np.float32))])
    x, _ = high_precision((2, 100, 64), 32, "f32")
    got = compiler.quantize(x, "mxfp4", target=target)
    want = ref.quantize_mxfp4(x, swizzle=True)
    rep.exact("quantize mxfp4 batched", [("codes", got[0], want[0]), ("scales", got[1], want[1])])
    q, s, d = ref.quantize_nvfp4(x[0], swizzle=True)
    rep.exact("dequantize", [("values", compiler.dequantize(q, s, d, target=target),
                              ref.dequantize(q, s, d, rows=100, cols=4, swizzled=True))])
    s_rm = rng.integers(1, 256, size=(130, 5), dtype=np.uint8)
    rep.exact("swizzle", [("swizzled", compiler.swizzle_scales(s_rm, target=target),
                           ref.swizzle_scales(s_rm))])
    rep.exact("unswizzle", [("row-major", compiler.unswizzle_scales(ref.swizzle_scales(s_rm), 130, 5,
                                                                    target=target), s_rm)])
    m, n, k = 136, 72, 128
    a_q, a_s = random_operand(m, k, "nvfp4", rng)
    b_q, b_s = random_operand(n, k, "nvfp4", rng)
    kw = dict(a_rows=m, b_rows=n, swizzled=True)
    rep.close("matmul", compiler.matmul(a_q, a_s, b_q, b_s, out_dtype="f32", target=target),
              ref.matmul_reference(a_q, a_s, b_q, b_s, **kw), "f32",
              summation_bound(a_q, a_s, b_q, b_s, k, **kw))
    da, db = rng.uniform(0.5, 2, m).astype(np.float32), rng.uniform(0.5, 2, n).astype(np.float32)
    alpha = ref.alpha_eff(da, db)
    rep.close("matmul row-scaled", compiler.matmul(a_q, a_s, b_q, b_s, a_decode=da, b_decode=db,
                                                   out_dtype="bf16", target=target),
              ref.matmul_reference(a_q, a_s, b_q, b_s, alpha=alpha, **kw), "bf16",
              summation_bound(a_q, a_s, b_q, b_s, k, alpha=alpha, **kw))
    ms = [40, 0, 100]
    A, B = _grouped_operands(ms, n, k, "nvfp4", rng)
    got = compiler.grouped_matmul("independent", [a[0] for a in A], [a[1] for a in A],
                                  [b[0] for b in B], [b[1] for b in B], out_dtype="bf16", target=target)
    wants = ref.grouped_matmul_independent([(a[0], a[1], b[0], b[1], 1.0) for a, b in zip(A, B)],
                                           swizzled=True)
    rep.close("grouped independent (an empty group)", _flat(got), _flat(wants), "bf16")
    offsets = np.array([0, 40, 40, 140], np.int32)
    a_cat = np.concatenate([a[0] for a in A])
    a_rm = np.concatenate([ref.unswizzle_scales(a[1], mm, k // 16) for a, mm in zip(A, ms)])
    b_stack, b_s = np.stack([b[0] for b in B]), np.stack([b[1] for b in B])
    got = compiler.grouped_matmul("contiguous", a_cat, ref.swizzle_scales(a_rm), b_stack, b_s,
                                  group_offsets=offsets, out_dtype="f32", target=target)
    want = ref.grouped_matmul_contiguous(a_cat, ref.swizzle_scales(a_rm), b_stack, b_s, offsets,
                                         np.ones(3, np.float32), swizzled=True)
    rep.close("grouped contiguous", got, want, "f32")
    a_pad = np.zeros((3, 128, k // 2), np.uint8)
    a_s_rm = np.zeros((3, 128, k // 16), np.uint8)
    for g, (a, mm) in enumerate(zip(A, ms)):
        a_pad[g, :mm] = a[0]
        a_s_rm[g, :mm] = ref.unswizzle_scales(a[1], mm, k // 16) if mm else 0
    got = compiler.grouped_matmul("masked", a_pad, ref.swizzle_scales(a_s_rm), b_stack, b_s,
                                  masked_m=np.array(ms, np.int32), out_dtype="f32", target=target)
    want = ref.grouped_matmul_masked(a_pad, ref.swizzle_scales(a_s_rm), b_stack, b_s,
                                     np.array(ms, np.int32), np.ones(3, np.float32), swizzled=True)
    rep.close("grouped masked", got, np.nan_to_num(want, nan=0.0), "f32")
    _check_sanitize_decode(rep, target, rng)
    _check_sanitize_epilogue(rep, target, rng)
    rep.summary()
    return rep


def _check_sanitize_epilogue(rep, target, rng):
    """The GEMM epilogue's bias and fused swiglu (sm_90a: the narrow-token
    kernel's lanes trading gate/up values, the wide-token kernel's column
    pairs), each against the product to f32, the bias added in fp32 and
    the swiglu program, bit for bit."""
    k = 256
    for label, m in (("the narrow-token kernel", 5), ("the wide-token kernel", 70)):
        x = high_precision((m, k), 41, "bf16")[0]
        w = (rng.standard_normal((136, k)) / 16).astype(np.float32)
        wq, ws, wd = compiler.quantize(w, block="16x16", target=target)
        bias = _bias_values(rng, (136,), "f32")
        got = compiler.linear(x, wq, ws, wd, out_dtype="bf16", bias=bias, swiglu=_GPT_OSS,
                              target=target)
        y32 = np.asarray(compiler.linear(x, wq, ws, wd, out_dtype="f32", target=target))
        want = compiler.swiglu((y32 + bias).astype(np.float32), out_dtype="bf16",
                               target=target, **_GPT_OSS)
        rep.exact(f"epilogue bias + swiglu, {label}", [("H", np.asarray(got), np.asarray(want))])
    # The output quantize (sm_90a: block amaxes through shared memory behind
    # a named barrier per warpgroup): several tiles per CTA (the amaxes'
    # buffer reused), and stream-K (the fixup's owner stores).
    import os
    sm90 = target == "gpu" and not os.environ.get("NVFP4_EMULATE_TCGEN05")
    w = (rng.standard_normal((416, k)) / 16).astype(np.float32)
    wq, ws, wd = compiler.quantize(w, block="16x16", target=target)
    for label, m, options, swiglu in (
            ("2 CTAs", 70, "ctas=2 quantize-in-epilogue=1", None),
            ("2 CTAs, swiglu", 70, "ctas=2 quantize-in-epilogue=1", _GPT_OSS),
            ("stream-K", 3, "gemv=off ctas=7 schedule=stream-k quantize-in-epilogue=1", None)):
        x = high_precision((m, k), 43, "bf16")[0]
        with PipelineOptions(options if sm90 else ""):
            y = compiler.linear(x, wq, ws, wd, out_dtype="bf16", swiglu=swiglu,
                                target=target)
            got = compiler.linear(x, wq, ws, wd, out_dtype="bf16", swiglu=swiglu,
                                  output_quantize=dict(encode_scale=np.float32(40.0)),
                                  target=target)
        want = compiler.quantize(y, encode_scale=np.float32(40.0), target=target)
        rep.exact(f"epilogue output quantize, {label}",
                  [(n, np.asarray(g), np.asarray(e)) for n, g, e in zip("QSD", got, want)])


def _check_sanitize_decode(rep, target, rng):
    """The sm_90a decode kernel's paths: stream-K with every weight tile
    split over several CTAs (the fixup's counters and partial sums), each
    tile's K split over a cluster of 2 (the partials through distributed
    shared memory), MoE experts with a few tokens each, the GEMM quantizing
    its tokens itself (nvfp4.fused), and the pre-pass quantizing them (wider
    token tiles; the narrow-token kernel's, with its amax and with a given
    scale and stochastic rounding). Under tcgen05 emulation the same cases run with the
    sm_100a pipeline's defaults (the options name sm_90a choices)."""
    import os
    sm90 = target == "gpu" and not os.environ.get("NVFP4_EMULATE_TCGEN05")
    def dense(label, options, a, b, k):
        kw = dict(a_rows=a[0].shape[0], b_rows=b[0].shape[0], swizzled=True)
        with PipelineOptions(options if sm90 else ""):
            got = compiler.matmul(*a, *b, out_dtype="bf16", target=target)
        rep.close(f"decode matmul, {label}", got, ref.matmul_reference(*a, *b, **kw), "bf16",
                  summation_bound(*a, *b, k, **kw))

    m, n, k = 3, 256, 1024
    a = random_operand(m, k, "nvfp4", rng)
    b = random_operand(n, k, "nvfp4", rng)
    dense("stream-K", "gemv=off ctas=7 schedule=stream-k", a, b, k)
    dense("K split over a cluster of 2", "gemv=off cluster=2", a, b, k)
    # The narrow-token kernel's loads at the operands' ends: N past a
    # multiple of 16 (clamped rows), K ending inside a 128-block, three
    # warps handing over their sums; each warp's whole K range prefetched
    # into L2 (up to the row's end, rows past N none).
    dense("the narrow-token kernel", "gemv=on gemv-warps=3 gemv-prefetch=64",
          random_operand(3, 992, "nvfp4", rng), random_operand(250, 992, "nvfp4", rng), 992)
    # Two token tiles of which the second is partly past M, read as FP4.
    dense("the narrow-token kernel, FP4 tokens", "gemv=on gemv-warps=3",
          random_operand(12, 992, "nvfp4", rng), random_operand(250, 992, "nvfp4", rng), 992)
    ms = np.array([2, 0, 5, 1], np.int32)
    offsets = np.concatenate([[0], np.cumsum(ms)]).astype(np.int32)
    a_q, a_s = random_operand(int(offsets[-1]), k, "nvfp4", rng)
    B = [random_operand(n, k, "nvfp4", rng) for _ in ms]
    b_stack, b_sw = np.stack([b[0] for b in B]), np.stack([b[1] for b in B])
    got = compiler.grouped_matmul("contiguous", a_q, a_s, b_stack, b_sw, group_offsets=offsets,
                                  out_dtype="f32", target=target)
    want = ref.grouped_matmul_contiguous(a_q, a_s, b_stack, b_sw, offsets,
                                         np.ones(len(ms), np.float32), swizzled=True)
    rep.close("decode grouped contiguous, a few tokens per expert", got, want, "f32")
    w_q, w_s, w_d = compiler.quantize(rng.standard_normal((n, k)).astype(np.float32),
                                      target=target)
    given = dict(decode_scale=np.float32(0.01), rounding="stochastic", seed=3)
    for rows, seed, options, where, opts in (
            (4, 33, "tokens=in-kernel", "the GEMM", {}),
            (40, 34, "", "the pre-pass", {}),
            (5, 35, "", "the narrow-token kernel's pre-pass", {}),
            (3, 36, "", "the narrow-token kernel's pre-pass, a given scale", given)):
        x, _ = high_precision((rows, k), seed, "bf16")
        # The unfused ops under the same options: the same GEMM kernel.
        with PipelineOptions(options if sm90 else ""):
            got = compiler.linear(x, w_q, w_s, w_d, input_options=opts, out_dtype="f32",
                                  target=target)
            q, sc, d = compiler.quantize(x, target=target, **opts)
            unfused = compiler.matmul(q, sc, w_q, w_s, a_decode=d, b_decode=w_d,
                                      out_dtype="f32", target=target)
        rep.exact(f"linear, tokens quantized in {where}: the unfused bits",
                  [("C", np.asarray(got), np.asarray(unfused))])


FAMILIES = {
    "quantize": check_quantize,
    "dequantize": check_dequantize,
    "swizzle": check_swizzle,
    "activation": check_activation,
    "moe": check_moe,
    "matmul": check_matmul,
    "grouped": check_grouped,
    "weight_only": check_weight_only,
    "decode": check_decode,
    "fused": check_fused,
    "empty": check_empty,
    "sanitize": check_sanitize,
}


def main(argv=None):
    runtime.DEFAULT_POISON = 0xFF  # outputs poisoned before every call
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("family", choices=list(FAMILIES) + ["all"])
    parser.add_argument("--target", default="auto", choices=["cpu", "gpu", "auto"])
    parser.add_argument("--size", default="ci", choices=["ci", "full"])
    args = parser.parse_args(argv)
    names = ([n for n in FAMILIES if n != "sanitize"] if args.family == "all"
             else [args.family])
    # Say where the programs run (the runner falls back to nothing: --target
    # gpu fails without a GPU).
    probe = np.zeros((1, 16), np.float32)
    _, timing = compiler.run_program(
        "func.func @main(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {\n"
        "  return %x : tensor<1x16xf32>\n}\n", [probe], 1, target=args.target,
        benchmark=True, warmup=0, reps=1)
    print(f"DEVICE: {timing.device}", flush=True)
    start = time.time()
    failures = 0
    for name in names:
        failures += FAMILIES[name](args.target, args.size).failures
    print(f"TOTAL: {failures} failures in {time.time() - start:.1f} s", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
