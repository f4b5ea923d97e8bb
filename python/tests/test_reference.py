"""Known-answer tests for nvfp4.reference (expected values written by hand).

Every expected number here was derived by hand from docs/spec.md section 2 (the
derivations are in the comments), not computed by the code under test.
"""

import numpy as np
import pytest

import nvfp4.reference as R

F32 = np.float32


def f32(v):
    return np.asarray(v, dtype=np.float32)


def f32_from_bits(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def bits_of(v):
    return int(np.asarray(v, dtype=np.float32).view(np.uint32))


NEG_NAN = f32_from_bits(0xFFC00000)[()]


# ---------------------------------------------------------------------------
# E2M1
# ---------------------------------------------------------------------------

E2M1_CASES = [
    (0.0, 0), (0.1, 0), (0.25, 0), (0.2500001, 1), (0.5, 1), (0.74999994, 1),
    (0.75, 2), (1.0, 2), (1.25, 2), (1.2500001, 3), (1.5, 3), (1.7499999, 3),
    (1.75, 4), (2.0, 4), (2.5, 4), (2.5000002, 5), (3.0, 5), (3.4999998, 5),
    (3.5, 6), (4.0, 6), (5.0, 6), (5.0001, 7), (6.0, 7), (7.0, 7), (1e30, 7),
    (np.inf, 7), (-np.inf, 15), (np.nan, 7), (NEG_NAN, 7),
    (-0.0, 8), (-0.1, 8), (-0.25, 8), (-0.2500001, 9), (-0.75, 10), (-1.25, 10),
    (-1.75, 12), (-2.5, 12), (-3.5, 14), (-5.0, 14), (-5.0001, 15), (-6.0, 15),
    (-7.0, 15), (1e-45, 0), (-1e-45, 8),
]


@pytest.mark.parametrize("value,code", E2M1_CASES)
def test_e2m1_encode_rne(value, code):
    assert int(R.e2m1_encode_rne(f32([value]))[0]) == code


def test_e2m1_decode_table():
    v = R.e2m1_decode(np.arange(16, dtype=np.uint8))
    assert v.dtype == np.float32
    assert v.tolist() == [0, .5, 1, 1.5, 2, 3, 4, 6, 0, -.5, -1, -1.5, -2, -3, -4, -6]
    assert np.signbit(v[8]) and not np.signbit(v[0])


def test_pack_unpack():
    codes = np.array([[1, 2, 3, 15, 0, 8]], dtype=np.uint8)
    p = R.pack_fp4(codes)
    assert p.tolist() == [[0x21, 0xF3, 0x80]]
    assert np.array_equal(R.unpack_fp4(p), codes)
    with pytest.raises(ValueError):
        R.pack_fp4(np.zeros(3, np.uint8))


# ---------------------------------------------------------------------------
# E4M3 / E8M0
# ---------------------------------------------------------------------------

E4M3_CASES = [
    (0.0, 0x00), (-0.0, 0x80), (1.0, 0x38), (1.5, 0x3C), (-2.0, 0xC0),
    (448.0, 0x7E), (449.0, 0x7E), (464.0, 0x7E), (479.99, 0x7E), (480.0, 0x7E),
    (1e9, 0x7E), (np.inf, 0x7E), (-np.inf, 0xFE), (-448.0, 0xFE), (-1e9, 0xFE),
    (np.nan, 0x7F),
    # RNE ties on the normal grid: 1.0625 between 1.0 (m=0) and 1.125 (m=1)
    (1.0625, 0x38), (1.0625001, 0x39), (1.1875, 0x3A),
    (232.0, 0x76),  # tie between 224 (m=6) and 240 (m=7) -> 224
    (240.0, 0x77), (224.0, 0x76), (224.00002, 0x76),
    # subnormals: multiples of 2^-9
    (2.0 ** -9, 0x01), (2.0 ** -10, 0x00), (2.0 ** -10 * 1.0001, 0x01),
    (3 * 2.0 ** -10, 0x02), (5 * 2.0 ** -10, 0x02), (2.0 ** -7, 0x04),
    (13 * 2.0 ** -10, 0x06), (15 * 2.0 ** -10, 0x08), (2.0 ** -6, 0x08),
    (0.0112, 0x06), (-(2.0 ** -11), 0x80), (1e-45, 0x00),
]


@pytest.mark.parametrize("value,code", E4M3_CASES)
def test_e4m3_encode_satfinite(value, code):
    assert int(R.e4m3_encode_satfinite(f32([value]))[0]) == code


def test_e4m3_decode_kat():
    d = R.e4m3_decode(np.array([0x00, 0x01, 0x07, 0x08, 0x38, 0x3C, 0x76, 0x7E, 0x80, 0xFE],
                               dtype=np.uint8))
    assert d.tolist() == [0.0, 2.0 ** -9, 7 * 2.0 ** -9, 2.0 ** -6, 1.0, 1.5, 224.0, 448.0,
                          0.0, -448.0]
    assert np.signbit(d[8])
    assert np.isnan(R.e4m3_decode(np.array([0x7F, 0xFF], np.uint8))).all()


def test_e8m0_decode_kat():
    d = R.e8m0_decode(np.array([0, 1, 126, 127, 128, 254, 255], dtype=np.uint8))
    assert d.dtype == np.float32
    assert bits_of(d[0]) == 0x00400000  # 2^-127, fp32 subnormal
    assert bits_of(d[1]) == 0x00800000  # 2^-126
    assert d[2:6].tolist() == [0.5, 1.0, 2.0, 2.0 ** 127]
    assert np.isnan(d[6])


# ---------------------------------------------------------------------------
# bf16 helpers and input conversion
# ---------------------------------------------------------------------------

def test_bf16_bits():
    x = f32([1.0, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -8 + 2.0 ** -23, -2.0,
             np.inf, -np.inf, np.finfo(np.float32).max, 0.0, -0.0])
    assert R.f32_to_bf16_bits(x).tolist() == [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xC000,
                                              0x7F80, 0xFF80, 0x7F80, 0x0000, 0x8000]
    nans = f32_from_bits([0x7FC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF])
    assert R.f32_to_bf16_bits(nans).tolist() == [0x7FC0, 0x7FC0, 0xFFC0, 0x7FFF]
    assert R.bf16_bits_to_f32(np.array([0x3F80, 0xC000, 0x0001], np.uint16)).tolist() == \
        [1.0, -2.0, float(f32_from_bits(0x00010000))]


def test_to_f32():
    assert R.to_f32([0.5, 1.0]).dtype == np.float32
    with pytest.raises(ValueError):
        R.to_f32(np.array([0.1], dtype=np.float64))
    assert R.to_f32(np.array([0x3F80], np.uint16)).tolist() == [1.0]
    assert R.to_f32({"bf16": np.array([0x4000], np.uint16)}).tolist() == [2.0]
    assert R.to_f32(np.array([1.5], np.float16)).tolist() == [1.5]


# ---------------------------------------------------------------------------
# Philox and random bytes
# ---------------------------------------------------------------------------

PHILOX_KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([0xFFFFFFFF] * 4, [0xFFFFFFFF] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


@pytest.mark.parametrize("ctr,key,out", PHILOX_KAT)
def test_philox_kat(ctr, key, out):
    got = R.philox4x32_10(np.array(ctr, np.uint32), np.array(key, np.uint32))
    assert got.dtype == np.uint32
    assert got.tolist() == out


def test_philox_vectorised():
    ctrs = np.array([c for c, _, _ in PHILOX_KAT[:2]], np.uint32)
    got = R.philox4x32_10(ctrs, np.array([0, 0], np.uint32))
    assert got[0].tolist() == PHILOX_KAT[0][2]


def test_stochastic_bits_layout():
    # seed 0, elements 0..15 = bytes of philox(counter 0, key 0), little endian.
    b = R.stochastic_bits(0, 40)
    assert b.dtype == np.uint8 and b.shape == (40,)
    assert b[:16].tolist() == [0xD5, 0xE8, 0x27, 0x66, 0x8D, 0xC5, 0x69, 0xE1,
                               0x4C, 0xAC, 0x57, 0xBC, 0xD8, 0xDB, 0x00, 0x9B]
    # element 17 -> counter [1, 0, 0, 0], word 0, byte 1
    w = R.philox4x32_10(np.array([1, 0, 0, 0], np.uint32), np.array([0, 0], np.uint32))
    assert b[17] == (int(w[0]) >> 8) & 0xFF
    # seed split: key = [lo, hi]
    seed = 0x0123456789ABCDEF
    w = R.philox4x32_10(np.array([2, 0, 0, 0], np.uint32),
                        np.array([0x89ABCDEF, 0x01234567], np.uint32))
    assert R.stochastic_bits(seed, 48)[32 + 6] == (int(w[1]) >> 16) & 0xFF
    assert not np.array_equal(R.stochastic_bits(1, 64), R.stochastic_bits(2, 64))


# ---------------------------------------------------------------------------
# Stochastic rounding rule
# ---------------------------------------------------------------------------

def _sr_counts(v):
    r = np.arange(256, dtype=np.uint8)
    codes = R.e2m1_encode_stochastic(np.full(256, v, np.float32), r)
    return {int(c): int(n) for c, n in zip(*np.unique(codes, return_counts=True))}


def test_sr_rule_exact_counts():
    # 1.2f = 1.20000005; up to 1.5 iff 1.2 + r/512 >= 1.5 iff r >= 154: 102 of 256
    assert _sr_counts(1.2) == {2: 154, 3: 102}
    # 5.0, step 2: 5 + r/128 >= 6 iff r >= 128
    assert _sr_counts(5.0) == {6: 128, 7: 128}
    # -2.5, step 1: -> -3 iff r >= 128; sign kept
    assert _sr_counts(-2.5) == {12: 128, 13: 128}
    # 0.1 (0.100000001), step 0.5: 0.1 + r/512 >= 0.5 iff r >= 205 (204.8)
    assert _sr_counts(0.1) == {0: 205, 1: 51}
    # just below 2: r = 0 stays at 1.5, every r >= 1 crosses 2 (then step_t = 1)
    assert _sr_counts(float(np.nextafter(F32(2), F32(0)))) == {3: 1, 4: 255}
    assert _sr_counts(6.0) == {7: 256}
    assert _sr_counts(100.0) == {7: 256}
    assert _sr_counts(-np.inf) == {15: 256}
    assert _sr_counts(np.nan) == {7: 256}
    assert _sr_counts(-0.0) == {8: 256}
    assert _sr_counts(0.0) == {0: 256}
    # mean over all 256 r is within step/256 of the input
    for v in [0.3, 1.1, 2.2, 3.9, 4.4, 5.9]:
        r = np.arange(256, dtype=np.uint8)
        m = R.e2m1_decode(R.e2m1_encode_stochastic(np.full(256, v, np.float32), r)).mean()
        assert abs(m - v) <= 2.0 / 256 + 1e-6


def test_sr_quantize_deterministic_and_unbiased():
    rng = np.random.default_rng(1234)
    x = rng.uniform(-6, 6, (64, 64)).astype(np.float32)
    x[:, ::32] = 6.0  # amax 6 in every 32-block: MXFP4 scale 1 exactly
    q1, s1 = R.quantize_mxfp4(x, rounding="stochastic", seed=7)
    q2, s2 = R.quantize_mxfp4(x, rounding="stochastic", seed=7)
    q3, _ = R.quantize_mxfp4(x, rounding="stochastic", seed=8)
    assert np.array_equal(q1, q2) and np.array_equal(s1, s2)
    assert not np.array_equal(q1, q3)
    assert (s1 == 127).all()
    acc = np.zeros(x.shape, np.float64)
    nseeds = 32
    for seed in range(nseeds):
        q, s = R.quantize_mxfp4(x, rounding="stochastic", seed=seed)
        acc += R.dequantize(q, s, fmt="mxfp4")
    mean = acc / nseeds
    # fixed seeds: deterministic. Bias bound step/256 <= 1/128; the noise of a
    # mean over 32*4096 draws is ~1e-3.
    assert abs((mean - x).mean()) < 0.01
    assert np.abs(mean - x).max() < 1.2
    # averaging over seeds gets much closer to x than one RNE quantization
    qn, sn = R.quantize_mxfp4(x)
    rne_err = np.abs(R.dequantize(qn, sn, fmt="mxfp4") - x).mean()
    assert np.abs(mean - x).mean() < 0.5 * rne_err


def test_sr_nvfp4_uses_element_bytes():
    # With S_enc = 1 (amax 2688) and block amax 6 the scale is 1.0 exactly, so
    # v = x; element e uses byte e of stochastic_bits(seed, n).
    x = np.full((2, 16), 1.2, np.float32)
    x[:, 0] = 6.0
    q, s, d = R.quantize_nvfp4(x, rounding="stochastic", seed=99, amax=2688.0)
    assert (s == 0x38).all() and d == 1.0
    r = R.stochastic_bits(99, 32).reshape(2, 16)
    codes = R.unpack_fp4(q)
    expect = np.where(r.astype(int) >= 154, 3, 2)
    expect[:, 0] = 7
    assert np.array_equal(codes, expect)


# ---------------------------------------------------------------------------
# Hadamard
# ---------------------------------------------------------------------------

def test_hadamard_matrix():
    m = R.hadamard16_matrix()
    assert m.dtype == np.float32 and m.shape == (16, 16)
    assert set(np.abs(m).ravel().tolist()) == {0.25}
    assert (m[0] == 0.25).all()  # s0 = 1, H row 0 all ones
    assert m[1].tolist() == [0.25, -0.25] * 8
    assert m[3][:4].tolist() == [-0.25, 0.25, 0.25, -0.25]  # s3 = -1, H[3] = + - - +
    assert m[15][15] == -0.25  # s15 = -1, popcount(15) = 4
    assert m[11][0] == 0.25 and m[10][0] == -0.25
    # diag(s) H H^T diag(s) / 16 = I  (exact in fp32)
    assert np.array_equal(m @ m.T, np.eye(16, dtype=np.float32))


def test_hadamard_one_hot_and_order():
    m = R.hadamard16_matrix()
    eye = np.eye(16, dtype=np.float32)
    assert np.array_equal(R.apply_hadamard(eye), m)
    # Summation order: column 0 has M[i][0] = s_i / 4.  x0 = 2^26 gives
    # acc = 2^24; the 14 terms +0.25 are each lost (ulp(2^24) = 2);
    # x15 = 2^26 with s15 = -1 gives -2^24: the sequential result is 0,
    # whereas the exact sum is 3.5.
    s = R.HADAMARD_SIGNS
    x = s.copy()
    x[0] = 2.0 ** 26
    x[15] = 2.0 ** 26
    y = R.apply_hadamard(x[None, :])
    assert y[0, 0] == 0.0
    assert y.dtype == np.float32
    # chunks are independent along the last dim
    z = np.concatenate([eye[3], eye[5]])[None, :]
    assert np.array_equal(R.apply_hadamard(z)[0], np.concatenate([m[3], m[5]]))


def _plain_hadamard(x):
    # The plain order: fp32(x_i * M[i][j]) summed in increasing i.
    m = R.hadamard16_matrix()
    xs = x.reshape(-1, 16)
    with np.errstate(over="ignore", invalid="ignore"):
        acc = xs[:, 0:1] * m[0]
        for i in range(1, 16):
            acc = acc + xs[:, i:i + 1] * m[i]
    return acc.reshape(x.shape)


def test_hadamard_near_the_bf16_maximum_stays_finite():
    # Rows of +-bf16 max (0x7F7F) and a few smaller values: the transform's
    # value, exactly (fp64) and rounded to fp32, then to bf16 (overflow to
    # +-Inf only where it exceeds fp32). The plain order's partial sums
    # overflowed on such rows where the transform is finite.
    big = R.bf16_bits_to_f32(np.uint16(0x7F7F))
    rng = np.random.default_rng(7)
    rows = [np.full(16, big), -np.full(16, big) * R.HADAMARD_SIGNS,
            np.where(rng.random(16) < 0.5, big, -big)]
    for _ in range(5):
        r = np.where(rng.random(16) < 0.5, big, -big)
        r[rng.integers(0, 16, 4)] = rng.normal(size=4) * 1e30
        rows.append(r)
    x = R.round_to_dtype(np.array(rows, np.float32), "bf16")
    bits = R.f32_to_bf16_bits(x)
    exact = x.astype(np.float64) @ R.hadamard16_matrix().astype(np.float64)
    got = R.apply_hadamard(bits)
    # The pure +-max rows: every partial sum is a multiple of max / 16, exact.
    with np.errstate(over="ignore"):
        want = R.round_to_dtype(exact[:3].astype(np.float32), "bf16")
    assert np.array_equal(got[:3].view(np.uint32), want.view(np.uint32))
    # Every row: finite wherever the transform is (safely) within bf16.
    assert np.isfinite(got[np.abs(exact) < 3.3e38]).all()
    # Row 1 is -max * s: the sign flips make it constant, so the transform
    # is -4 max (beyond fp32: -Inf) in column 0 and exactly 0 elsewhere,
    # where the plain order's partial sums overflowed.
    assert got[1, 0] == -np.inf and (got[1, 1:] == 0).all()
    assert not np.isfinite(_plain_hadamard(x)[1, 1:]).all()


def test_hadamard_is_the_plain_order_where_nothing_overflows():
    # The scaled order (terms x_i / 16, then x4) gives the plain order's bits
    # on bf16, f16 and f32 inputs away from overflow, subnormals included.
    x = R.make_test_tensor((64, 128), seed=21)
    for dtype in ("bf16", "f16", "f32"):
        xd = R.round_to_dtype(x, dtype)
        assert np.isfinite(xd).all()
        want = R.round_to_dtype(_plain_hadamard(xd), dtype)
        got = R.apply_hadamard(xd, dtype)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), dtype
    tiny = (R.make_test_tensor((8, 64), seed=22) * np.float32(2.0 ** -120)).astype(np.float32)
    tiny_bf16 = R.round_to_dtype(tiny, "bf16")
    want = R.round_to_dtype(_plain_hadamard(tiny_bf16), "bf16")
    assert np.array_equal(R.apply_hadamard(tiny_bf16, "bf16").view(np.uint32),
                          want.view(np.uint32))


def test_quantize_hadamard_is_transform_first():
    x = R.make_test_tensor((32, 64), seed=3)
    a = R.quantize_nvfp4(x, hadamard=True)
    b = R.quantize_nvfp4(R.apply_hadamard(x))
    for u, v in zip(a, b):
        assert np.array_equal(u, v)


def _rht_chunk(a, b, c):
    # x_0..x_2 = a, b, c, the rest 0.  M[0][j] = 1/4, M[1][j] = (-1)^j / 4,
    # M[2][j] = (-1)^(j>>1 & 1) / 4 (s_0 = s_1 = s_2 = 1), so the transform
    # repeats with period 4: (a+b+c, a-b+c, a+b-c, a-b-c) / 4.  Every partial
    # sum is exact in fp32 for these inputs.
    x = np.zeros((1, 16), np.float32)
    x[0, :3] = [a, b, c]
    return x


def test_hadamard_rounds_bf16_input_to_bf16():
    # (22, 1.96875, 0.03125), all exact in bf16:
    #   j%4 = 0: 24/4 = 6;  1: 20.0625/4 = 5.015625;  2: 23.9375/4 = 5.984375;
    #   3: 20/4 = 5.
    # bf16 keeps 8 significant bits: the ulp in [4, 8) is 2^-5, so
    #   5.015625 = 5 + 2^-6 is a tie -> 5.0 (even), 5.984375 = 6 - 2^-6 -> 6.0.
    x = _rht_chunk(22.0, 1.96875, 0.03125)
    bits = R.f32_to_bf16_bits(x)
    assert np.array_equal(R.bf16_bits_to_f32(bits), x)
    want = np.tile(np.float32([6.0, 5.0, 6.0, 5.0]), 4)
    assert np.array_equal(R.apply_hadamard(bits)[0], want)
    assert np.array_equal(R.apply_hadamard(x, "bf16")[0], want)
    # Quantized with amax = 2688 (S_enc = S_dec = 1): block amax 6 ->
    # sf = e4m3(6 * fp32(1/6) = 1.0000000298 -> 1.0) = 0x38, enc_b = 1, so the
    # codes are e2m1 of the transformed values: 6 -> 7, 5 -> 6 (tie to 4).
    # Unrounded, 5.015625 would give 7 and 5.984375 7.
    q, s, d = R.quantize_nvfp4(bits, hadamard=True, amax=2688.0)
    assert d == 1.0 and (s == 0x38).all()
    assert R.unpack_fp4(q)[0].tolist() == [7, 6, 7, 6] * 4
    # MXFP4 (two such chunks): amax_b 6 -> v = fp32(6 * fp32(1/6)) = 1.0
    # exactly -> code 127 (scale 1): the same codes.
    q, s = R.quantize_mxfp4(np.tile(bits, 2), hadamard=True)
    assert s.tolist() == [[127]]
    assert R.unpack_fp4(q)[0].tolist() == [7, 6, 7, 6] * 8


def test_hadamard_rounds_f16_input_to_f16():
    # (22, 1.99609375, 2^-8), exact in f16 (11 significant bits):
    #   j%4 = 0: 24/4 = 6;  1: 20.0078125/4 = 5 + 2^-9;  2: 6 - 2^-9;  3: 5.
    # The f16 ulp in [4, 8) is 2^-8: both 5 + 2^-9 and 6 - 2^-9 are ties
    # -> 5.0 and 6.0 (even mantissas).
    x = _rht_chunk(22.0, 1.99609375, 2.0 ** -8)
    h = x.astype(np.float16)
    assert np.array_equal(h.astype(np.float32), x)
    assert np.array_equal(R.apply_hadamard(h)[0], np.tile(np.float32([6, 5, 6, 5]), 4))
    q, s, d = R.quantize_nvfp4(h, hadamard=True, amax=2688.0)
    assert d == 1.0 and (s == 0x38).all()
    assert R.unpack_fp4(q)[0].tolist() == [7, 6, 7, 6] * 4


def test_hadamard_keeps_fp32_for_f32_input():
    # The same chunk as f32 keeps 5.015625 and 5.984375 (TE's fp32 order).
    x = _rht_chunk(22.0, 1.96875, 0.03125)
    assert np.array_equal(R.apply_hadamard(x)[0],
                          np.tile(np.float32([6.0, 5.015625, 5.984375, 5.0]), 4))
    q, s, d = R.quantize_nvfp4(x, hadamard=True, amax=2688.0)
    assert R.unpack_fp4(q)[0].tolist() == [7, 7, 7, 6] * 4


def test_hadamard_rounded_amax_sets_s_dec():
    # (22, 2, 0.0625) in bf16: 6.015625, 5.015625, 5.984375, 4.984375, which
    # bf16 rounds (ties to even) to 6, 5, 6, 5.  amax is taken after the
    # rounding: 6 -> S_enc = 2688/6 = 448, S_dec = fp32(1/448) = 0x3B124925
    # (fp32 input: amax 6.015625 gives another S_dec); block scale 448 (0x7E).
    x = _rht_chunk(22.0, 2.0, 0.0625)
    q, s, d = R.quantize_nvfp4(R.f32_to_bf16_bits(x), hadamard=True)
    assert bits_of(d) == 0x3B124925 and s.tolist() == [[0x7E]]
    _, _, d32 = R.quantize_nvfp4(x, hadamard=True)
    assert bits_of(d32) != 0x3B124925


def test_round_to_dtype_specials():
    v = np.float32([65520.0, 65519.0, -1e6, 2.0 ** -25, 3 * 2.0 ** -26, np.nan, 3.4e38])
    h = R.round_to_dtype(v, "f16")
    # f16: 65520 is the tie above 65504 -> Inf; 2^-25 is a tie with 0 -> 0;
    # 3*2^-26 -> 2^-24 (smallest subnormal).
    assert h[0] == np.inf and h[1] == 65504.0 and h[2] == -np.inf
    assert h[3] == 0.0 and h[4] == 2.0 ** -24 and np.isnan(h[5]) and h[6] == np.inf
    b = R.round_to_dtype(v, "bf16")
    assert b[0] == 65536.0 and b[6] == np.inf and np.isnan(b[5])
    assert np.array_equal(R.round_to_dtype(v, "f32"), v, equal_nan=True)
    assert R.input_dtype(np.zeros(2, np.uint16)) == "bf16"
    assert R.input_dtype({"bf16": np.zeros(2, np.uint16)}) == "bf16"
    assert R.input_dtype(np.zeros(2, np.float16)) == "f16"
    assert R.input_dtype(np.zeros(2, np.float32)) == "f32"


# ---------------------------------------------------------------------------
# NVFP4 quantize: hand-computed blocks
# ---------------------------------------------------------------------------

def test_nvfp4_hand_block():
    # Global amax 12: S_enc = 2688/12 = 224 exactly.  fp32(1/6) = 11184811*2^-26;
    # 224*that = 2505397664*2^-26 -> fp32 9786710*2^-18 = 37.33333588.
    # Block 0 (amax 6): 6*37.33333588 = 224.0000153 -> E4M3 224 = 0x76.
    # S_dec = fp32(1/224) = 0x3B924925; 224*S_dec = 1.0000000447 -> 1.0, enc = 1.
    # Block 1 (amax 12): 448.00003 -> 448 = 0x7E; 448*S_dec -> 2.0, enc = 0.5.
    # Block 2 (amax 0.0003): 0.0003*37.33 = 0.0112 = 5.73*2^-9 -> 0x06 (subnormal).
    #   enc = 1/(6*2^-9/224) ~ 19114.7: 0.0003 -> 5.73 -> 6; 0.00015 -> 2.87 -> 3;
    #   -0.0001 -> -1.91 -> -2.
    x = np.zeros((1, 48), np.float32)
    x[0, :16] = [6, -6, 3, 1.5, 0.5, 0.25, 0.75, 5, 2.5, 3.5, -1, -4, 0, -0.0, 1.25, 1.75]
    x[0, 16] = 12.0
    x[0, 32:35] = [0.0003, 0.00015, -0.0001]
    q, s, d = R.quantize_nvfp4(x)
    assert isinstance(d, np.float32) and bits_of(d) == 0x3B924925
    assert s.dtype == np.uint8 and s.tolist() == [[0x76, 0x7E, 0x06]]
    assert q.dtype == np.uint8 and q.shape == (1, 24)
    assert q[0, :8].tolist() == [0xF7, 0x35, 0x01, 0x62, 0x64, 0xEA, 0x80, 0x42]
    assert q[0, 8:16].tolist() == [0x07] + [0] * 7
    assert q[0, 16:24].tolist() == [0x57, 0x0C] + [0] * 6
    # dequantize: e2m1 * sf * S_dec
    xh = R.dequantize(q, s, d)
    assert xh.dtype == np.float32
    assert xh[0, 0] == np.float32(np.float32(6 * 224) * np.float32(1 / 224))
    assert abs(xh[0, 16] - 12.0) < 1e-5
    assert abs(xh[0, 32] / (6 * 6 * 2.0 ** -9 / 224) - 1) < 1e-6


def test_nvfp4_amax_zero():
    q, s, d = R.quantize_nvfp4(np.zeros((3, 48), np.float32))
    assert d == 1.0 and (s == 0).all() and (q == 0).all() and q.shape == (3, 24)
    # -0.0 everywhere: amax 0, sf 0, enc = FLT_MAX, v = -0.0 -> code 8
    q, s, d = R.quantize_nvfp4(np.full((2, 16), -0.0, np.float32))
    assert d == 1.0 and (s == 0).all() and (q == 0x88).all()


def test_nvfp4_all_nan():
    q, s, d = R.quantize_nvfp4(np.full((16, 32), np.nan, np.float32))
    assert d == 1.0 and (s == 0).all() and (q == 0x77).all()


def test_nvfp4_inf_inputs():
    # amax = Inf -> 2688/Inf = 0 -> S_enc = 1, S_dec = 1.
    # Block 0: amax_b = Inf -> E4M3 satfinite 448 (0x7E), enc = fp32(1/448):
    #   Inf -> 7, -Inf -> 15, 1.0/448 -> 0, NaN -> 7.
    # Block 1: amax_b 6 -> 6*fp32(1/6) = 1.0 -> 0x38, enc 1: 6 -> 7, 3 -> 5.
    x = np.zeros((2, 32), np.float32)
    x[0, :4] = [np.inf, -np.inf, 1.0, np.nan]
    x[0, 16:18] = [6.0, 3.0]
    q, s, d = R.quantize_nvfp4(x)
    assert d == 1.0
    assert s.tolist() == [[0x7E, 0x38], [0, 0]]
    codes = R.unpack_fp4(q)
    assert codes[0, :4].tolist() == [7, 15, 0, 7]
    assert codes[0, 16:18].tolist() == [7, 5]
    assert (codes[1] == 0).all()


def test_nvfp4_global_scales():
    s, d = R.nvfp4_global_scales(f32([12.0, 0.0, np.inf, 2688.0, 1e-45, 6.0]))
    assert s.tolist() == [224.0, 1.0, 1.0, 1.0, float(np.finfo(np.float32).max), 448.0]
    assert bits_of(d[0]) == 0x3B924925 and bits_of(d[5]) == 0x3B124925
    s, d = R.nvfp4_global_scales(f32(6.0), e4m3_max=256)
    assert s == 256.0 and bits_of(d) == 0x3B800000
    # four_over_six reports fp32(amax / C), no guards: 10/2688 = 0x3B73CF3D
    # (fp32(1/fp32(2688/10)) = 0x3B73CF3E), 0 -> 0, Inf -> Inf.
    d = R.four_over_six_decode_scale(f32([10.0, 0.0, np.inf, 6.0]))
    assert [bits_of(v) for v in d[:2]] == [0x3B73CF3D, 0] and d[2] == np.inf
    assert bits_of(R.four_over_six_decode_scale(f32(6.0), e4m3_max=256)) == 0x3B800000
    with pytest.raises(ValueError):
        R.four_over_six_decode_scale(f32(6.0), e4m3_max=240)


def test_nvfp4_caller_amax_and_batch():
    # batch 0: amax 12 -> S_dec = fp32(1/224); blocks amax 12, 3.
    #   block amax 3: 3*37.33333588 = 112.0000076 -> E4M3 112 = 0x6E.
    # batch 1: amax 6 -> S_enc = 448, S_dec = fp32(1/448) = 0x3B124925;
    #   fp32(448*fp32(1/6)) = 74.66666889; block amax 6 -> 448 (0x7E),
    #   block amax 3 -> 224.0000067 -> 224 (0x76)  (0x6E if amax were shared).
    x = np.zeros((2, 1, 32), np.float32)
    x[0, 0, 0], x[0, 0, 16] = 12.0, 3.0
    x[1, 0, 0], x[1, 0, 16] = 6.0, 3.0
    q, s, d = R.quantize_nvfp4(x)
    assert d.dtype == np.float32 and d.shape == (2,)
    assert [bits_of(v) for v in d] == [0x3B924925, 0x3B124925]
    assert s.tolist() == [[[0x7E, 0x6E]], [[0x7E, 0x76]]]
    # caller amax, per batch entry and scalar
    _, s2, d2 = R.quantize_nvfp4(x, amax=f32([2688.0, 2688.0]))
    assert d2.tolist() == [1.0, 1.0]
    # 12*fp32(1/6) = 2.0000000596 -> 2.0 = 0x40 ; 3*fp32(1/6) -> 0.5 = 0x30
    assert s2.tolist() == [[[0x40, 0x30]], [[0x38, 0x30]]]
    _, s3, d3 = R.quantize_nvfp4(x, amax=2688.0)
    assert np.array_equal(s3, s2) and np.array_equal(d3, d2)


# ---------------------------------------------------------------------------
# Given (calibrated) global scales: encode_scale / decode_scale
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("opts", [
    dict(),
    dict(block=(16, 16)),
    dict(rounding="stochastic", seed=5),
    dict(hadamard=True),
    dict(swizzle=True),
])
@pytest.mark.parametrize("shape", [(48, 64), (3, 20, 32)])
def test_given_encode_scale_is_the_amax_path(shape, opts):
    # encode_scale = the S_enc the amax path derives (step 2, guards
    # included: the zero batch entry's S_enc is 1) gives the same bits:
    # steps 3-5 only see S_enc and S_dec = fl(1/S_enc) either way.
    bits, _ = R.make_test_tensor(shape, seed=21, dtype="bf16")
    if len(shape) == 3:
        bits[1] = 0
    xf = R.to_f32(bits)
    if opts.get("hadamard"):
        xf = R.apply_hadamard(xf, "bf16")
    amax = np.nanmax(np.abs(xf).reshape(xf.shape[:-2] + (-1,)), axis=-1)
    s_enc, _ = R.nvfp4_global_scales(amax)
    want = R.quantize_nvfp4(bits, **opts)
    got = R.quantize_nvfp4(bits, encode_scale=s_enc, **opts)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(np.atleast_1d(g).view(np.uint8), np.atleast_1d(w).view(np.uint8))
    if len(shape) == 3:
        assert s_enc[1] == 1.0


def test_given_decode_scale_is_used_as_given():
    # A ModelOpt input_scale d is S_dec itself; S_enc = fl(1/d). Recomputing
    # S_dec from that S_enc (fl(1/fl(1/d))) is not d for some d: find one.
    d = next(c for c in (F32(k) * F32(1e-4) for k in range(1, 200))
             if F32(1) / (F32(1) / c) != c)
    s_enc = F32(1) / d
    d_rt = F32(1) / s_enc
    assert d_rt != d
    # An E4M3 block scale sf whose enc_b = fl(1 / fl(sf * S_dec)) differs
    # between S_dec = d and S_dec = d_rt, a block amax m that gets it, and
    # a probe element x whose code differs between the two enc_b.
    sfv = R.e4m3_decode(np.arange(0x08, 0x7F, dtype=np.uint8))
    enc_d = np.fmin(F32(1) / (sfv * d), R.FLT_MAX)
    enc_rt = np.fmin(F32(1) / (sfv * d_rt), R.FLT_MAX)
    i = int(np.flatnonzero(enc_d != enc_rt)[0])
    m = F32(sfv[i] / (s_enc * R.ONE_SIXTH))
    x0 = F32(F32(2.5) / enc_d[i])
    probes = [F32(x0 + F32(k) * np.spacing(x0)) for k in range(-16, 17)]
    x = next(p for p in probes
             if R.e2m1_encode_rne(f32([p * enc_d[i]]))[0]
             != R.e2m1_encode_rne(f32([p * enc_rt[i]]))[0])
    blk = np.zeros((2, 16), np.float32)
    blk[0, :2] = [m, x]
    blk[1, :3] = [m, -x, F32(0.5) * m]
    q, s, sd = R.quantize_nvfp4(blk, decode_scale=d)
    # The decode scale reported is d, bit for bit.
    assert isinstance(sd, np.float32) and bits_of(sd) == bits_of(d)
    # Block scales: e4m3(m * fl(S_enc * fl(1/6))) with S_enc = fl(1/d) -> sf.
    assert s.tolist() == [[0x08 + i], [0x08 + i]]
    # Codes: e2m1(fl(x_i * enc_b)) with enc_b from S_dec = d.
    codes = R.unpack_fp4(q)
    want = R.e2m1_encode_rne((blk * enc_d[i]).astype(np.float32))
    assert np.array_equal(codes, want)
    # Recomputing S_dec from S_enc (the encode_scale path with fl(1/d)):
    # same block scales, another decode scale, another code for x.
    q2, s2, sd2 = R.quantize_nvfp4(blk, encode_scale=s_enc)
    assert np.array_equal(s2, s) and bits_of(sd2) == bits_of(d_rt)
    codes2 = R.unpack_fp4(q2)
    assert codes2[0, 1] != codes[0, 1] and codes2[1, 1] != codes[1, 1]
    assert np.array_equal(codes2[:, 0], codes[:, 0])


def test_given_scales_hand_blocks():
    # encode_scale 2: S_enc = 2, S_dec = fl(1/2) = 0.5 exactly.  fl(1/6) =
    # 11184811*2^-26, times 2: 11184811*2^-25 (exact).
    #   Block 0 (amax_b 3): 3*11184811*2^-25 = 1 + 2^-25 -> fp32 1.0 (a quarter
    #   ulp above 1) -> E4M3 1.0 = 0x38; enc = fl(1/fl(1*0.5)) = 2.
    #   x*2: 6, -3, 1.5, 0.6, 2.5, 0, -0, 5.8 -> codes 7, 13, 3, 1, 4 (tie to
    #   even), 0, 8, 7.
    #   Block 1 (amax_b 0.001): 0.001*0.33333334 = 3.3333e-4 = 0.1707*2^-9
    #   -> E4M3 0 (below 2^-10); enc = fl(1/0) = Inf -> FLT_MAX: 0.001 ->
    #   3.4e35 -> 7, -0.0005 -> 15.
    x = np.zeros((1, 32), np.float32)
    x[0, :8] = [3.0, -1.5, 0.75, 0.3, 1.25, 0.0, -0.0, 2.9]
    x[0, 16:18] = [0.001, -0.0005]
    q, s, d = R.quantize_nvfp4(x, encode_scale=2.0)
    assert isinstance(d, np.float32) and d == 0.5
    assert s.tolist() == [[0x38, 0x00]]
    assert R.unpack_fp4(q)[0].tolist() == [7, 13, 3, 1, 4, 0, 8, 7] + [0] * 8 + \
        [7, 15] + [0] * 14
    # decode_scale 0.25: S_dec = 0.25, S_enc = fl(1/0.25) = 4; 4*fl(1/6) =
    # 11184811*2^-24.  Block amax_b 1.5: 1.5 * that = 1 + 2^-25 -> 1.0 ->
    # 0x38; enc = 1/(1*0.25) = 4: 1.5 -> 6 (7), 0.1 -> 0.4 (1), -0.7 ->
    # -2.8 (-3: 13), 0.0625 -> 0.25 (0, tie to even).
    x = np.zeros((1, 16), np.float32)
    x[0, :4] = [1.5, 0.1, -0.7, 0.0625]
    q, s, d = R.quantize_nvfp4(x, decode_scale=0.25)
    assert d == 0.25 and s.tolist() == [[0x38]]
    assert R.unpack_fp4(q)[0, :4].tolist() == [7, 1, 13, 0]
    # Per batch entry: entry b uses its own scale (2, then 0.5: S_dec 2,
    # sf = e4m3(3 * fl(0.5 * fl(1/6))) = e4m3(0.25000000745) = 0x28 (0.25),
    # enc = fl(1/(0.25*2)) = 2 again).
    xb = np.zeros((2, 1, 16), np.float32)
    xb[:, 0, 0] = 3.0
    q, s, d = R.quantize_nvfp4(xb, encode_scale=f32([2.0, 0.5]))
    assert d.tolist() == [0.5, 2.0] and s.tolist() == [[[0x38]], [[0x28]]]
    assert R.unpack_fp4(q)[:, 0, 0].tolist() == [7, 7]


def test_given_scales_edge_values():
    # docs/spec.md 2.2: the scale is used as given, no guard.
    x = np.zeros((1, 48), np.float32)
    x[0, :3] = [1.0, 1e-39, -0.0]   # block 0: amax_b 1
    x[0, 16] = np.inf               # block 1: amax_b Inf
    # block 2: all zero
    fmax_codes = [7, 1, 8]  # 1*FLT_MAX -> 6; 1e-39*FLT_MAX = 0.34 -> 0.5; -0 -> -0
    # e = +0: S_dec = +Inf; sf = e4m3(amax_b * 0) = 0, Inf*0 = NaN -> 0x7F;
    # fl(sf * Inf) is NaN (0*Inf, NaN*Inf) -> enc = FLT_MAX everywhere.
    q, s, d = R.quantize_nvfp4(x, encode_scale=0.0)
    assert d == np.inf and s.tolist() == [[0x00, 0x7F, 0x00]]
    codes = R.unpack_fp4(q)[0]
    assert codes[:3].tolist() == fmax_codes and codes[16] == 7
    # d = +Inf is the same S_enc = fl(1/Inf) = 0; the reported S_dec is Inf.
    q2, s2, d2 = R.quantize_nvfp4(x, decode_scale=np.inf)
    assert np.array_equal(q2, q) and np.array_equal(s2, s) and d2 == np.inf
    # e = -0: S_dec = -Inf, block scales -0 (0x80) where they were 0.
    q, s, d = R.quantize_nvfp4(x, encode_scale=-0.0)
    assert d == -np.inf and s.tolist() == [[0x80, 0x7F, 0x80]]
    assert R.unpack_fp4(q)[0, :3].tolist() == fmax_codes
    # e = +Inf: S_dec = +0; amax_b > 0 -> Inf -> 448 (0x7E), zero block
    # 0*Inf = NaN -> 0x7F; fl(448*0) = 0 -> enc = fminf(Inf, FLT_MAX).
    for q, s, d in (R.quantize_nvfp4(x, encode_scale=np.inf),
                    R.quantize_nvfp4(x, decode_scale=0.0)):
        assert bits_of(d) == 0 and s.tolist() == [[0x7E, 0x7E, 0x7F]]
        assert R.unpack_fp4(q)[0, :3].tolist() == fmax_codes
    # NaN: every block scale 0x7F, enc = FLT_MAX, the decode scale NaN (d
    # itself when given as decode_scale).
    for q, s, d in (R.quantize_nvfp4(x, encode_scale=np.nan),
                    R.quantize_nvfp4(x, decode_scale=NEG_NAN)):
        assert np.isnan(d) and s.tolist() == [[0x7F, 0x7F, 0x7F]]
        assert R.unpack_fp4(q)[0, :3].tolist() == fmax_codes
    assert bits_of(R.quantize_nvfp4(x, decode_scale=NEG_NAN)[2]) == 0xFFC00000
    # Negative: the block scales carry the sign (0xB8 = -1.0), the codes are
    # those of |e| (sf * S_dec > 0).
    y = np.zeros((1, 16), np.float32)
    y[0, :3] = [3.0, -1.5, 0.75]
    qn, sn, dn = R.quantize_nvfp4(y, encode_scale=-2.0)
    qp, sp, dp = R.quantize_nvfp4(y, encode_scale=2.0)
    assert dn == -0.5 and sn.tolist() == [[0xB8]] and np.array_equal(qn, qp)
    assert np.array_equal(R.dequantize(qn, sn, dn), R.dequantize(qp, sp, dp))


def test_given_scale_argument_errors():
    x = np.ones((16, 32), np.float32)
    for kw in (dict(amax=1.0, encode_scale=1.0), dict(encode_scale=1.0, decode_scale=1.0),
               dict(amax=1.0, decode_scale=1.0)):
        with pytest.raises(ValueError, match="at most one"):
            R.quantize_nvfp4(x, **kw)
    with pytest.raises(ValueError, match="max6"):
        R.quantize_nvfp4(x, encode_scale=1.0, scale_rule="four_over_six")
    with pytest.raises(ValueError, match="row_scaled"):
        R.quantize_nvfp4(x, decode_scale=1.0, row_scaled=True)


def test_nvfp4_bf16_and_f16_inputs():
    x = R.make_test_tensor((16, 64), seed=11, dtype="bf16")
    bits, vals = x
    a = R.quantize_nvfp4(bits)
    b = R.quantize_nvfp4(vals)
    for u, v in zip(a, b):
        assert np.array_equal(u, v)
    h, vals = R.make_test_tensor((16, 64), seed=11, dtype="f16")
    for u, v in zip(R.quantize_nvfp4(h), R.quantize_nvfp4(vals)):
        assert np.array_equal(u, v)


# ---------------------------------------------------------------------------
# 2-D (16x16) blocks
# ---------------------------------------------------------------------------

def test_nvfp4_2d_blocks():
    # amax 2688 -> S_enc = S_dec = 1.  Tiles (rows 0-15 | 16-19) x (cols 0-15 | 16-31):
    #   (0,0): 6 at (5,3)    -> 6*fp32(1/6) = 1.0 -> 0x38, enc 1   -> code 7
    #   (0,1): 1.5 at (2,17) -> 0.25000000745 -> 0.25 = 0x28, enc 4 -> code 7
    #   (1,0): empty -> 0
    #   (1,1): 3 at (17,20)  -> 0.5 = 0x30, enc 2 -> code 7 (partial tile, 4 rows)
    x = np.zeros((20, 32), np.float32)
    x[5, 3], x[2, 17], x[17, 20] = 6.0, 1.5, 3.0
    x[9, 4] = 1.0  # in tile (0,0): scale 1 -> code 2
    q, s, d = R.quantize_nvfp4(x, block=(16, 16), amax=2688.0)
    expect = np.zeros((20, 2), np.uint8)
    expect[:16, 0], expect[:16, 1], expect[16:, 1] = 0x38, 0x28, 0x30
    assert np.array_equal(s, expect)
    codes = R.unpack_fp4(q)
    assert codes[5, 3] == 7 and codes[2, 17] == 7 and codes[17, 20] == 7 and codes[9, 4] == 2
    assert codes.sum() == 7 * 3 + 2
    # 1x16 blocks differ: row 9's block 0 gets its own scale
    _, s1, _ = R.quantize_nvfp4(x, amax=2688.0)
    assert s1[9, 0] != s1[5, 0] and s1[0, 0] == 0


def test_nvfp4_2d_repeats_scale():
    x = R.make_test_tensor((40, 64), seed=5)
    _, s, _ = R.quantize_nvfp4(x, block=(16, 16))
    for t in range(3):
        tile = s[16 * t:16 * (t + 1)]
        assert (tile == tile[0]).all()


# ---------------------------------------------------------------------------
# Four Over Six
# ---------------------------------------------------------------------------

def _four_six_input():
    # amax supplied 1536 with e4m3_max 256 -> C = 1536, S_enc = S_dec = 1, and
    # the error-domain values fp32(fp32(fp32(q * sf) * 1536) / 1536) = q * sf.
    x = np.zeros((4, 16), np.float32)
    x[0] = [6.0] + [5.0] * 15          # picks 4
    x[1, 0] = 6.0                        # tie (both exact) -> 6
    x[2] = [6.0, 5.0] + [1.1] * 14       # mse/mae -> 6, abs_max -> 4
    return x                             # row 3: zero block, tie -> 6


def _four_six(x, **kw):
    return R.quantize_nvfp4(x, scale_rule="four_over_six", e4m3_max=256, amax=1536.0, **kw)


def test_four_over_six_mse():
    # base = fp32(6/6) * 1 = 1: sf6 = 1.0 (0x38), enc 1: 5 -> 4 (tie to even), err 1 each.
    # sf4 = e4m3(1.5) (0x3C), enc = fp32(1/1.5) = 0.6666667:
    #   6 -> 4.0000002 -> 4 (xhat 6), 5 -> 3.3333335 -> 3 (xhat 4.5), err 0.5 each.
    # row 0: mse 15 vs 3.75 -> 4.  row 2: cand 6: 1 + 14*0.01 = 1.14; cand 4: 1.1 ->
    #   0.7333 -> 0.5 (xhat 0.75): 0.25 + 14*0.1225 = 1.965 -> 6.
    q, s, d = _four_six(_four_six_input(), error_metric="mse")
    assert d == 1.0
    assert s[:, 0].tolist() == [0x3C, 0x38, 0x38, 0x00]
    codes = R.unpack_fp4(q)
    assert codes[0].tolist() == [6] + [5] * 15
    assert codes[1].tolist() == [7] + [0] * 15
    assert codes[2].tolist() == [7, 6] + [2] * 14
    assert (codes[3] == 0).all()


def test_four_over_six_metrics():
    x = _four_six_input()
    _, s_mae, _ = _four_six(x, error_metric="mae")
    # mae row 2: 2.4 vs 5.4 -> 6
    assert s_mae[:, 0].tolist() == [0x3C, 0x38, 0x38, 0x00]
    assert np.array_equal(_four_six(x)[1], s_mae)  # mae is the default (TE's)
    q, s_max, _ = _four_six(x, error_metric="abs_max")
    # abs_max row 2: 1.0 vs 0.5 -> 4; codes 6 -> 4 (6), 5 -> 3 (5), 1.1 -> 0.5 (1)
    assert s_max[:, 0].tolist() == [0x3C, 0x38, 0x3C, 0x00]
    assert R.unpack_fp4(q)[2].tolist() == [6, 5] + [1] * 14


def test_four_over_six_near_ties():
    # Same setting (xhat = q * sf exactly).  Per element, (cand 6 error, cand 4 error):
    #   6      -> (0, 0)              1.75 -> 2 | 1.5:  (0.25, 0.25)
    #   4 + a  -> 4 | 4.5: (a, 0.5 - a)   4.5 - b -> 4 | 4.5: (0.5 - b, b)
    # (cand 4 codes: 4.5 - b -> 2.9999998 -> 3, 4 + a -> 2.6666675 -> 3.)
    # Row 0, a = b = 2^-21: mae 0.25 + 2^-21 + (0.5 - 2^-21) = 0.75 for both,
    #   mse 0.0625 + 2^-42 (lost) + fp32(0.25 - 2^-21 + 2^-42) = 0.3125 - 2^-21
    #   for both: exact ties -> 6 (0x38), codes 7, 4, 6, 6.
    # Row 1, a = 2^-20, b = 2^-21: mae 0.75 + 2^-21 vs 0.75 - 2^-21; mse
    #   0.3125 - 2^-21 vs 0.3125 - 2^-20: candidate 4 better by one or two
    #   ulp -> 4 (0x3C), codes 6, 2, 5, 5.
    x = np.zeros((2, 16), np.float32)
    x[0, :4] = [6.0, 1.75, 4.0 + 2.0 ** -21, 4.5 - 2.0 ** -21]
    x[1, :4] = [6.0, 1.75, 4.0 + 2.0 ** -20, 4.5 - 2.0 ** -21]
    for metric in ("mae", "mse"):
        q, s, d = _four_six(x, error_metric=metric)
        assert s[:, 0].tolist() == [0x38, 0x3C], metric
        assert R.unpack_fp4(q)[:, :4].tolist() == [[7, 4, 6, 6], [6, 2, 5, 5]], metric


def test_four_over_six_block_scale_order():
    # TE's base = fp32(fp32(amax_b / 6) * S_enc), not amax_b * fp32(S_enc * fp32(1/6)).
    # amax 10, e4m3_max 256: S_enc = fp32(1536/10) = 153.6000061; amax_b = 4.53125
    # (4.53125 * 1536 / 60 = 116 exactly, the E4M3 midpoint of 112 and 120):
    #   fp32(4.53125/6) = 0.7552083 (0.75520831 - 2e-8), * S_enc = 116.0000016
    #   -> 116.0 -> tie -> 112 (0x6E, even mantissa); the other order gives
    #   fp32(S_enc * fp32(1/6)) = 25.600002, * 4.53125 = 116.00001 -> 120.
    # sf4 = e4m3(174.0) = 176 (0x73).  S_dec = fp32(1/S_enc) = 0.0065104165:
    #   enc6 = 1.3714286: 4.53125 -> 6.214 -> 6, 2.1875 -> 3, 1.09375 -> 1.5;
    #   xhat = q * 112 * 10 / 1536 = 4.375, 2.1875, 1.09375: mae 0.15625;
    #   enc4 = 0.8727273: -> 4, 2, 1; xhat 4.5833335, 2.2916667, 1.1458334:
    #   mae 0.0520835 + 0.1041667 + 0.0520834 = 0.2083336 -> 6 (0x6E).
    x = np.zeros((1, 16), np.float32)
    x[0, :3] = [4.53125, 2.1875, 1.09375]
    q, s, d = R.quantize_nvfp4(x, scale_rule="four_over_six", e4m3_max=256, amax=10.0)
    assert s.tolist() == [[0x6E]]
    assert R.unpack_fp4(q)[0, :4].tolist() == [7, 5, 3, 0]
    assert bits_of(d) == bits_of(f32(10.0) / f32(1536.0))


def test_four_over_six_error_domain_tie():
    # The candidate errors are measured on fp32(fp32(fp32(q * sf) * amax) / C),
    # not on q * sf * S_dec.  amax 10, e4m3_max 448 (default): S_enc =
    # fp32(268.8) = 268.79999, S_dec = fp32(1/S_enc) = 0.0037202383.
    # Block [5, 4.625]: base = fp32(fp32(5/6) * S_enc) = 223.99998 -> sf6 = 224
    # (0x76), sf4 = e4m3(335.99997) = 320 (0x7A, 336 is the 320|352 tie).
    #   cand 6: enc 1.1999999: 5.9999995, 5.5499997 -> 6, 6; xhat =
    #     6 * 224 * 10 / 2688 = 5 exactly: errors 0, 0.375 -> 0.375.
    #   cand 4: enc 0.8399999: 4.2, 3.885 -> 4, 4; xhat = fp32(12800/2688) =
    #     4.7619047: errors 0.23809528, 0.13690472 (exact differences, whose
    #     sum is 5 - 4.625) -> 0.375.
    # An exact tie: 6 is kept.  (With xhat = q*sf*S_dec, cand 6 = 4.999999
    # gives 0.3750010 and candidate 4 would win.)  S_dec = fp32(10/2688).
    x = np.zeros((1, 16), np.float32)
    x[0, :2] = [5.0, 4.625]
    bits = R.f32_to_bf16_bits(x)
    q, s, d = R.quantize_nvfp4(bits, scale_rule="four_over_six", amax=10.0)
    assert s.tolist() == [[0x76]]
    assert R.unpack_fp4(q)[0, :3].tolist() == [7, 7, 0]
    assert bits_of(d) == 0x3B73CF3D


def test_four_over_six_16x16_tree_order():
    # 16x16 tile, xhat = q * sf exactly (as _four_six).  Row 0: fifteen 5.25
    # (cand 6: -> 6, cand 4: 3.5 -> 4 -> 6: error 0.75 for both) and one 6:
    # r0 = 11.25 for both.  Row 1: 4 + 2^-20 -> (2^-20, 0.5 - 2^-20);
    # row 2: 4.5 - 2^-21 -> (0.5 - 2^-21, 2^-21); other rows 0.  ulp(11.25) = 2^-20.
    # TE's tree: a_l = r_l + r_(l+8), b_l = a_l + a_(l+4), c_l = b_l + b_(l+2),
    # e = c_0 + c_1 = (r0 + r2) + r1 here:
    #   cand 6: (11.25 + (0.5 - 2^-21)) -> 11.75 (tie, even), + 2^-20 = 11.75 + 2^-20
    #   cand 4: (11.25 + 2^-21) -> 11.25 (tie, even), + (0.5 - 2^-20) = 11.75 - 2^-20
    # -> 4 (0x3C).  Row-major sequential sums would give 11.75 for both -> 6.
    x = np.zeros((16, 16), np.float32)
    x[0, :15] = 5.25
    x[0, 15] = 6.0
    x[1, 0] = 4.0 + 2.0 ** -20
    x[2, 0] = 4.5 - 2.0 ** -21
    q, s, d = _four_six(x, error_metric="mae", block=(16, 16))
    assert (s == 0x3C).all()
    codes = R.unpack_fp4(q)
    assert codes[0].tolist() == [6] * 16  # 5.25 -> 3.5 -> 4 (tie, even); 6 -> 4
    assert codes[1, 0] == 5 and codes[2, 0] == 5  # -> 3 (x 1.5 = 4.5)
    # Rows past the matrix count as 0: the same tile cut to 3 rows.
    _, s3, _ = _four_six(x[:3], error_metric="mae", block=(16, 16))
    assert (s3 == 0x3C).all()


def test_four_over_six_global_scale():
    # amax computed = 6.  e4m3_max 448 (default): S_enc = 448, S_dec = 6/2688 =
    # fp32(1/448) = 0x3B124925; base = fp32(fp32(6/6) * 448) = 448 (0x7E), and
    # sf4 = e4m3(672) saturates to 448 too: equal candidates -> 6.
    x = np.zeros((1, 16), np.float32)
    x[0, 0] = 6.0
    _, s, d = R.quantize_nvfp4(x, scale_rule="four_over_six")
    assert bits_of(d) == 0x3B124925 and s.tolist() == [[0x7E]]
    # e4m3_max 256: S_enc = 256, S_dec = 6/1536 = 2^-8; base 256 (0x78), sf4 384:
    # both exact (xhat 6) -> tie -> 6.
    _, s, d = R.quantize_nvfp4(x, scale_rule="four_over_six", e4m3_max=256)
    assert bits_of(d) == 0x3B800000 and s.tolist() == [[0x78]]


def test_four_over_six_decode_scale_is_amax_over_c():
    # S_dec = fp32(amax / C) without guards: an all-zero tensor reports 0 (max6
    # reports 1), and a caller amax of 0 makes every error-domain value 0.
    z = np.zeros((2, 32), np.float32)
    q, s, d = R.quantize_nvfp4(z, scale_rule="four_over_six")
    assert d == 0.0 and not s.any() and not q.any()
    assert R.quantize_nvfp4(z)[2] == 1.0
    x = R.make_test_tensor((32, 64), seed=4)
    for e in (448, 256):
        _, _, d = R.quantize_nvfp4(x, scale_rule="four_over_six", e4m3_max=e)
        assert bits_of(d) == bits_of(np.abs(x).max() / f32(6 * e))


def test_four_over_six_options_rejected():
    x = np.zeros((1, 16), np.float32)
    with pytest.raises(ValueError):
        R.quantize_nvfp4(x, scale_rule="four_over_six", e4m3_max=240)
    with pytest.raises(ValueError):
        R.quantize_nvfp4(x, e4m3_max=448)
    with pytest.raises(ValueError):
        R.quantize_nvfp4(x, error_metric="mae")


def test_four_over_six_2d_and_nan():
    x = R.make_test_tensor((48, 64), seed=21, kind="nonfinite")
    q, s, d = R.quantize_nvfp4(x, scale_rule="four_over_six", block=(16, 16))
    for t in range(3):
        assert (s[16 * t:16 * (t + 1)] == s[16 * t]).all()
    codes = R.unpack_fp4(q)
    assert codes[np.isnan(x)].tolist() == [7]


# ---------------------------------------------------------------------------
# MXFP4
# ---------------------------------------------------------------------------

MAX = float(np.finfo(np.float32).max)


def test_mx_scale_code_rceil():
    # v = fp32(amax * fp32(1/6)):
    #  6 -> 1.0000000298 -> 1.0 -> 127;  6.0001 -> 128;  12 -> 2.0 -> 128;
    #  12.0001 -> 129;  0.75 -> 0.125 -> 124;
    #  3*2^-126 -> 33554433*2^-152 -> subnormal mantissa 0x400000 (4194304.125) -> 0
    #  2^-125 -> mantissa 0x2AAAAB -> 0;  2^-124 -> 5592405.5 -> 0x555556 -> 1
    #  FLT_MAX/6 ~ 2^125.4 -> 253;  Inf -> 254
    a = f32([0.0, 6.0, 6.0001, 12.0, 12.0001, 0.75, 3 * 2.0 ** -126, 2.0 ** -125, 2.0 ** -124,
             MAX, np.inf])
    assert R.mx_scale_code_rceil(a).tolist() == [0, 127, 128, 128, 129, 124, 0, 0, 1, 253, 254]


def test_mx_scale_code_floor():
    a = f32([0.0, 6.0, 6.0001, 7.99, 8.0, 12.0, 0.75, 2.0 ** -125, 2.0 ** -124, 2.0 ** -130,
             MAX, np.inf])
    assert R.mx_scale_code_floor(a).tolist() == [0, 127, 127, 127, 128, 128, 124, 0, 1, 0,
                                                 252, 254]


def test_mxfp4_quantize_blocks():
    x = np.zeros((1, 96), np.float32)
    x[0, :6] = [12.0, -12.0, 5.0, 1.0, 0.5, -3.0]   # amax 12: code 128, scale 2
    x[0, 32:34] = [7.0, 3.0]                         # rceil 128 (scale 2), floor 127 (1)
    # block 2 all zero: code 0, data 0
    q, s = R.quantize_mxfp4(x)
    assert s.tolist() == [[128, 128, 0]]
    c = R.unpack_fp4(q)
    # 12/2=6 -> 7; -6 -> 15; 2.5 -> 4 (code 4); 0.5 -> 1; 0.25 -> 0; -1.5 -> 11
    assert c[0, :6].tolist() == [7, 15, 4, 1, 0, 11]
    # 3.5 -> 4 (code 6); 1.5 -> code 3
    assert c[0, 32:34].tolist() == [6, 3]
    assert (c[0, 64:] == 0).all()
    q, s = R.quantize_mxfp4(x, scale_rule="floor")
    assert s.tolist() == [[128, 127, 0]]
    c = R.unpack_fp4(q)
    assert c[0, 32:34].tolist() == [7, 5]  # 7 -> clipped to 6; 3 -> code 5
    xh = R.dequantize(q, s, fmt="mxfp4")
    assert xh[0, :2].tolist() == [12.0, -12.0] and xh[0, 32] == 6.0


def test_mxfp4_special_values():
    x = np.zeros((2, 32), np.float32)
    x[0, :3] = [np.inf, np.nan, 1.0]
    x[1, 0] = 2.0 ** -126 * 3    # tiny block: code 0 (scale 2^-127): 3*2^-126*2^127 = 6
    x[1, 1] = 2.0 ** -130        # -> 2^-3 -> 0
    q, s = R.quantize_mxfp4(x)
    assert s.tolist() == [[254], [0]]
    c = R.unpack_fp4(q)
    assert c[0, :3].tolist() == [7, 7, 0]
    assert c[1, :2].tolist() == [7, 0]


# ---------------------------------------------------------------------------
# Swizzled layout
# ---------------------------------------------------------------------------

def test_swizzle_offsets():
    cols = 7  # nkt = 2
    assert R.swizzle_offset(0, 0, cols) == 0
    assert R.swizzle_offset(0, 3, cols) == 3
    assert R.swizzle_offset(1, 0, cols) == 16
    assert R.swizzle_offset(31, 0, cols) == 496
    assert R.swizzle_offset(32, 0, cols) == 4
    assert R.swizzle_offset(127, 3, cols) == 511
    assert R.swizzle_offset(128, 0, cols) == 2 * 512
    assert R.swizzle_offset(0, 4, cols) == 512
    assert R.swizzle_offset(199, 6, cols) == (1 * 2 + 1) * 512 + (199 % 32) * 16 + 2 * 4 + 2


def test_swizzle_padding_and_roundtrip():
    rows, cols = 200, 7
    rng = np.random.default_rng(0)
    s = rng.integers(1, 256, (rows, cols)).astype(np.uint8)
    sw = R.swizzle_scales(s)
    assert sw.shape == (2, 2, 32, 4, 4) and sw.dtype == np.uint8
    flat = sw.reshape(-1)
    used = np.zeros(flat.size, bool)
    for r in range(rows):
        for c in range(cols):
            off = R.swizzle_offset(r, c, cols)
            assert flat[off] == s[r, c]
            used[off] = True
    assert used.sum() == rows * cols
    assert (flat[~used] == 0).all()  # every pad byte is zero
    assert np.array_equal(R.unswizzle_scales(sw, rows, cols), s)
    # batched
    sb = rng.integers(0, 256, (3, 130, 5)).astype(np.uint8)
    swb = R.swizzle_scales(sb)
    assert swb.shape == (3, 2, 2, 32, 4, 4)
    assert np.array_equal(swb[1], R.swizzle_scales(sb[1]))
    assert np.array_equal(R.unswizzle_scales(swb, 130, 5), sb)


def test_quantize_swizzle_flag():
    x = R.make_test_tensor((157, 48), seed=2)
    q, s, d = R.quantize_nvfp4(x)
    q2, s2, d2 = R.quantize_nvfp4(x, swizzle=True)
    assert np.array_equal(q, q2) and d == d2
    assert np.array_equal(s2, R.swizzle_scales(s))
    assert np.array_equal(R.dequantize(q2, s2, d2, swizzled=True, rows=157, cols=3),
                          R.dequantize(q, s, d))
    qm, sm = R.quantize_mxfp4(x[:, :32].copy(), swizzle=True)
    assert sm.shape == (2, 1, 32, 4, 4)


# ---------------------------------------------------------------------------
# Matmul references
# ---------------------------------------------------------------------------

def _hand_operands():
    # A row0 = 1.0 x16 (code 2, sf 1.0 = 0x38); row1 = [6, -0.5, 0..] with sf 2.0 (0x40)
    # B row0 = 0.5 x16 (code 1, sf 1.0);        row1 = [1, 1, 0..] with sf 0.5 (0x30)
    # Ahat row1 = [12, -1, 0..], Bhat row1 = [0.5, 0.5, 0..]
    a = np.zeros((2, 16), np.uint8)
    a[0] = 2
    a[1, :2] = [7, 9]
    b = np.zeros((2, 16), np.uint8)
    b[0] = 1
    b[1, :2] = [2, 2]
    a_s = np.array([[0x38], [0x40]], np.uint8)
    b_s = np.array([[0x38], [0x30]], np.uint8)
    return R.pack_fp4(a), a_s, R.pack_fp4(b), b_s


def test_matmul_reference_hand():
    a_q, a_s, b_q, b_s = _hand_operands()
    # C = [[16*0.5, 1], [(12-1)*0.5, 12*0.5 - 0.5]] = [[8, 1], [5.5, 5.5]]
    c = R.matmul_reference(a_q, a_s, b_q, b_s, alpha=0.5)
    assert c.dtype == np.float64
    assert c.tolist() == [[4.0, 0.5], [2.75, 2.75]]
    c = R.matmul_reference(a_q, a_s, b_q, b_s, alpha=0.5, beta=2.0,
                           c_in=np.array([[1, 2], [3, 4]], np.float32))
    assert c.tolist() == [[6.0, 4.5], [8.75, 10.75]]
    c = R.matmul_reference(a_q, R.swizzle_scales(a_s), b_q, R.swizzle_scales(b_s),
                           alpha=0.5, swizzled=True)
    assert c.tolist() == [[4.0, 0.5], [2.75, 2.75]]


def test_matmul_reference_mxfp4_hand():
    # K = 32: A = [1.0]*32 (code 2) with scale 2^1 (128); B = [0.5]*32 (code 1) scale 1 (127)
    a_q = R.pack_fp4(np.full((1, 32), 2, np.uint8))
    b_q = R.pack_fp4(np.full((1, 32), 1, np.uint8))
    c = R.matmul_reference(a_q, np.array([[128]], np.uint8), b_q, np.array([[127]], np.uint8),
                           fmt="mxfp4")
    assert c.tolist() == [[32.0]]


def test_matmul_reference_roundtrip_quantized():
    a = R.make_test_tensor((64, 64), seed=1)
    b = R.make_test_tensor((48, 64), seed=2)
    aq, as_, ad = R.quantize_nvfp4(a)
    bq, bs, bd = R.quantize_nvfp4(b)
    c = R.matmul_reference(aq, as_, bq, bs, alpha=np.float64(ad) * np.float64(bd))
    ref = R.dequantize(aq, as_, ad).astype(np.float64) @ R.dequantize(bq, bs, bd).astype(
        np.float64).T
    assert R.is_close(c, ref).all()


def test_grouped_independent():
    a_q, a_s, b_q, b_s = _hand_operands()
    one = R.pack_fp4(np.full((1, 16), 2, np.uint8))
    sc = np.array([[0x38]], np.uint8)
    out = R.grouped_matmul_independent([(a_q, a_s, b_q, b_s, 0.5), (one, sc, one, sc, 3.0)])
    assert out[0].tolist() == [[4.0, 0.5], [2.75, 2.75]]
    assert out[1].tolist() == [[48.0]]
    out = R.grouped_matmul_independent([(one, sc, one, sc, 1.0)], beta=1.0,
                                       c_in=[np.array([[1.0]])])
    assert out[0].tolist() == [[17.0]]


def _contig_operands():
    # group 0: row 0 = 1.0 x16; group 1: row 1 = 0.5 x16, row 2 = [6, 0..]
    a = np.zeros((3, 16), np.uint8)
    a[0], a[1], a[2, 0] = 2, 1, 7
    a_s = np.full((3, 1), 0x38, np.uint8)
    b = np.full((2, 1, 16), 2, np.uint8)       # B[g] = 1.0 x16 (N = 1)
    b_s = np.array([[[0x38]], [[0x40]]], np.uint8)  # B[1] scale 2
    return R.pack_fp4(a), a_s, R.pack_fp4(b), b_s


def test_grouped_contiguous():
    a_q, a_s, b_q, b_s = _contig_operands()
    # C row0 = 1*16 = 16; row1 = 0.5*(16*0.5*2) = 8; row2 = 0.5*(6*2) = 6
    c = R.grouped_matmul_contiguous(a_q, a_s, b_q, b_s, [0, 1, 3], [1.0, 0.5])
    assert c.tolist() == [[16.0], [8.0], [6.0]]
    c2 = R.grouped_matmul_contiguous(a_q, R.swizzle_scales(a_s), b_q, R.swizzle_scales(b_s),
                                     [0, 1, 3], [1.0, 0.5], swizzled=True)
    assert c2.tolist() == c.tolist()
    c3 = R.grouped_matmul_contiguous(a_q, a_s, b_q, b_s, [0, 1, 3], [1.0, 0.5], beta=-1.0,
                                     c_in=np.ones((3, 1)))
    assert c3.tolist() == [[15.0], [7.0], [5.0]]
    # empty group 0: all rows use B[1] (2.0 x16) and alpha 0.25:
    # row0 = 0.25*32 = 8, row1 = 0.25*16 = 4, row2 = 0.25*12 = 3
    c4 = R.grouped_matmul_contiguous(a_q, a_s, b_q, b_s, [0, 0, 3], [1.0, 0.25])
    assert c4.tolist() == [[8.0], [4.0], [3.0]]
    with pytest.raises(ValueError):
        R.grouped_matmul_contiguous(a_q, a_s, b_q, b_s, [0, 2, 1], [1.0, 1.0])


def test_grouped_masked():
    a = np.zeros((2, 2, 16), np.uint8)
    a[0, 0] = 2            # group 0 row 0 = 1.0
    a[0, 1] = 7            # row 1 (masked out)
    a[1, 0] = 1            # group 1 rows: 0.5 and 6 at k=0
    a[1, 1, 0] = 7
    a_s = np.full((2, 2, 1), 0x38, np.uint8)
    b = np.full((2, 1, 16), 2, np.uint8)
    b_s = np.array([[[0x38]], [[0x40]]], np.uint8)
    a_q, b_q = R.pack_fp4(a), R.pack_fp4(b)
    c = R.grouped_matmul_masked(a_q, a_s, b_q, b_s, [1, 2], [1.0, 0.5])
    assert c.shape == (2, 2, 1)
    assert c[0, 0, 0] == 16.0 and np.isnan(c[0, 1, 0])
    assert c[1].tolist() == [[8.0], [6.0]]
    c2 = R.grouped_matmul_masked(a_q, R.swizzle_scales(a_s), b_q, R.swizzle_scales(b_s),
                                 [1, 2], [1.0, 0.5], swizzled=True)
    assert np.array_equal(c, c2, equal_nan=True)
    c3 = R.grouped_matmul_masked(a_q, a_s, b_q, b_s, [0, 1], [1.0, 0.5], beta=1.0,
                                 c_in=np.ones((2, 2, 1)))
    assert np.isnan(c3[0]).all() and c3[1, 0, 0] == 9.0 and np.isnan(c3[1, 1, 0])


def test_cast_output_and_is_close():
    c = np.array([1.0, 1 + 2.0 ** -9, 65520.0, 1e-3], np.float64)
    assert R.cast_output(c, "f32").dtype == np.float32
    assert R.cast_output(c, "bf16").tolist()[:2] == [0x3F80, 0x3F80]
    f16 = R.cast_output(c, "f16")
    assert f16.dtype == np.float16 and np.isinf(f16[2])
    ok = R.is_close(np.array([1.0011, 1.0019, 1.0021, 0.0, np.nan]),
                    np.array([1.0, 1.0, 1.0, 0.0009, 1.0]))
    assert ok.tolist() == [True, True, False, True, False]
    assert R.is_close(np.array([0x3F80], np.uint16), np.array([1.0005])).all()


# ---------------------------------------------------------------------------
# Test data generator
# ---------------------------------------------------------------------------

def test_make_test_tensor_kinds():
    x = R.make_test_tensor((64, 256), seed=7)
    assert x.dtype == np.float32 and x.shape == (64, 256)
    assert np.array_equal(x, R.make_test_tensor((64, 256), seed=7))
    assert not np.array_equal(x, R.make_test_tensor((64, 256), seed=8))
    seg = x.reshape(-1, 32)
    amax = np.abs(x).max()
    zero = (seg == 0).all(axis=1)
    assert zero.sum() == round(0.1 * seg.shape[0])
    # NVFP4 block scales: tiny blocks give non-zero subnormal E4M3 (codes 1..7)
    for opts in (dict(), dict(scale_rule="four_over_six", e4m3_max=256)):
        _, s, _ = R.quantize_nvfp4(x, **opts)
        sub = (s > 0) & (s < 8)
        assert sub.sum() >= 2 * round(0.1 * seg.shape[0])
    # outliers
    big = np.abs(seg).max(axis=1) >= 200
    assert big.sum() == round(0.1 * seg.shape[0])
    assert amax >= 200
    # bf16 exactness
    bits, vals = R.make_test_tensor((16, 48), seed=3, dtype="bf16")
    assert bits.dtype == np.uint16
    assert np.array_equal(R.bf16_bits_to_f32(bits), vals)
    h, vals = R.make_test_tensor((16, 48), seed=3, dtype="f16")
    assert np.array_equal(h.astype(np.float32), vals)
    # nonfinite
    nf = R.make_test_tensor((2, 16, 32), seed=3, kind="nonfinite")
    for b in range(2):
        assert np.isnan(nf[b]).sum() == 1
        assert (nf[b] == np.inf).sum() == 1 and (nf[b] == -np.inf).sum() == 1
    g = R.make_test_tensor((8, 32), seed=3, kind="gaussian")
    assert (g != 0).all()


def test_dequantize_error_bound():
    # Largest E2M1 gap is 2 (4 -> 6), so rounding moves a value by <= 1 unit;
    # saturation (sf rounded down by <= 1/16) clips by less than that.
    x = R.make_test_tensor((128, 128), seed=9, kind="gaussian")
    q, s, d = R.quantize_nvfp4(x)
    xh = R.dequantize(q, s, d)
    unit = R.e4m3_decode(s).astype(np.float64) * float(d)  # value of E2M1 1.0 in the block
    err = np.abs(x.astype(np.float64) - xh).reshape(128, 8, 16).max(axis=-1)
    assert (err <= unit * 1.0001).all()


# ---------------------------------------------------------------------------
# Row-scaled NVFP4 (TransformerEngine's row_scaled_nvfp4)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("opts", [
    dict(), dict(scale_rule="four_over_six"), dict(scale_rule="four_over_six", error_metric="mse",
                                                   e4m3_max=256),
    dict(hadamard=True), dict(rounding="stochastic", seed=3)])
