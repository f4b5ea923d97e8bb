"""NumPy reference (oracle) for the NVFP4 / MXFP4 numerics of nvfp4-mlir.

This module is the executable form of ``docs/spec.md`` section 2 (the numerics
contract).  The compiler's CPU and GPU outputs are compared against it BIT FOR
BIT for everything a quantize produces (FP4 codes, block scales, S_dec) and
with the tolerance ``|c - ref| <= 1e-3 + 1e-3*|ref|`` for matmul results.

Conventions (see also python/README.md):

* FP4 E2M1 code = sign*8 + exp*2 + man (0..15).  Packed two per byte:
  element 2i in the LOW nibble, element 2i+1 in the HIGH nibble.
* E4M3 (f8E4M3FN) and UE8M0 (f8E8M0FNU) scales are uint8 bit patterns,
  row-major ``[..., rows, K // bs]`` (bs = 16 NVFP4, 32 MXFP4) or in the
  swizzled "128x4" layout ``[..., R//128, C//4, 32, 4, 4]``.
* bf16 values are uint16 bit patterns, f16 is ``np.float16``, f32 ``np.float32``.
* S_dec (NVFP4 per-tensor decode scale) is ``np.float32``: a scalar for a
  2-D input, shape ``batch`` for an input ``[*batch, rows, K]``.

Floating point discipline: every quantize intermediate is an IEEE binary32
value obtained by ONE correctly rounded (round-to-nearest-even) binary32
operation, exactly where the docstrings say "fp32(...)".  No fused
multiply-add, no flush-to-zero, no reciprocal approximations.  All arithmetic
on quantize paths is done on ``np.float32`` arrays with ``np.float32``
constants (numpy never promotes such expressions to float64).  ``min`` /
``max`` on floats follow CUDA ``fminf`` / ``fmaxf``: a NaN operand is ignored.

Matmul references are computed in float64 from exactly dequantized operands.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    # element formats
    "E2M1_VALUES", "e2m1_encode_rne", "e2m1_encode_stochastic", "e2m1_decode",
    "pack_fp4", "unpack_fp4",
    "e4m3_encode_satfinite", "e4m3_decode", "e8m0_decode",
    "f32_to_bf16_bits", "bf16_bits_to_f32", "to_f32",
    # transforms / randomness
    "hadamard16_matrix", "HADAMARD_SIGNS", "apply_hadamard", "input_dtype", "round_to_dtype",
    "philox4x32_10", "stochastic_bits",
    # scales
    "nvfp4_global_scales", "nvfp4_given_encode_scale", "nvfp4_given_decode_scale",
    "four_over_six_decode_scale", "mx_scale_code_rceil",
    "mx_scale_code_floor",
    # quantize / dequantize
    "quantize_nvfp4", "quantize_mxfp4", "dequantize",
    # layout
    "swizzle_scales", "unswizzle_scales", "swizzle_offset",
    # matmul
    "matmul_reference", "grouped_matmul_independent",
    "grouped_matmul_contiguous", "grouped_matmul_masked",
    "cast_output", "is_close", "TOL_ABS", "TOL_REL",
    # test data
    "make_test_tensor",
]

F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)
ONE_SIXTH = F32(1.0) / F32(6.0)  # fp32(1/6) = 0x3E2AAAAB
E4M3_MAX = F32(448.0)
NVFP4_BLOCK = 16
MXFP4_BLOCK = 32

TOL_ABS = 1e-3
TOL_REL = 1e-3

# Magnitudes of E2M1 codes 0..7, then the negatives (code 8 is -0.0).
E2M1_VALUES = np.array(
    [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
     -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0], dtype=np.float32)


def _e4m3_table() -> np.ndarray:
    c = np.arange(256)
    exp = (c >> 3) & 0xF
    man = c & 0x7
    mag = np.where(exp == 0, man * 2.0 ** -9, (8 + man) * np.exp2(exp - 10.0))
    val = np.where(c & 0x80, -mag, mag)
    val[c == 0x7F] = np.nan
    val[c == 0xFF] = -np.nan  # keeps the sign bit, as a cvt from E4M3 does
    return val.astype(np.float32)


def _e8m0_table() -> np.ndarray:
    e = np.arange(256)
    val = np.exp2(e - 127.0)  # exact in float64; 2^-127 is an fp32 subnormal
    val[255] = np.nan
    return val.astype(np.float32)


_E4M3_TABLE = _e4m3_table()
_E8M0_TABLE = _e8m0_table()
# 2^(127 - code) for code 0..254: the exact reciprocal of a UE8M0 scale.
_E8M0_INV_TABLE = np.exp2(127.0 - np.arange(255)).astype(np.float32)


# ---------------------------------------------------------------------------
# Input conversion, bf16
# ---------------------------------------------------------------------------

def f32_to_bf16_bits(x) -> np.ndarray:
    """fp32 -> bf16 bit patterns (uint16), round to nearest even.

    Overflow rounds to +-Inf (IEEE RNE), Inf stays Inf, a NaN stays a NaN with
    its sign and top payload bits and the quiet bit (0x0040) set.
    """
    b = np.asarray(x, dtype=np.float32).view(np.uint32)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    rounded = (b + (np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1)))) >> np.uint32(16)
    quiet = (b >> np.uint32(16)) | np.uint32(0x0040)
    return np.where(nan, quiet, rounded).astype(np.uint16)


def bf16_bits_to_f32(bits) -> np.ndarray:
    """bf16 bit patterns (uint16) -> fp32 (exact)."""
    b = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)
    return b.view(np.float32)


def to_f32(x) -> np.ndarray:
    """Convert a quantize input EXACTLY to float32.

    * ``np.float32``: returned as is; ``np.float16``: widened (exact).
    * ``np.uint16``: interpreted as bf16 bit patterns (exact).
    * ml_dtypes ``bfloat16``: viewed as uint16 bits (exact).
    * anything else (float64, ints, Python lists): converted to float32 and
      checked to be exactly representable, else ``ValueError``.
    """
    if isinstance(x, dict):  # {'bf16': bits} convenience form
        if set(x) != {"bf16"}:
            raise ValueError("dict input must be {'bf16': uint16 bits}")
        return bf16_bits_to_f32(x["bf16"])
    a = np.asarray(x)
    if a.dtype == np.float32:
        return a
    if a.dtype == np.float16:
        return a.astype(np.float32)
    if a.dtype == np.uint16:
        return bf16_bits_to_f32(a)
    if a.dtype.name == "bfloat16":
        return bf16_bits_to_f32(a.view(np.uint16))
    f = a.astype(np.float32)
    with np.errstate(invalid="ignore"):
        back = f.astype(a.dtype) if a.dtype.kind == "f" else f.astype(np.float64)
        same = (back == a) | (np.isnan(f) & np.isnan(a.astype(np.float64)))
    if not np.all(same):
        raise ValueError("input is not exactly representable in float32; "
                         "pass float32, float16 or bf16 bits (uint16)")
    return f


# ---------------------------------------------------------------------------
# E2M1
# ---------------------------------------------------------------------------

def e2m1_encode_rne(x) -> np.ndarray:
    """fp32 -> E2M1 codes (uint8 0..15, unpacked), RNE with saturation.

    Thresholds on |x|: <=0.25 -> 0; <0.75 -> 0.5; <=1.25 -> 1; <1.75 -> 1.5;
    <=2.5 -> 2; <3.5 -> 3; <=5 -> 4; else 6 (ties to even mantissa).
    Sign bit of x -> code bit 3, so -0.0 and negatives rounding to zero give
    code 8.  +-Inf -> 0x7/0xF.  NaN (any sign) -> 0x7 (+6), as
    ``cvt.rn.satfinite.e2m1x2.f32``.  Input converted with
    ``np.asarray(x, float32)``.
    """
    x = np.asarray(x, dtype=np.float32)
    shape = x.shape
    x = x.reshape(-1)
    a = np.abs(x)
    code = (a > F32(0.25)).astype(np.uint8)
    code += a >= F32(0.75)
    code += a > F32(1.25)
    code += a >= F32(1.75)
    code += a > F32(2.5)
    code += a >= F32(3.5)
    code += a > F32(5.0)
    code |= np.signbit(x).astype(np.uint8) << np.uint8(3)
    code[np.isnan(x)] = 0x7
    return code.reshape(shape)


def e2m1_encode_stochastic(x, rbits) -> np.ndarray:
    """fp32 -> E2M1 codes with the stochastic rounding rule of docs/spec.md 2.4.

    With a = |x| and u = r/256 (r = ``rbits``, one uint8 per element):
    step(y) = 0.5 if y < 2, 1 if y < 4, else 2;
    t = fp32(a + fp32(u*step(a)));  q = min(floor(t/step(t)) * step(t), 6).
    (u*step, t/step and floor(..)*step are exact in fp32; only the add rounds.)
    The code carries the sign bit of x even when q == 0 (e.g. -0.0 -> 8).
    NaN -> 0x7 (+6); +-Inf -> +-6.
    """
    x = np.asarray(x, dtype=np.float32)
    shape = x.shape
    r = np.broadcast_to(np.asarray(rbits, dtype=np.uint8), shape).reshape(-1)
    x = x.reshape(-1)
    a = np.abs(x)
    u = r.astype(np.float32) * F32(1.0 / 256.0)

    def step(y):
        return np.where(y < F32(2.0), F32(0.5), np.where(y < F32(4.0), F32(1.0), F32(2.0)))

    with np.errstate(invalid="ignore"):
        t = a + u * step(a)
        st = step(t)
        q = np.minimum(np.floor(t / st) * st, F32(6.0))
    code = e2m1_encode_rne(q)  # q is on the E2M1 grid (or NaN)
    code |= np.signbit(x).astype(np.uint8) << np.uint8(3)
    code[np.isnan(x)] = 0x7
    return code.reshape(shape)


def e2m1_decode(codes) -> np.ndarray:
    """E2M1 codes (low 4 bits used) -> fp32 values (code 8 -> -0.0)."""
    return E2M1_VALUES[np.asarray(codes, dtype=np.uint8) & np.uint8(0xF)]


def pack_fp4(codes) -> np.ndarray:
    """codes [..., K] (K even) -> bytes [..., K//2]; element 2i in the low nibble."""
    c = np.asarray(codes, dtype=np.uint8)
    if c.shape[-1] % 2:
        raise ValueError("last dimension must be even to pack FP4")
    return (c[..., 0::2] & np.uint8(0xF)) | ((c[..., 1::2] & np.uint8(0xF)) << np.uint8(4))


def unpack_fp4(packed) -> np.ndarray:
    """bytes [..., K//2] -> codes [..., K] (uint8 0..15)."""
    p = np.asarray(packed, dtype=np.uint8)
    out = np.empty(p.shape[:-1] + (p.shape[-1] * 2,), dtype=np.uint8)
    out[..., 0::2] = p & np.uint8(0xF)
    out[..., 1::2] = p >> np.uint8(4)
    return out


# ---------------------------------------------------------------------------
# E4M3 / UE8M0
# ---------------------------------------------------------------------------

def e4m3_encode_satfinite(x) -> np.ndarray:
    """fp32 -> f8E4M3FN bits, like ``cvt.rn.satfinite.e4m3x2.f32``.

    |x| is clamped to 448 first (so Inf -> 448), then rounded to nearest even
    on the E4M3 grid; subnormals (multiples of 2^-9) are kept, values
    <= 2^-10 round to zero.  The sign bit is kept (-0.0 -> 0x80, a negative
    value rounding to zero -> 0x80).  NaN -> 0x7F.
    """
    x = np.asarray(x, dtype=np.float32)
    shape = x.shape
    x = x.reshape(-1)
    nan = np.isnan(x)
    a = np.minimum(np.abs(x), E4M3_MAX)
    a = np.where(nan, F32(0.0), a)
    _, fe = np.frexp(a)  # a = m * 2^fe, m in [0.5, 1)
    e = np.where(a < F32(2.0 ** -6), -6, fe.astype(np.int32) - 1)
    # a * 2^(3-e) is exact (power-of-two scaling, no overflow/underflow);
    # rint is round-half-to-even.  Normal: v in [8, 16]; subnormal: v in [0, 8].
    v = np.rint(np.ldexp(a, (3 - e).astype(np.int32))).astype(np.int32)
    code = ((e + 6) * 8 + v).astype(np.uint8)
    code |= np.signbit(x).astype(np.uint8) << np.uint8(7)
    code[nan] = 0x7F
    return code.reshape(shape)


def e4m3_decode(bits) -> np.ndarray:
    """f8E4M3FN bits -> fp32 (0x7F is +NaN, 0xFF is -NaN; 0x80 is -0.0)."""
    return _E4M3_TABLE[np.asarray(bits, dtype=np.uint8)]


def e8m0_decode(bits) -> np.ndarray:
    """UE8M0 bits -> fp32 2^(e-127); e = 0 gives the subnormal 2^-127; 0xFF NaN."""
    return _E8M0_TABLE[np.asarray(bits, dtype=np.uint8)]


# ---------------------------------------------------------------------------
# Hadamard
# ---------------------------------------------------------------------------

HADAMARD_SIGNS = np.array([1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1],
                          dtype=np.float32)


def hadamard16_matrix() -> np.ndarray:
    """M = diag(s) * H16 / 4 as fp32 (entries +-0.25, exact in bf16).

    H16[i][j] = (-1)^popcount(i & j) (Sylvester order), s = HADAMARD_SIGNS,
    so M[i][j] = s[i] * H16[i][j] / 4.  M is orthogonal: M @ M.T == I.
    """
    i = np.arange(16)
    pc = np.vectorize(lambda v: bin(v).count("1"))(i[:, None] & i[None, :])
    h = np.where(pc % 2 == 0, 1.0, -1.0)
    return (HADAMARD_SIGNS[:, None] * h * 0.25).astype(np.float32)


def input_dtype(x) -> str:
    """The element type a quantize input stands for: 'bf16', 'f16' or 'f32'.

    uint16 bits, ml_dtypes bfloat16 and ``{'bf16': bits}`` are bf16,
    ``np.float16`` is f16, everything else (float32, exactly representable
    float64, ints, lists) is f32.
    """
    if isinstance(x, dict):
        return "bf16"
    a = np.asarray(x)
    if a.dtype == np.uint16 or a.dtype.name == "bfloat16":
        return "bf16"
    if a.dtype == np.float16:
        return "f16"
    return "f32"


def round_to_dtype(v, dtype: str) -> np.ndarray:
    """fp32 values rounded to ``dtype`` ('bf16', 'f16', 'f32') and widened back.

    IEEE round to nearest even (bf16 and f16 subnormals kept, overflow to
    +-Inf, NaN stays NaN); 'f32' returns the values unchanged.
    """
    v = np.asarray(v, dtype=np.float32)
    if dtype == "f32":
        return v
    if dtype == "bf16":
        return bf16_bits_to_f32(f32_to_bf16_bits(v))
    if dtype == "f16":
        with np.errstate(over="ignore"):
            return v.astype(np.float16).astype(np.float32)
    raise ValueError(f"dtype must be 'bf16', 'f16' or 'f32', got {dtype!r}")


def apply_hadamard(x, dtype=None) -> np.ndarray:
    """Random Hadamard transform of each contiguous 16-chunk of the last dim.

    For a chunk x_0..x_15:  s_j = 4 * (fp32 sum over i = 0..15 of p_ij),
    p_ij = fp32(x_i * M[i][j] / 4) = +-fp32(x_i / 16), accumulated
    SEQUENTIALLY in increasing i:
        acc = p_0j;  acc = fp32(acc + p_ij) for i = 1..15;  s_j = fp32(4 * acc).
    The product is rounded on its own (no FMA); it is exact for bf16 and f16
    inputs (for f32 ones unless x_i / 16 falls in the fp32 subnormal range).
    Every partial sum of finite inputs is finite (16 terms of at most
    |x| / 16); only the final x4 can overflow, where the transform's value
    itself is beyond fp32.  Scaling by powers of two commutes with the
    rounding, so wherever nothing overflows this is bit for bit the sum of
    fp32(x_i * M[i][j]) in the same order.  The compiler must use exactly
    this order.

    Then x'_j = round_to_dtype(s_j, dtype): the transform's result has the
    input's element type, as in TransformerEngine (its reference computes
    ``x @ H`` in the input type; its fused kernel downcasts to bf16 "for
    bit-wise compatibility").  ``dtype`` defaults to ``input_dtype(x)``:
    bf16 and f16 inputs round (RNE), f32 input keeps the fp32 sum.  The
    result is returned as float32 values.
    """
    if dtype is None:
        dtype = input_dtype(x)
    x = to_f32(x)
    if x.shape[-1] % 16:
        raise ValueError("last dimension must be a multiple of 16 for the Hadamard transform")
    m = hadamard16_matrix() * np.float32(0.25)  # entries +-1/16
    xs = x.reshape(-1, 16)
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        acc = xs[:, 0:1] * m[0]
        tmp = np.empty_like(acc)
        for i in range(1, 16):
            np.multiply(xs[:, i:i + 1], m[i], out=tmp)
            np.add(acc, tmp, out=acc)
        acc *= np.float32(4)
    return round_to_dtype(acc, dtype).reshape(x.shape)


# ---------------------------------------------------------------------------
# Philox4x32-10 and the per-element random bytes
# ---------------------------------------------------------------------------

_PHILOX_M0 = np.uint64(0xD2511F53)
_PHILOX_M1 = np.uint64(0xCD9E8D57)
_PHILOX_W0 = np.uint64(0x9E3779B9)
_PHILOX_W1 = np.uint64(0xBB67AE85)
_MASK32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


def philox4x32_10(counter, key) -> np.ndarray:
    """Philox4x32-10 (Salmon et al. 2011, Random123), vectorised.

    counter: uint32 [..., 4];  key: uint32 [2] (or [..., 2], broadcast).
    Round: (hi0, lo0) = mulhilo(M0, c0); (hi1, lo1) = mulhilo(M1, c2);
    c = [hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0]; then k0 += W0, k1 += W1
    (mod 2^32) between rounds; 10 rounds.  Returns uint32 [..., 4].
    """
    c = np.asarray(counter, dtype=np.uint64)
    k = np.asarray(key, dtype=np.uint64)
    if c.shape[-1] != 4 or k.shape[-1] != 2:
        raise ValueError("counter must be [..., 4] and key [..., 2]")
    c0, c1, c2, c3 = (c[..., i] & _MASK32 for i in range(4))
    k0, k1 = k[..., 0] & _MASK32, k[..., 1] & _MASK32
    for rnd in range(10):
        if rnd:
            k0 = (k0 + _PHILOX_W0) & _MASK32
            k1 = (k1 + _PHILOX_W1) & _MASK32
        p0 = _PHILOX_M0 * c0  # < 2^64: exact in uint64
        p1 = _PHILOX_M1 * c2
        hi0, lo0 = p0 >> _S32, p0 & _MASK32
        hi1, lo1 = p1 >> _S32, p1 & _MASK32
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return np.stack(np.broadcast_arrays(c0, c1, c2, c3), axis=-1).astype(np.uint32)


def stochastic_bits(seed: int, num_elements: int) -> np.ndarray:
    """One random byte per element for stochastic rounding (uint8 [num_elements]).

    Element e (linear row-major index over the logical input, batch included)
    gets byte (e % 16) of philox4x32_10(counter=[(e//16) & 0xffffffff,
    (e//16) >> 32, 0, 0], key=[seed & 0xffffffff, seed >> 32]), bytes taken
    little-endian from the output words: word (e % 16)//4, byte e % 4.
    """
    seed = int(seed)
    if not 0 <= seed < 2 ** 64:
        raise ValueError("seed must be a uint64")
    n = int(num_elements)
    nblk = (n + 15) // 16
    j = np.arange(nblk, dtype=np.uint64)
    ctr = np.zeros((nblk, 4), dtype=np.uint64)
    ctr[:, 0] = j & _MASK32
    ctr[:, 1] = j >> _S32
    key = np.array([seed & 0xFFFFFFFF, seed >> 32], dtype=np.uint64)
    words = philox4x32_10(ctr, key)
    return words.astype("<u4").view(np.uint8).reshape(-1)[:n].copy()


# ---------------------------------------------------------------------------
# Scale rules
# ---------------------------------------------------------------------------

def nvfp4_global_scales(amax, *, e4m3_max=448):
    """(S_enc, S_dec) from the tensor amax, both fp32, same shape as amax.

    S_enc = fminf(fp32(C / amax), FLT_MAX) with C = 6 * e4m3_max (2688 for
    the default 448; four_over_six may use 256, C = 1536); S_enc = 1 if
    amax == 0 or S_enc == 0 (amax = +Inf gives 1); S_dec = fp32(1 / S_enc).
    fminf ignores a NaN, so a NaN amax gives FLT_MAX.  (four_over_six encodes
    with this S_dec but reports ``four_over_six_decode_scale`` instead.)
    """
    amax = np.asarray(amax, dtype=np.float32)
    c = _global_constant(e4m3_max)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = np.fmin(c / amax, FLT_MAX)
        s = np.where((amax == F32(0.0)) | (s == F32(0.0)), F32(1.0), s).astype(np.float32)
        d = (F32(1.0) / s).astype(np.float32)
    return s, d


def nvfp4_given_encode_scale(encode_scale):
    """(S_enc, S_dec) from a calibrated encode scale e (compressed-tensors'
    ``input_global_scale``): (e, fp32(1 / e)), both fp32.

    e is used exactly as given: no amax, no guard (docs/spec.md 2.2, given
    scales).  0 gives S_dec = Inf (-0: -Inf), Inf gives 0, NaN gives NaN.
    """
    e = np.asarray(encode_scale, dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d = (F32(1.0) / e).astype(np.float32)
    return e, d


def nvfp4_given_decode_scale(decode_scale):
    """(S_enc, S_dec) from a calibrated decode scale d (ModelOpt's
    ``input_scale``): (fp32(1 / d), d), both fp32.

    d itself is S_dec, the reported decode scale, bit for bit (fp32(1 /
    fp32(1 / d)) is not always d); S_enc = fp32(1 / d) without guards: 0 gives
    Inf (-0: -Inf), Inf gives 0, NaN gives NaN.
    """
    d = np.asarray(decode_scale, dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = (F32(1.0) / d).astype(np.float32)
    return e, d


def four_over_six_decode_scale(amax, *, e4m3_max=448):
    """The S_dec that four_over_six reports: fp32(amax / C), C = 6 * e4m3_max.

    No guard: amax 0 gives 0, +Inf gives +Inf, NaN gives NaN.  This is the
    decode factor of the domain in which the 4/6 candidate errors are measured
    (xhat = fp32(fp32(fp32(e2m1 * sf) * amax) / C)), rounded once.
    """
    amax = np.asarray(amax, dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        return (amax / _global_constant(e4m3_max)).astype(np.float32)


def _global_constant(e4m3_max) -> np.float32:
    if e4m3_max not in (448, 256):
        raise ValueError(f"e4m3_max must be 448 or 256, got {e4m3_max!r}")
    return F32(6.0 * float(e4m3_max))


def mx_scale_code_rceil(amax_b) -> np.ndarray:
    """UE8M0 code of the MXFP4 RCEIL rule (TransformerEngine float_to_e8m0).

    v = fp32(amax_b * fp32(1/6)); code = biased exponent of v, plus one if the
    mantissa of v is non-zero and the exponent is not 0xFE, except that a
    subnormal v with mantissa <= 0x400000 (v <= 2^-127) keeps code 0.
    +Inf -> 254.  Result in [0, 254].  (amax_b is NaN-free by construction.)
    """
    v = np.asarray(amax_b, dtype=np.float32) * ONE_SIXTH
    b = v.view(np.uint32)
    exp = ((b >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32)
    man = b & np.uint32(0x7FFFFF)
    up = (man > 0) & (exp != 0xFE) & ~((exp == 0) & (man <= 0x400000))
    code = exp + up.astype(np.int32)
    code = np.where(exp == 0xFF, 254, code)
    return np.clip(code, 0, 254).astype(np.uint8)


def mx_scale_code_floor(amax_b) -> np.ndarray:
    """UE8M0 code of the OCP FLOOR rule: clamp(floor(log2 amax_b) - 2 + 127, 0, 254).

    floor(log2) comes from the exponent field E of a normal amax_b (code =
    E - 2); zero and subnormal amax_b have floor(log2) <= -127, giving 0;
    +Inf -> 254.
    """
    a = np.asarray(amax_b, dtype=np.float32)
    exp = ((a.view(np.uint32) >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32)
    code = np.where(exp == 0xFF, 254, exp - 2)
    return np.clip(code, 0, 254).astype(np.uint8)


# ---------------------------------------------------------------------------
# Helpers for blocks
# ---------------------------------------------------------------------------

def _abs_nan_to_zero(x: np.ndarray) -> np.ndarray:
    a = np.abs(x)
    a[np.isnan(a)] = 0  # NaN-ignoring max (CUDA fmaxf)
    return a


def _parse_block(block):
    if isinstance(block, str):
        block = {"1x16": (1, 16), "16x16": (16, 16)}.get(block.lower(), block)
    block = tuple(int(b) for b in block)
    if block not in ((1, 16), (16, 16)):
        raise ValueError(f"block must be (1,16) or (16,16), got {block}")
    return block


def _tile_rows(a: np.ndarray, rows: int) -> np.ndarray:
    """[..., rows, n] -> [..., T, 16, n] with rows zero-padded to T*16."""
    pad = (-rows) % 16
    if pad:
        a = np.concatenate([a, np.zeros(a.shape[:-2] + (pad, a.shape[-1]), a.dtype)], axis=-2)
    return a.reshape(a.shape[:-2] + (a.shape[-2] // 16, 16, a.shape[-1]))


def _block_amax(absx: np.ndarray, block) -> np.ndarray:
    """Per-block max |x| in the 1x16 scale layout [..., rows, K//16]."""
    rows, k = absx.shape[-2:]
    nb = k // 16
    a = absx.reshape(absx.shape[:-1] + (nb, 16)).max(axis=-1)
    if block == (16, 16):
        t = _tile_rows(a, rows).max(axis=-2)  # [..., T, nb]
        a = np.repeat(t, 16, axis=-2)[..., :rows, :]
    return a


def _block_error(d: np.ndarray, block, metric: str) -> np.ndarray:
    """Per-block 4/6 error of d (fp32 [..., rows, K]) in the 1x16 layout [..., rows, K//16].

    Terms: mse fp32(d*d), mae |d|, abs_max |d|.  Combine: fp32 addition
    (mse, mae) or fmaxf (abs_max).  Order (TransformerEngine's 4over6
    kernel): each row of a block is reduced sequentially in increasing
    element index starting from +0.0 (e = 0; e = e + t_i for i = 0..15);
    a 1x16 block's error is its row's.  A 16x16 tile combines its 16 row
    errors r_0..r_15 (rows past the matrix count as +0.0) as a tree:
        a_l = r_l + r_(l+8), b_l = a_l + a_(l+4), c_l = b_l + b_(l+2),
        e = c_0 + c_1
    (the __shfl_down reduction over offsets 8, 4, 2, 1).
    """
    if metric in ("mse", "mae"):
        op = np.add
    elif metric == "abs_max":
        op = np.fmax
    else:
        raise ValueError(f"unknown error_metric {metric!r}")
    rows, k = d.shape[-2:]
    nb = k // 16
    with np.errstate(invalid="ignore", over="ignore"):
        t = d * d if metric == "mse" else np.abs(d)
        t = t.reshape(t.shape[:-1] + (nb, 16))  # [..., rows, nb, 16]
        acc = np.zeros(t.shape[:-1], np.float32)
        for i in range(16):
            acc = op(acc, t[..., i])
        if block == (16, 16):
            r = _tile_rows(acc, rows)  # [..., T, 16, nb], missing rows +0.0
            while r.shape[-2] > 1:
                h = r.shape[-2] // 2
                r = op(r[..., :h, :], r[..., h:, :])
            acc = np.repeat(r[..., 0, :], 16, axis=-2)[..., :rows, :]
    return acc.astype(np.float32, copy=False)


def _scale_blocks(x: np.ndarray, per_block: np.ndarray, bs: int) -> np.ndarray:
    """fp32(x_i * per_block[block of i]) for [..., rows, K] and [..., rows, K//bs]."""
    sh = x.shape
    with np.errstate(invalid="ignore", over="ignore"):
        v = x.reshape(sh[:-1] + (sh[-1] // bs, bs)) * per_block[..., None]
    return v.reshape(sh)


def _encode(v, rounding, rbytes):
    if rounding == "nearest_even":
        return e2m1_encode_rne(v)
    return e2m1_encode_stochastic(v, rbytes)


def _check_rounding(rounding):
    if rounding not in ("nearest_even", "stochastic"):
        raise ValueError(f"rounding must be 'nearest_even' or 'stochastic', got {rounding!r}")


def _finish_s_dec(s_dec: np.ndarray):
    return F32(s_dec) if s_dec.ndim == 0 else s_dec.astype(np.float32)


# ---------------------------------------------------------------------------
# NVFP4 quantize
# ---------------------------------------------------------------------------

def quantize_nvfp4(x, *, block=(1, 16), rounding="nearest_even", seed=0, hadamard=False,
                   scale_rule="max6", error_metric=None, e4m3_max=None, amax=None,
                   swizzle=False, row_scaled=False, encode_scale=None, decode_scale=None):
    """NVFP4 quantize per docs/spec.md section 2.  Returns (q_packed, scales, s_dec).

    x: [*batch, rows, K] float32 / float16 / bf16 bits (uint16), K % 16 == 0.
    Steps (every value below is fp32, each operation rounded once, RNE):
      0. if hadamard: x = apply_hadamard(x), rounded to the input's element
         type (bf16/f16; f32 stays fp32); everything below, amax included,
         uses the transformed values.
      1. amax = NaN-ignoring max |x| over each batch entry's [rows, K]
         (Inf counts), or the caller's ``amax`` (scalar or [*batch], cast to fp32).
      2. S_enc, S_dec = nvfp4_global_scales(amax, e4m3_max=...): C = 2688
         (max6; four_over_six: 6 * e4m3_max).
      3. per block: amax_b = NaN-ignoring max |x_i| (1x16 block, or the
         elements present in the 16x16 tile);
         max6: sf = e4m3_satfinite(fp32(amax_b * fp32(S_enc * fp32(1/6)))).
      4. enc_b = fminf(fp32(1 / fp32(fp32(sf) * S_dec)), FLT_MAX).
      5. v_i = fp32(x_i * enc_b); q_i = e2m1_rne_satfinite(v_i), or the
         stochastic rule on v_i with the element's stochastic_bits byte.
    four_over_six (TransformerEngine's 4over6; docs/spec.md 2.5):
      base = fp32(fp32(amax_b / 6) * S_enc); sf6 = e4m3_satfinite(base),
      sf4 = e4m3_satfinite(fp32(base * 1.5)); each candidate gets steps 4-5
      (same random bytes); its error is measured on
      xhat = fp32(fp32(fp32(e2m1(q) * fp32(sf)) * amax) / C) against x,
      d = fp32(xhat - x), reduced per ``error_metric`` ('mae' default,
      'mse', or the extension 'abs_max') in the order of _block_error;
      candidate 4 is kept iff its error is strictly smaller (NaN keeps 6).
      The reported S_dec is four_over_six_decode_scale(amax) = fp32(amax / C).
      ``e4m3_max`` (448 default, or 256) sets C; it and ``error_metric``
      are rejected without four_over_six.
    row_scaled (TransformerEngine's row_scaled_nvfp4; 1x16 blocks only):
      steps 1-2 per row instead of per batch entry: amax is each row's (or
      the caller's ``amax`` of shape [*batch, rows]), and S_enc, S_dec (or
      four_over_six's fp32(amax / C)) are the row's; every row is quantized
      as a one-row tensor would be.
    scales: uint8 E4M3 bits [*batch, rows, K//16] (for 16x16 blocks the tile's
      scale repeated on each of its rows), or swizzled
      [*batch, R//128, C//4, 32, 4, 4] if ``swizzle``.
    encode_scale / decode_scale (calibrated global scales; at most one of
      them and ``amax``; max6 only, not row_scaled): replace steps 1-2 by
      S_enc, S_dec = nvfp4_given_encode_scale(e) = (e, fp32(1 / e)) or
      nvfp4_given_decode_scale(d) = (fp32(1 / d), d), scalar or [*batch],
      used as given (no amax, no guard); steps 3-5 are unchanged and the
      reported S_dec is that S_dec.
    s_dec: np.float32 scalar for 2-D x, else float32 [*batch]; with
      row_scaled float32 [*batch, rows].
    """
    block = _parse_block(block)
    _check_rounding(rounding)
    if scale_rule not in ("max6", "four_over_six"):
        raise ValueError(f"scale_rule must be 'max6' or 'four_over_six', got {scale_rule!r}")
    four6 = scale_rule == "four_over_six"
    if not four6 and (error_metric is not None or e4m3_max is not None):
        raise ValueError("error_metric and e4m3_max apply only to scale_rule 'four_over_six'")
    error_metric = "mae" if error_metric is None else error_metric
    if error_metric not in ("mse", "mae", "abs_max"):
        raise ValueError(f"error_metric must be 'mse', 'mae' or 'abs_max', got {error_metric!r}")
    e4m3_max = 448 if e4m3_max is None else e4m3_max
    c_global = _global_constant(e4m3_max)
    if row_scaled and block != (1, 16):
        raise ValueError(f"row_scaled quantizes 1x16 blocks, got block {block}")
    given = [n for n, v in (("amax", amax), ("encode_scale", encode_scale),
                            ("decode_scale", decode_scale)) if v is not None]
    if len(given) > 1:
        raise ValueError(f"at most one of amax, encode_scale, decode_scale, got {given}")
    static = encode_scale is not None or decode_scale is not None
    if static and (four6 or row_scaled):
        # four_over_six measures its errors against the tensor amax, which a
        # given scale does not give; a row-scaled quantize has a scale per row.
        raise ValueError("encode_scale / decode_scale need scale_rule 'max6' and a "
                         "per-tensor scale (not row_scaled)")
    xf = to_f32(x)
    if xf.ndim < 2:
        raise ValueError("quantize_nvfp4 expects [*batch, rows, K]")
    rows, k = xf.shape[-2:]
    if k % NVFP4_BLOCK:
        raise ValueError(f"K must be a multiple of 16, got {k}")
    if hadamard:
        xf = apply_hadamard(xf, input_dtype(x))
    # The shape of the amax and the decode scales: per batch entry, or per
    # row; `spread` broadcasts them over the blocks of their rows.
    scaled_over = (-1,) if row_scaled else (-2, -1)
    amax_shape = xf.shape[:-1] if row_scaled else xf.shape[:-2]

    def spread(v):
        return v[..., None] if row_scaled else v[..., None, None]

    absx = _abs_nan_to_zero(xf)
    if static:
        # Calibrated scales: used as given, the tensor amax is never taken.
        amax_t = None
        if encode_scale is not None:
            s_enc, s_dec = nvfp4_given_encode_scale(
                np.broadcast_to(np.asarray(encode_scale, dtype=np.float32), amax_shape))
        else:
            s_enc, s_dec = nvfp4_given_decode_scale(
                np.broadcast_to(np.asarray(decode_scale, dtype=np.float32), amax_shape))
    else:
        if amax is None:
            amax_t = absx.max(axis=scaled_over, initial=F32(0.0))
        else:
            amax_t = np.broadcast_to(np.asarray(amax, dtype=np.float32), amax_shape)
        amax_t = np.asarray(amax_t, dtype=np.float32)
        s_enc, s_dec = nvfp4_global_scales(amax_t, e4m3_max=e4m3_max)
    s_enc_b = spread(s_enc)
    s_dec_b = spread(s_dec)

    amax_b = _block_amax(absx, block)
    del absx
    rbytes = None
    if rounding == "stochastic":
        rbytes = stochastic_bits(seed, xf.size).reshape(xf.shape)

    def candidate(pre):
        sf = e4m3_encode_satfinite(pre)
        sfv = e4m3_decode(sf)
        with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
            enc = np.fmin(F32(1.0) / (sfv * s_dec_b), FLT_MAX)
        codes = _encode(_scale_blocks(xf, enc, NVFP4_BLOCK), rounding, rbytes)
        return sf, sfv, codes

    if not four6:
        with np.errstate(over="ignore", invalid="ignore"):
            pre6 = amax_b * spread(s_enc * ONE_SIXTH)
        sf, _, codes = candidate(pre6)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            base = (amax_b / F32(6.0)) * s_enc_b
            pre4 = base * F32(1.5)
        sf, sfv, codes = candidate(base)
        sf4, sfv4, codes4 = candidate(pre4)
        amax_e = spread(amax_t)

        def err(c, sv):
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                xhat = (_scale_blocks(e2m1_decode(c), sv, NVFP4_BLOCK) * amax_e) / c_global
                d = xhat - xf
            return _block_error(d, block, error_metric)

        with np.errstate(invalid="ignore"):
            pick4 = err(codes4, sfv4) < err(codes, sfv)
        sf = np.where(pick4, sf4, sf)
        codes = np.where(np.repeat(pick4, NVFP4_BLOCK, axis=-1), codes4, codes)
        s_dec = four_over_six_decode_scale(amax_t, e4m3_max=e4m3_max)

    q = pack_fp4(codes)
    scales = swizzle_scales(sf) if swizzle else sf
    return q, scales, _finish_s_dec(s_dec)


# ---------------------------------------------------------------------------
# MXFP4 quantize
# ---------------------------------------------------------------------------

def quantize_mxfp4(x, *, scale_rule="rceil", rounding="nearest_even", seed=0, hadamard=False,
                   swizzle=False):
    """MXFP4 quantize (1x32 blocks, UE8M0 scales, no global scale).

    x: [*batch, rows, K], K % 32 == 0.  Optional Hadamard first (as NVFP4,
    rounded to the input's element type).
    amax_b = NaN-ignoring max |x_i| over the 32-block; code =
    mx_scale_code_rceil(amax_b) (default) or mx_scale_code_floor(amax_b);
    v_i = fp32(x_i * 2^(127 - code)) (exact power of two; one RNE rounding,
    which only matters if v_i is an fp32 subnormal); q_i = e2m1 of v_i (RNE or
    stochastic).  A zero block gets code 0 (2^-127) and zero data.
    Returns (q_packed [*batch, rows, K//2], scales uint8 [*batch, rows, K//32]
    or swizzled).
    """
    _check_rounding(rounding)
    if scale_rule not in ("rceil", "floor"):
        raise ValueError(f"scale_rule must be 'rceil' or 'floor', got {scale_rule!r}")
    xf = to_f32(x)
    if xf.ndim < 2:
        raise ValueError("quantize_mxfp4 expects [*batch, rows, K]")
    k = xf.shape[-1]
    if k % MXFP4_BLOCK:
        raise ValueError(f"K must be a multiple of 32, got {k}")
    if hadamard:
        xf = apply_hadamard(xf, input_dtype(x))
    absx = _abs_nan_to_zero(xf)
    amax_b = absx.reshape(absx.shape[:-1] + (k // MXFP4_BLOCK, MXFP4_BLOCK)).max(axis=-1)
    del absx
    code = mx_scale_code_rceil(amax_b) if scale_rule == "rceil" else mx_scale_code_floor(amax_b)
    inv = _E8M0_INV_TABLE[code]
    rbytes = None
    if rounding == "stochastic":
        rbytes = stochastic_bits(seed, xf.size).reshape(xf.shape)
    with np.errstate(under="ignore"):
        codes = _encode(_scale_blocks(xf, inv, MXFP4_BLOCK), rounding, rbytes)
    q = pack_fp4(codes)
    return q, (swizzle_scales(code) if swizzle else code)


# ---------------------------------------------------------------------------
# Swizzled scale layout
# ---------------------------------------------------------------------------

def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def swizzle_offset(r: int, c: int, cols: int) -> int:
    """Byte offset of scale (r, c) in the 128x4 layout of a [rows, cols] matrix."""
    nkt = _ceil(cols, 4)
    return ((r // 128) * nkt + c // 4) * 512 + (r % 32) * 16 + ((r % 128) // 32) * 4 + (c % 4)


def swizzle_scales(s) -> np.ndarray:
    """[..., rows, cols] -> [..., R//128, C//4, 32, 4, 4] (padding bytes are 0).

    R = 128*ceil(rows/128), C = 4*ceil(cols/4); element (r, c) lands at
    [r//128, c//4, r%32, (r%128)//32, c%4].
    """
    s = np.asarray(s)
    rows, cols = s.shape[-2:]
    rp, cp = 128 * _ceil(rows, 128), 4 * _ceil(cols, 4)
    lead = s.shape[:-2]
    p = np.zeros(lead + (rp, cp), dtype=s.dtype)
    p[..., :rows, :cols] = s
    p = p.reshape(lead + (rp // 128, 4, 32, cp // 4, 4))
    nl = len(lead)
    perm = tuple(range(nl)) + (nl + 0, nl + 3, nl + 2, nl + 1, nl + 4)
    return np.ascontiguousarray(p.transpose(perm))


def unswizzle_scales(sw, rows: int, cols: int) -> np.ndarray:
    """Inverse of swizzle_scales: [..., R//128, C//4, 32, 4, 4] -> [..., rows, cols]."""
    sw = np.asarray(sw)
    rt, ct = sw.shape[-5], sw.shape[-4]
    if sw.shape[-3:] != (32, 4, 4) or rt != _ceil(rows, 128) or ct != _ceil(cols, 4):
        raise ValueError(f"swizzled shape {sw.shape} does not match rows={rows}, cols={cols}")
    lead = sw.shape[:-5]
    nl = len(lead)
    perm = tuple(range(nl)) + (nl + 0, nl + 3, nl + 2, nl + 1, nl + 4)
    p = sw.transpose(perm).reshape(lead + (rt * 128, ct * 4))
    return np.ascontiguousarray(p[..., :rows, :cols])


# ---------------------------------------------------------------------------
# Dequantize
# ---------------------------------------------------------------------------

def _fmt_bs(fmt: str) -> int:
    if fmt == "nvfp4":
        return NVFP4_BLOCK
    if fmt == "mxfp4":
        return MXFP4_BLOCK
    raise ValueError(f"fmt must be 'nvfp4' or 'mxfp4', got {fmt!r}")


def _row_major_scales(q_packed, scales, fmt, swizzled, rows, cols):
    bs = _fmt_bs(fmt)
    q = np.asarray(q_packed, dtype=np.uint8)
    k = q.shape[-1] * 2
    if rows is None:
        rows = q.shape[-2]
    if cols is None:
        cols = k // bs
    s = np.asarray(scales, dtype=np.uint8)
    if swizzled:
        s = unswizzle_scales(s, rows, cols)
    if s.shape[-1] * bs != k:
        raise ValueError(f"scales {s.shape} do not match K={k} for {fmt}")
    return q, s, bs


def dequantize(q_packed, scales, s_dec=None, *, fmt="nvfp4", rows=None, swizzled=False,
               cols=None) -> np.ndarray:
    """FP4 codes + block scales -> float32 [..., rows, K].

    nvfp4: fp32(fp32(e2m1(q) * fp32(sf)) * S_dec) (the inner product is exact;
    S_dec None means no multiply; S_dec [B] broadcasts over batch entries;
    S_dec [*batch, rows] is row-scaled NVFP4's, one per row).
    mxfp4: fp32(e2m1(q) * 2^(e-127)) (exact unless it overflows: 6*2^127 -> Inf);
    s_dec must be None.  rows/cols (logical scale-matrix shape) default to
    q_packed.shape[-2] and K//bs; they are needed only for swizzled scales.
    """
    q, s, bs = _row_major_scales(q_packed, scales, fmt, swizzled, rows, cols)
    v = e2m1_decode(unpack_fp4(q))
    sv = e4m3_decode(s) if fmt == "nvfp4" else e8m0_decode(s)
    with np.errstate(over="ignore", invalid="ignore"):
        out = _scale_blocks(v, sv, bs)
        if s_dec is not None:
            if fmt != "nvfp4":
                raise ValueError("s_dec only applies to nvfp4")
            sd = np.asarray(s_dec, dtype=np.float32)
            per_row = sd.ndim == out.ndim - 1
            out = out * sd.reshape(sd.shape + ((1,) if per_row else (1, 1)))
    return out.astype(np.float32, copy=False)


def _dequant_f64(q_packed, scales, fmt, swizzled, rows=None):
    """Exact dequantized values (no S_dec) in float64. Without scales,
    q_packed is bf16 (uint16 bits) or f16 values (a weight-only matmul's
    activations), taken as they are."""
    if scales is None:
        return to_f32(q_packed).astype(np.float64)
    q, s, bs = _row_major_scales(q_packed, scales, fmt, swizzled, rows, None)
    v = E2M1_VALUES.astype(np.float64)[unpack_fp4(q)]
    sv = (e4m3_decode(s) if fmt == "nvfp4" else e8m0_decode(s)).astype(np.float64)
    sh = v.shape
    return (v.reshape(sh[:-1] + (sh[-1] // bs, bs)) * sv[..., None]).reshape(sh)


# ---------------------------------------------------------------------------
# Matmul references (float64)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Activations (docs/spec.md 2.10)
# ---------------------------------------------------------------------------

_F = np.float32


def exp_f32(x) -> np.ndarray:
    """e^x by the spec's fixed sequence of fp32 operations (2.10): what every
    target computes, bit for bit."""
    x = np.asarray(x, dtype=_F)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        c = np.where(np.isnan(x), x, np.maximum(np.minimum(x, _F(89)), _F(-104)))
        t = c * _F(float.fromhex("0x1.715476p+0"))  # log2(e)
        magic = _F(float.fromhex("0x1.8p23"))
        n = (t + magic) - magic
        r = (c - n * _F(float.fromhex("0x1.62e4p-1"))) - n * _F(float.fromhex("0x1.7f7d1cp-20"))
        p = np.full_like(r, _F(1.0 / 5040.0))
        for k in (1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0):
            p = p * r + _F(k)
        ni = np.where(np.isnan(n), 0, n).astype(np.int32)
        h = ni >> 1
        power = lambda e: ((e + 127).astype(np.int32) << 23).view(_F)  # noqa: E731
        return (p * power(h)) * power(ni - h)


def sigmoid_f32(t) -> np.ndarray:
    """fl(1 / fl(1 + exp_f32(-t)))."""
    t = np.asarray(t, dtype=_F)
    with np.errstate(over="ignore"):
        return _F(1) / (_F(1) + exp_f32(-t))


def swiglu(x, *, sigmoid_scale=1.0, limit=None, up_offset=0.0, out_dtype=None) -> np.ndarray:
    """nvfp4.swiglu of [..., 2N] interleaved gate/up values (bf16 bits as
    uint16, f16 or f32): [..., N] float32 values rounded to `out_dtype`
    (default: the input's type)."""
    v = to_f32(x)
    g, u = v[..., 0::2].copy(), v[..., 1::2].copy()
    if limit is not None:
        lim = _F(limit)
        g = np.where(g > lim, lim, g)
        u = np.where(u > lim, lim, np.where(u < -lim, -lim, u))
    s = g if sigmoid_scale == 1.0 else _F(sigmoid_scale) * g
    with np.errstate(over="ignore", invalid="ignore"):
        y = (g * sigmoid_f32(s)) * (u if up_offset == 0.0 else u + _F(up_offset))
    return round_to_dtype(y, out_dtype or input_dtype(x))


def moe_route(ids, num_experts: int):
    """nvfp4.moe_route (docs/spec.md 2.11) of top-k indices [T, K]:
    (sorted_pairs [T*K], pair_rows [T, K], group_offsets [E + 1]), int32."""
    ids = np.asarray(ids, dtype=np.int64)
    flat = ids.reshape(-1)
    kept = (flat >= 0) & (flat < num_experts)
    key = np.where(kept, flat, num_experts - 1)
    order = np.argsort(key, kind="stable")
    rows = np.empty(flat.size, dtype=np.int64)
    rows[order] = np.arange(flat.size)
    offsets = np.zeros(num_experts + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(np.bincount(key, minlength=num_experts))
    return (order.astype(np.int32), np.where(kept, rows, -1).reshape(ids.shape).astype(np.int32),
            offsets.astype(np.int32))


def moe_dispatch(x, sorted_pairs) -> np.ndarray:
    """nvfp4.moe_dispatch: row r = x[sorted_pairs[r] // K] (zeros for a pair
    outside [0, T*K)), in x's own storage."""
    x = np.asarray(x)
    pairs = np.asarray(sorted_pairs, dtype=np.int64)
    k = pairs.size // x.shape[0]
    inside = (pairs >= 0) & (pairs < pairs.size)
    out = x[np.where(inside, pairs, 0) // k].copy()
    out[~inside] = 0
    return out


def moe_combine(y, pair_rows, weights, out_dtype=None, product_dtype=None) -> np.ndarray:
    """nvfp4.moe_combine: per token the fp32 sum in slot order of
    fl(w * row) (rounded to `product_dtype` when given) over the kept pairs,
    rounded to `out_dtype` (default y's type); float32 values."""
    v = to_f32(y)
    w = to_f32(weights)
    rows = np.asarray(pair_rows, dtype=np.int64)
    acc = np.zeros((rows.shape[0], v.shape[1]), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for s in range(rows.shape[1]):
            r, ws = rows[:, s], w[:, s]
            keep = (r >= 0) & (r < v.shape[0]) & (ws != 0)
            term = (ws[:, None] * v[np.where(keep, r, 0)]).astype(np.float32)
            if product_dtype is not None:
                term = round_to_dtype(term, product_dtype)
            acc = np.where(keep[:, None], (acc + term).astype(np.float32), acc)
    return round_to_dtype(acc, out_dtype or input_dtype(y))


def _epilogue(acc, alpha, beta, c_in):
    out = np.asarray(alpha, dtype=np.float64) * acc
    if c_in is not None and beta != 0:
        out = out + np.float64(beta) * np.asarray(c_in, dtype=np.float64)
    return out


def alpha_eff(a_decode=None, b_decode=None, alpha=None) -> np.ndarray:
    """A matmul's fp32 alpha_eff (docs/spec.md 2.7): fl(fl(a * b) * alpha),
    each missing factor 1.  Scalars give a scalar; a row-scaled operand's
    decode scales ([M] for A, [N] for B) give the [M, N] outer product."""
    a = None if a_decode is None else np.asarray(a_decode, dtype=np.float32)
    b = None if b_decode is None else np.asarray(b_decode, dtype=np.float32)
    if a is not None and a.ndim == 1:
        a = a[:, None]
    if b is not None and b.ndim == 1:
        b = b[None, :]
    result = None
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for factor in (a, b, alpha):
            if factor is not None:
                f = np.asarray(factor, dtype=np.float32)
                result = f if result is None else (result * f).astype(np.float32)
    return np.asarray(F32(1.0) if result is None else result, dtype=np.float32)


def matmul_reference(a_q, a_s, b_q, b_s, *, fmt="nvfp4", alpha=1.0, beta=0.0, c_in=None,
                     a_rows=None, b_rows=None, swizzled=False) -> np.ndarray:
    """C = alpha * Ahat @ Bhat^T (+ beta * c_in), float64 (NT layout).

    a_q [..., M, K/2], b_q [..., N, K/2]; Ahat/Bhat = e2m1 * block scale, exact
    (no S_dec: for NVFP4 pass alpha = alpha_eff(S_dec(A), S_dec(B), alpha)).
    a_s=None: a_q is bf16 bits / f16 values [..., M, K] (W4A16).
    A scalar alpha, one per batch entry (shape [B] for 3-D operands), or one
    per output ([M, N]: row-scaled operands).  c_in is read only if
    beta != 0.  a_rows/b_rows default to the q shapes (swizzled scales).
    """
    ah = _dequant_f64(a_q, a_s, fmt, swizzled, a_rows)
    bh = _dequant_f64(b_q, b_s, fmt, swizzled, b_rows)
    acc = np.matmul(ah, np.swapaxes(bh, -1, -2))
    al = np.asarray(alpha, dtype=np.float64)
    if al.ndim and al.ndim != acc.ndim:
        al = al.reshape(al.shape + (1, 1))
    return _epilogue(acc, al, beta, c_in)


def grouped_matmul_independent(groups, *, fmt="nvfp4", beta=0.0, c_in=None,
                               swizzled=False) -> list:
    """Mode (1): independent problems.

    groups: sequence of (a_q [M_g, K_g/2], a_s, b_q [N_g, K_g/2], b_s, alpha_g).
    c_in: None or a list of [M_g, N_g].  Returns a list of float64 C_g.
    """
    out = []
    for g, (a_q, a_s, b_q, b_s, alpha_g) in enumerate(groups):
        out.append(matmul_reference(a_q, a_s, b_q, b_s, fmt=fmt, alpha=alpha_g, beta=beta,
                                    c_in=None if c_in is None else c_in[g], swizzled=swizzled))
    return out


def grouped_matmul_contiguous(a_q, a_s, b_q, b_s, offsets, alpha, *, fmt="nvfp4", beta=0.0,
                              c_in=None, swizzled=False) -> np.ndarray:
    """Mode (2): contiguous (MoE) grouping.

    a_q [sumM, K/2] (rows of all groups concatenated), offsets [G+1] with
    offsets[0] = 0, nondecreasing, offsets[G] = sumM; group g owns rows
    offsets[g]:offsets[g+1].  a_s: [sumM, K/bs], or (swizzled) the swizzle of
    that whole matrix over the concatenated rows.  b_q [G, N, K/2], b_s
    [G, N, K/bs] or swizzled per group [G, ...5-D].  alpha [G] (or scalar).
    Returns float64 C [sumM, N]; c_in [sumM, N] (used iff beta != 0).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    a_q = np.asarray(a_q) if a_s is None else np.asarray(a_q, dtype=np.uint8)
    b_q = np.asarray(b_q, dtype=np.uint8)
    g_count = b_q.shape[0]
    sum_m = a_q.shape[0]
    if offsets.shape != (g_count + 1,) or offsets[0] != 0 or offsets[-1] != sum_m \
            or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must be [G+1], start at 0, be nondecreasing, end at sumM")
    ah = _dequant_f64(a_q, a_s, fmt, swizzled, sum_m)
    bh = _dequant_f64(b_q, b_s, fmt, swizzled, b_q.shape[1])
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (g_count,))
    c = np.empty((sum_m, b_q.shape[1]), dtype=np.float64)
    for g in range(g_count):
        lo, hi = offsets[g], offsets[g + 1]
        c[lo:hi] = alpha[g] * (ah[lo:hi] @ bh[g].T)
    if c_in is not None and beta != 0:
        c = c + np.float64(beta) * np.asarray(c_in, dtype=np.float64)
    return c


def grouped_matmul_masked(a_q, a_s, b_q, b_s, masked_m, alpha, *, fmt="nvfp4", beta=0.0,
                          c_in=None, swizzled=False) -> np.ndarray:
    """Mode (3): masked grouping.

    a_q [G, maxM, K/2], b_q [G, N, K/2], scales [G, rows, K/bs] or swizzled per
    group; masked_m [G] (0 <= masked_m[g] <= maxM).  Returns float64
    C [G, maxM, N] where rows m >= masked_m[g] are NaN: the kernel must not
    compute or write them (compare only valid rows, or check that the output
    buffer kept its previous contents there).
    """
    a_q = np.asarray(a_q) if a_s is None else np.asarray(a_q, dtype=np.uint8)
    b_q = np.asarray(b_q, dtype=np.uint8)
    g_count, max_m = a_q.shape[0], a_q.shape[1]
    masked_m = np.asarray(masked_m, dtype=np.int64)
    if masked_m.shape != (g_count,) or np.any(masked_m < 0) or np.any(masked_m > max_m):
        raise ValueError("masked_m must be [G] with 0 <= masked_m[g] <= maxM")
    c = matmul_reference(a_q, a_s, b_q, b_s, fmt=fmt,
                         alpha=np.broadcast_to(np.asarray(alpha, dtype=np.float64), (g_count,)),
                         beta=beta, c_in=c_in, swizzled=swizzled)
    invalid = np.arange(max_m)[None, :] >= masked_m[:, None]
    c[invalid] = np.nan
    return c


def cast_output(c, dtype: str = "f32"):
    """Cast a float64 reference to the kernel output type.

    'f32' -> np.float32 (RNE); 'f16' -> np.float16 via fp32 (RNE twice);
    'bf16' -> uint16 bf16 bits via fp32 (RNE twice).  Going through fp32
    mirrors the fp32 epilogue of the kernels.
    """
    c32 = np.asarray(c, dtype=np.float64).astype(np.float32)
    if dtype == "f32":
        return c32
    if dtype == "f16":
        with np.errstate(over="ignore"):
            return c32.astype(np.float16)
    if dtype == "bf16":
        return f32_to_bf16_bits(c32)
    raise ValueError(f"dtype must be 'f32', 'f16' or 'bf16', got {dtype!r}")


def is_close(c, ref) -> np.ndarray:
    """Elementwise |c - ref| <= 1e-3 + 1e-3*|ref| in float64 (NaN -> False).

    c may be float32/float16/float64 values or bf16 bits (uint16).
    """
    c = np.asarray(c)
    c = bf16_bits_to_f32(c) if c.dtype == np.uint16 else c
    c = c.astype(np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.abs(c - ref) <= TOL_ABS + TOL_REL * np.abs(ref)


# ---------------------------------------------------------------------------
# Test data
# ---------------------------------------------------------------------------

def make_test_tensor(shape, seed, kind="mixed", dtype="f32"):
    """Deterministic test data (fresh random per seed), float32-valued.

    The last dimension is cut into segments of 32 elements (16 if K % 32 != 0;
    K must be a multiple of 16), each segment one of:
      * gaussian (70%): N(0, 1);
      * zero (10%): all zeros (a whole 32-block, so also two 16-blocks);
      * outlier (10%): N(0, 1) with one element replaced by +-U(200, 1000);
      * tiny (10%): each 16-half has max |x| = amax * U(4e-6, 3e-5) (amax =
        max |x| over the rest of the batch entry's data) and the other
        elements uniform below it, so the NVFP4 block scale is a non-zero
        E4M3 subnormal (amax_b * 448 / amax in [1.8e-3, 1.35e-2] < 2^-6),
        also with four_over_six and e4m3_max 256 (with 448, candidate 4's
        scale, 1.5 times larger, may be normal).
    Counts are round(fraction * nseg), at least one of each kind when nseg >= 4
    (gaussian takes the remainder); kinds are shuffled over the segments.
    kind='gaussian': all gaussian.  kind='nonfinite': 'mixed' plus one NaN,
    one +Inf and one -Inf at random positions (per batch entry).
    dtype 'f32' -> float32 array; 'bf16' -> (uint16 bits, float32 values);
    'f16' -> (float16 array, float32 values); values exactly representable.
    """
    shape = tuple(int(s) for s in shape)
    if len(shape) < 1 or shape[-1] % 16:
        raise ValueError("last dimension must be a multiple of 16")
    if kind not in ("mixed", "gaussian", "nonfinite"):
        raise ValueError(f"unknown kind {kind!r}")
    if dtype not in ("f32", "bf16", "f16"):
        raise ValueError(f"unknown dtype {dtype!r}")
    rng = np.random.default_rng(seed)
    k = shape[-1]
    seg = 32 if k % 32 == 0 else 16

    def rnd(v):
        v = np.asarray(v, dtype=np.float32)
        if dtype == "bf16":
            return bf16_bits_to_f32(f32_to_bf16_bits(v))
        if dtype == "f16":
            return v.astype(np.float16).astype(np.float32)
        return v

    x = rng.standard_normal(shape, dtype=np.float32)
    if kind == "gaussian":
        x = rnd(x)
    else:
        segs = x.reshape(-1, seg)  # view: row-major segments
        nseg = segs.shape[0]
        counts = {t: int(round(0.1 * nseg)) for t in ("zero", "outlier", "tiny")}
        if nseg >= 4:
            counts = {t: max(1, c) for t, c in counts.items()}
        kinds = np.zeros(nseg, dtype=np.int8)  # 0 gaussian
        order = rng.permutation(nseg)
        pos = 0
        for code, t in ((1, "zero"), (2, "outlier"), (3, "tiny")):
            kinds[order[pos:pos + counts[t]]] = code
            pos += counts[t]
        segs[kinds == 1] = 0.0
        out_idx = np.nonzero(kinds == 2)[0]
        if out_idx.size:
            where = rng.integers(0, seg, out_idx.size)
            mag = rng.uniform(200.0, 1000.0, out_idx.size) * rng.choice([-1.0, 1.0], out_idx.size)
            segs[out_idx, where] = mag.astype(np.float32)
        tiny = kinds == 3
        segs[tiny] = 0.0
        x = rnd(x)
        # amax per batch entry (last two dims), from the non-tiny data.
        lead = shape[:-2] if len(shape) >= 2 else ()
        amax = np.abs(x).reshape(lead + (-1,)).max(axis=-1) if x.size else np.float32(0)
        amax = np.where(np.asarray(amax) > 0, amax, np.float32(1.0))
        per_elem_amax = np.broadcast_to(np.asarray(amax, dtype=np.float32).reshape(
            lead + (1,) * (len(shape) - len(lead))), shape).reshape(-1, 16)
        tiny16 = np.repeat(tiny, seg // 16)
        n16 = int(tiny16.sum())
        if n16:
            a16 = per_elem_amax[tiny16, 0] * rng.uniform(4e-6, 3e-5, n16).astype(np.float32)
            vals = rng.uniform(-1.0, 1.0, (n16, 16)).astype(np.float32) * a16[:, None] * F32(0.95)
            where = rng.integers(0, 16, n16)
            vals[np.arange(n16), where] = a16 * rng.choice([-1.0, 1.0], n16).astype(np.float32)
            x16 = x.reshape(-1, 16)
            x16[tiny16] = rnd(vals)
        if kind == "nonfinite":
            flat = x.reshape(lead + (-1,)) if len(shape) >= 2 else x.reshape(1, -1)
            flat2 = flat.reshape(-1, flat.shape[-1])
            for b in range(flat2.shape[0]):
                p = rng.choice(flat2.shape[1], size=min(3, flat2.shape[1]), replace=False)
                for val, pp in zip((np.nan, np.inf, -np.inf), p):
                    flat2[b, pp] = val
    x = np.ascontiguousarray(x, dtype=np.float32)
    if dtype == "bf16":
        return f32_to_bf16_bits(x), x
    if dtype == "f16":
        return x.astype(np.float16), x
    return x
