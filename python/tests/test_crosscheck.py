"""Cross-checks of nvfp4.reference against independent implementations.

* element casts against ml_dtypes (float8_e4m3fn, float4_e2m1fn, float8_e8m0fnu,
  bfloat16) on every code and on dense grids of fp32 inputs, where the
  semantics coincide (ml_dtypes' E4M3 cast does not saturate: clamp first);
* the vectorised quantizers against a slow, loop-based re-implementation of
  docs/spec.md section 2 written independently below (scalar np.float32 arithmetic,
  ml_dtypes casts, math.frexp for MX exponents).
"""

import math

import numpy as np
import pytest

import nvfp4.reference as R

ml_dtypes = pytest.importorskip("ml_dtypes")

F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)


def _grid(hi_bits, stride):
    """Non-negative fp32 values with bit patterns 0..hi_bits (strided), both signs."""
    b = np.arange(0, hi_bits + 1, stride, dtype=np.uint32)
    v = b.view(np.float32)
    return np.concatenate([v, -v])


def _midpoints(values):
    """Midpoints between consecutive representable values and their fp32 neighbours."""
    v = np.unique(np.abs(values[np.isfinite(values)]).astype(np.float64))
    mid = ((v[:-1] + v[1:]) / 2).astype(np.float32)  # exact: few significant bits
    pts = np.concatenate([mid, np.nextafter(mid, F32(np.inf)), np.nextafter(mid, F32(0)), v.astype(np.float32)])
    return np.concatenate([pts, -pts]).astype(np.float32)


# ---------------------------------------------------------------------------
# Element formats vs ml_dtypes
# ---------------------------------------------------------------------------

def test_e4m3_decode_all_codes():
    codes = np.arange(256, dtype=np.uint8)
    ref = codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    got = R.e4m3_decode(codes)
    assert np.array_equal(got, ref, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(ref))


def test_e4m3_encode_vs_ml_dtypes():
    table = R.e4m3_decode(np.arange(256, dtype=np.uint8))
    x = np.concatenate([_grid(0x43E00000, 257), _midpoints(table),
                        np.float32([500, 1e6, 3e38, -600])])
    clamped = np.clip(x, F32(-448), F32(448))
    ref = clamped.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    assert np.array_equal(R.e4m3_encode_satfinite(x), ref)
    # every code round-trips
    finite = np.isfinite(table)
    assert np.array_equal(R.e4m3_encode_satfinite(table[finite]),
                          np.arange(256, dtype=np.uint8)[finite])


def test_e2m1_vs_ml_dtypes():
    codes = np.arange(16, dtype=np.uint8)
    ref = codes.view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    assert np.array_equal(R.e2m1_decode(codes), ref)
    assert np.array_equal(np.signbit(R.e2m1_decode(codes)), np.signbit(ref))
    x = np.concatenate([_grid(0x41000000, 263), _midpoints(ref), np.float32([7, 100, 1e30])])
    mlref = x.astype(ml_dtypes.float4_e2m1fn).view(np.uint8) & 0xF  # saturating, RNE
    assert np.array_equal(R.e2m1_encode_rne(x), mlref)


def test_e8m0_decode_vs_ml_dtypes():
    codes = np.arange(256, dtype=np.uint8)
    ref = codes.view(ml_dtypes.float8_e8m0fnu).astype(np.float32)
    assert np.array_equal(R.e8m0_decode(codes), ref, equal_nan=True)


def test_bf16_vs_ml_dtypes():
    rng = np.random.default_rng(0)
    b = np.concatenate([np.arange(0, 2 ** 32, 65521, dtype=np.uint64).astype(np.uint32),
                        rng.integers(0, 2 ** 32, 200000, dtype=np.uint64).astype(np.uint32),
                        (np.arange(0, 256, dtype=np.uint32) << 16) | 0x8000])  # ties
    x = b.view(np.float32)
    x = x[~np.isnan(x)]
    ref = x.astype(ml_dtypes.bfloat16).view(np.uint16)
    assert np.array_equal(R.f32_to_bf16_bits(x), ref)
    assert np.array_equal(R.bf16_bits_to_f32(ref), ref.view(ml_dtypes.bfloat16).astype(np.float32))


# ---------------------------------------------------------------------------
# Slow independent implementation of docs/spec.md section 2
# ---------------------------------------------------------------------------

def _e4m3(v):
    c = np.clip(np.float32(v), F32(-448), F32(448))
    return int(np.array([c], np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)[0])