def test_row_scaled_rows_are_one_row_tensors(opts):
    """TE's definition (its reference quantizes row r as a 1-row tensor with
    amax[r]): every row's codes, scales and decode scale are those of that
    row quantized alone. Stochastic rounding draws by the element's index in
    the whole tensor, so that case compares against the row's bytes."""
    x, _ = R.make_test_tensor((3, 40, 64), 11, kind="mixed", dtype="bf16")
    x[1, 5] = 0  # an all-zero row: S_dec = 1 (or 0 for four_over_six)
    q, s, d = R.quantize_nvfp4(x, row_scaled=True, **opts)
    assert d.shape == (3, 40) and d.dtype == np.float32
    stochastic = opts.get("rounding") == "stochastic"
    for b in range(3):
        for r in range(40):
            if stochastic:
                # The same random bytes: quantize the row with its own amax
                # inside the whole tensor's element numbering.
                amax = np.float32(np.max(np.abs(R.to_f32(x[b, r]))))
                qr, sr, dr = R.quantize_nvfp4(x, amax=amax, **opts)
                qr, sr, dr = qr[b, r:r + 1], sr[b, r:r + 1], dr[b]
            else:
                qr, sr, dr = R.quantize_nvfp4(x[b, r:r + 1], **opts)
            assert np.array_equal(q[b, r:r + 1], qr) and np.array_equal(s[b, r:r + 1], sr)
            assert d[b, r].tobytes() == np.float32(dr).tobytes()
    assert d[1, 5] == (0.0 if opts.get("scale_rule") == "four_over_six" else 1.0)


def test_row_scaled_known_answers():
    """Hand-derived: row 0 has amax 6, so S_enc = fl(2688 / 6) = 448 and
    S_dec = fl(1/448); its 6 takes block scale e4m3(fl(6 * fl(448 * fl(1/6))))
    = 448 and code 7. Row 1 has amax 0.75: S_enc = 3584, its 0.75 scales to
    448 as well. Per-tensor quantize would give row 1 the scale of amax 6
    (e4m3(56) = 56, code 7 for 0.75)."""
    x = np.zeros((2, 16), np.float32)
    x[0, 0], x[1, 0] = 6.0, 0.75
    q, s, d = R.quantize_nvfp4(x, row_scaled=True)
    assert d.tolist() == [np.float32(1 / 448.0), np.float32(1 / 3584.0)]
    assert s[:, 0].tolist() == [0x7E, 0x7E]  # e4m3 448
    assert R.unpack_fp4(q)[:, 0].tolist() == [7, 7]
    _, s_t, _ = R.quantize_nvfp4(x)
    assert R.e4m3_decode(s_t[1, 0]) == 56.0
    # Dequantize applies each row's decode scale.
    assert R.dequantize(q, s, d)[:, 0].tolist() == (np.float32(6 * 448) * d).tolist()
    with pytest.raises(ValueError, match="1x16"):
        R.quantize_nvfp4(x, row_scaled=True, block=(16, 16))