def _e4m3_val(code):
    return F32(np.array([code], np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)[0])


def _e2m1(v):
    if np.isnan(v):
        return 7
    return int(np.array([v], np.float32).astype(ml_dtypes.float4_e2m1fn).view(np.uint8)[0]) & 0xF


def _e2m1_val(code):
    return F32(np.array([code], np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float32)[0])


def _absmax(vals):
    m = F32(0)
    for v in vals:
        a = abs(F32(v))
        if not np.isnan(a) and a > m:
            m = a
    return m


def slow_nvfp4(x, *, tile_rows=1, four6=False, metric="mae", e4m3_max=448, amax=None):
    """Loop-based NVFP4 quantize of a 2-D float32 array (codes unpacked).

    four6 follows TransformerEngine's 4over6 kernel as docs/spec.md 2.5
    states it: base = (amax_b / 6) * S_enc, candidates e4m3(base) and
    e4m3(base * 1.5), errors on ((q * sf) * amax) / C, one running sum per
    row, a 16-row tile's row sums reduced by halving (r[l] + r[l + h])."""
    rows, k = x.shape
    c = F32(6 * e4m3_max) if four6 else F32(2688)
    if amax is None:
        amax = _absmax(x.ravel())
    amax = F32(amax)
    if amax == 0:
        s_enc = F32(1)
    else:
        with np.errstate(over="ignore", divide="ignore"):
            q = c / amax
        s_enc = FLT_MAX if (np.isinf(q) or q > FLT_MAX) else q
        if s_enc == 0:
            s_enc = F32(1)
    s_dec = F32(1) / s_enc
    k16 = s_enc * (F32(1) / F32(6))
    codes = np.zeros((rows, k), np.uint8)
    scales = np.zeros((rows, k // 16), np.uint8)

    def quant(rr, cc, pre):
        sf = _e4m3(pre)
        den = _e4m3_val(sf) * s_dec
        enc = FLT_MAX if den == 0 else min(F32(1) / den, FLT_MAX)
        out = {}
        with np.errstate(over="ignore", invalid="ignore"):
            for r in rr:
                for j in cc:
                    out[(r, j)] = _e2m1(F32(x[r, j]) * enc)
        return sf, out

    def combine(a, t):
        if metric != "abs_max":
            return a + t
        return a if np.isnan(t) else (t if np.isnan(a) else max(a, t))

    def error(out, sf, r0):
        per_row = [F32(0)] * tile_rows  # rows past the matrix stay 0
        with np.errstate(over="ignore", invalid="ignore"):
            for (r, j) in sorted(out):  # each row in element order
                xhat = ((_e2m1_val(out[(r, j)]) * _e4m3_val(sf)) * amax) / c
                d = xhat - F32(x[r, j])
                t = d * d if metric == "mse" else abs(d)
                per_row[r - r0] = combine(per_row[r - r0], t)
            while len(per_row) > 1:
                h = len(per_row) // 2
                per_row = [combine(per_row[i], per_row[i + h]) for i in range(h)]
        return per_row[0]

    for r0 in range(0, rows, tile_rows):
        rr = range(r0, min(rows, r0 + tile_rows))
        for b in range(k // 16):
            cc = range(16 * b, 16 * b + 16)
            amax_b = _absmax([x[r, j] for r in rr for j in cc])
            with np.errstate(over="ignore"):
                pre6 = (amax_b / F32(6)) * s_enc if four6 else amax_b * k16
            sf, out = quant(rr, cc, pre6)
            if four6:
                with np.errstate(over="ignore"):
                    pre4 = pre6 * F32(1.5)
                sf4, out4 = quant(rr, cc, pre4)
                e6, e4 = error(out, sf, r0), error(out4, sf4, r0)
                if e4 < e6:
                    sf, out = sf4, out4
            for (r, j), code in out.items():
                codes[r, j] = code
            for r in rr:
                scales[r, b] = sf
    if four6:
        with np.errstate(over="ignore", invalid="ignore"):
            s_dec = amax / c
    return codes, scales, s_dec


def slow_mxfp4(x, rule="rceil"):
    rows, k = x.shape
    codes = np.zeros((rows, k), np.uint8)
    scales = np.zeros((rows, k // 32), np.uint8)
    for r in range(rows):
        for b in range(k // 32):
            blk = x[r, 32 * b:32 * b + 32]
            amax_b = _absmax(blk)
            v = amax_b * (F32(1) / F32(6)) if rule == "rceil" else amax_b
            if np.isinf(v):
                code = 254
            elif v == 0:
                code = 0
            else:
                m, e = math.frexp(float(v))  # v = m * 2^e, m in [0.5, 1)
                if rule == "rceil":
                    lg = e - 1 if m == 0.5 else e          # ceil(log2 v)
                    code = lg + 127
                else:
                    code = (e - 1) - 2 + 127               # floor(log2 amax) - 2
                code = min(max(code, 0), 254)
            scales[r, b] = code
            for j in range(32):
                xv = float(blk[j])
                if math.isnan(xv):
                    codes[r, 32 * b + j] = 7
                    continue
                # exact power-of-two scaling in float64, one rounding to fp32
                v = np.float32(math.ldexp(xv, 127 - code)) if math.isfinite(xv) else F32(xv)
                codes[r, 32 * b + j] = _e2m1(v)
    return codes, scales


CASES = [
    dict(shape=(32, 64), seed=1, kind="mixed"),
    dict(shape=(20, 48), seed=2, kind="nonfinite"),
    dict(shape=(17, 32), seed=3, kind="mixed"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("block", [(1, 16), (16, 16)])
@pytest.mark.parametrize("rule,metric,e4m3_max", [
    ("max6", None, None), ("four_over_six", "mae", 448), ("four_over_six", "mse", 448),
    ("four_over_six", "mae", 256), ("four_over_six", "mse", 256),
    ("four_over_six", "abs_max", 256)])
def test_nvfp4_vs_slow(case, block, rule, metric, e4m3_max):
    x = R.make_test_tensor(case["shape"], case["seed"], kind=case["kind"])
    q, s, d = R.quantize_nvfp4(x, block=block, scale_rule=rule, error_metric=metric,
                               e4m3_max=e4m3_max)
    codes, scales, s_dec = slow_nvfp4(x, tile_rows=block[0], four6=rule == "four_over_six",
                                      metric=metric or "mae", e4m3_max=e4m3_max or 448)
    assert np.asarray(d).view(np.uint32) == np.asarray(s_dec, np.float32).view(np.uint32)
    assert np.array_equal(s, scales)
    assert np.array_equal(R.unpack_fp4(q), codes)


def test_nvfp4_vs_slow_hadamard_and_amax():
    x = R.make_test_tensor((16, 64), 4)
    q, s, d = R.quantize_nvfp4(x, hadamard=True, amax=F32(37.5))
    xh = np.empty_like(x)
    m = R.hadamard16_matrix()
    for r in range(16):
        for c0 in range(0, 64, 16):
            for j in range(16):
                acc = x[r, c0] * m[0, j]
                for i in range(1, 16):
                    acc = acc + x[r, c0 + i] * m[i, j]
                xh[r, c0 + j] = acc
    assert np.array_equal(R.apply_hadamard(x), xh)
    codes, scales, s_dec = slow_nvfp4(xh, amax=37.5)
    assert d == s_dec and np.array_equal(s, scales) and np.array_equal(R.unpack_fp4(q), codes)


@pytest.mark.parametrize("rule", ["rceil", "floor"])
def test_mxfp4_vs_slow(rule):
    x = R.make_test_tensor((24, 96), 5, kind="nonfinite")
    x[0, :32] *= F32(1e-38)  # subnormal-ish block
    x[1, 32:64] = 0
    q, s = R.quantize_mxfp4(x, scale_rule=rule)
    codes, scales = slow_mxfp4(x, rule)
    assert np.array_equal(s, scales)
    assert np.array_equal(R.unpack_fp4(q), codes)


def test_sr_vectorised_matches_scalar_rule():
    rng = np.random.default_rng(3)
    v = np.concatenate([rng.uniform(-7, 7, 3000), [0.25, 0.75, 1.75, 2.0, 3.5, 4.0, 5.0]]
                       ).astype(np.float32)
    r = rng.integers(0, 256, v.size).astype(np.uint8)
    got = R.e2m1_encode_stochastic(v, r)
    for vi, ri, gi in zip(v, r, got):
        a = abs(vi)
        st = F32(0.5) if a < 2 else (F32(1) if a < 4 else F32(2))
        t = a + (F32(ri) / F32(256)) * st
        st_t = F32(0.5) if t < 2 else (F32(1) if t < 4 else F32(2))
        q = min(F32(math.floor(t / st_t)) * st_t, F32(6))
        expect = int(np.searchsorted(R.E2M1_VALUES[:8], q)) | (8 if np.signbit(vi) else 0)
        assert gi == expect