def test_alpha_eff_outer_product():
    """alpha_eff[m, n] = fl(fl(a[m] * b[n]) * alpha), missing factors 1."""
    a = np.array([2.0, 1 / 3], np.float32)
    b = np.array([3.0, 0.5, 7.0], np.float32)
    al = R.alpha_eff(a, b, 1.5)
    assert al.shape == (2, 3) and al.dtype == np.float32
    want = ((a[:, None] * b[None, :]).astype(np.float32) * np.float32(1.5)).astype(np.float32)
    assert al.tobytes() == want.tobytes()
    assert R.alpha_eff(a, np.float32(2)).shape == (2, 1)
    assert R.alpha_eff(None, b).shape == (1, 3)
    assert float(R.alpha_eff(np.float32(2), np.float32(3), 0.5)) == 3.0
    assert float(R.alpha_eff()) == 1.0
    a_q, a_s, b_q, b_s = _hand_operands()
    c = R.matmul_reference(a_q, a_s, b_q, b_s, alpha=R.alpha_eff([1.0, 2.0], [0.5, 0.25]))
    # The hand operands' C = [[8, 1], [5.5, 5.5]] times [[0.5, 0.25], [1, 0.5]].
    assert c.tolist() == [[4.0, 0.25], [5.5, 2.75]]
