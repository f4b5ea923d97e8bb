"""The bit-level arithmetic the sm_90a kernels dequantize weights with
(lib/Conversion/NVFP4KernelToNVVM: E2M1ToF16, E2M1ToBF16), replayed in
numpy on every E2M1 code and every finite E4M3 and E8M0 scale: each step
must be exact where the kernel relies on it; and the consumer's scale-byte
index math (GroupedGemmKernel.cpp: the 8-byte load and the prmt selector)
replayed for every thread against the reference swizzle. What the GPU's
instructions do with these bit patterns is checked on the device
(test/Integration/GPU)."""

import numpy as np

from nvfp4 import reference as ref

CODES = np.arange(16, dtype=np.uint32)
E2M1 = ref.E2M1_VALUES.astype(np.float64)[CODES]


def _finite_e4m3():
    bits = np.arange(256, dtype=np.uint8)
    values = ref.e4m3_decode(bits).astype(np.float64)
    keep = np.isfinite(values) & (values > 0)
    return bits[keep], values[keep]


def _bf16_value(bits):
    """bf16 bit patterns (uint16, subnormals included) as float64."""
    return ref.bf16_bits_to_f32(np.asarray(bits, np.uint16)).astype(np.float64)


def _is_bf16(x):
    return np.all(ref.bf16_bits_to_f32(ref.f32_to_bf16_bits(x.astype(np.float32)))
                  .astype(np.float64) == x)


def test_bf16_fragment_patterns_are_e2m1_times_2_to_the_minus_126():
    # (n & 7) << 6 | (n & 8) << 12 in a 16-bit lane (E2M1ToBF16::half)
    pattern = ((CODES & 7) << 6) | ((CODES & 8) << 12)
    assert np.array_equal(_bf16_value(pattern), E2M1 * 2.0 ** -126)
    # times 2^126 (0x7E80): exact, normal
    assert _bf16_value(np.array([0x7E80]))[0] == 2.0 ** 126
    assert np.array_equal(_bf16_value(pattern) * 2.0 ** 126, E2M1)


def test_bf16_fragments_times_every_scale_are_exact_in_bf16():
    _, scales = _finite_e4m3()
    products = E2M1[:, None] * scales[None, :]
    assert _is_bf16(scales)            # e4m3 -> f16 -> f32 -> bf16 keeps it
    assert _is_bf16(products)          # mul.bf16x2 by the scale: no rounding
    nonzero = products[products != 0]
    assert np.abs(nonzero).min() == 2.0 ** -10 and np.abs(nonzero).max() == 2688


def _e8m0_bf16_bits(e):
    """E2M1ToBF16::scalePair for E8M0: e << 7, 0x0040 for e = 0, 0x7FC0
    for e = 255."""
    e = np.asarray(e, np.uint32)
    return np.where(e == 0, 0x0040, np.where(e == 255, 0x7FC0, e << 7)).astype(np.uint16)


def test_e8m0_scales_as_bf16_patterns_are_the_reference_scales():
    e = np.arange(256)
    got = _bf16_value(_e8m0_bf16_bits(e))
    want = ref.e8m0_decode(e.astype(np.uint8)).astype(np.float64)
    assert np.array_equal(got[:255], want[:255])      # 2^-127 (subnormal) .. 2^127
    assert np.isnan(got[255]) and np.isnan(want[255])


def test_bf16_fragments_times_every_e8m0_scale_are_exact_or_overflow_as_fp32():
    # MXFP4 weights on the bf16 MMA: e2m1 * 2^(e - 127) from the exact
    # e2m1 (pattern * 2^126) times the scale pattern. Every finite product
    # is a bf16 (subnormals down to 2^-128 included); where it is not
    # finite, fp32 (the reference's dequantization) overflows too.
    scales = _bf16_value(_e8m0_bf16_bits(np.arange(255)))
    products = E2M1[:, None] * scales[None, :]
    with np.errstate(over="ignore"):
        fp32 = (ref.E2M1_VALUES[:, None].astype(np.float32) *
                ref.e8m0_decode(np.arange(255).astype(np.uint8))[None, :])
    finite = np.abs(products) < 2.0 ** 128
    assert _is_bf16(products[finite])
    assert np.array_equal(products[finite], fp32[finite].astype(np.float64))
    assert np.all(np.isinf(fp32[~finite]))
    # bf16 rounds to infinity exactly where fp32 does: 2^128 and above.
    assert np.all(np.isinf(ref.bf16_bits_to_f32(
        ref.f32_to_bf16_bits(fp32[~finite]))))
    nonzero = np.abs(products[(products != 0) & finite])
    assert nonzero.min() == 2.0 ** -128


def test_lanes_of_two_codes_per_word():
    # Bytes 0 and 1 of a word of per-byte codes -> the low bytes of two
    # 16-bit lanes: (w & 0xFF) | (w & 0xFF00) << 8; bytes 2, 3 after >> 16.
    rng = np.random.default_rng(0)
    words = rng.integers(0, 16, size=(1000, 4)).astype(np.uint32)
    packed = words[:, 0] | words[:, 1] << 8 | words[:, 2] << 16 | words[:, 3] << 24
    for high, (a, b) in ((False, (0, 1)), (True, (2, 3))):
        w = packed >> 16 if high else packed
        lanes = (w & 0xFF) | ((w & 0xFF00) << 8)
        assert np.array_equal(lanes & 0xFFFF, words[:, a])
        assert np.array_equal(lanes >> 16, words[:, b])


def test_f16_fragments_are_exact_too():
    # E2M1ToF16: ((n & 7) << 2 | (n & 8) << 4) as an E4M3 byte is
    # e2m1 * 2^-6; times scale * 2^6 (exact in f16) gives e2m1 * scale.
    pattern = (((CODES & 7) << 2) | ((CODES & 8) << 4)).astype(np.uint8)
    assert np.array_equal(ref.e4m3_decode(pattern).astype(np.float64), E2M1 * 2.0 ** -6)
    _, scales = _finite_e4m3()
    products = E2M1[:, None] * scales[None, :]
    assert np.all(products.astype(np.float16).astype(np.float64) == products)


def _prmt(w0, w1, selector):
    """PTX prmt.b32 (default mode): result byte i is byte (selector nibble
    i) of the 8 bytes {w1, w0}."""
    src = int(w0) | (int(w1) << 32)
    return sum(((src >> (8 * ((selector >> (4 * i)) & 7))) & 0xFF) << (8 * i)
               for i in range(4))


def test_consumer_scale_bytes_are_the_rows_and_blocks_of_its_codes():
    # GroupedGemmKernel.cpp, emitConsumer: thread (warpgroup J, warp w,
    # lane l) owns tile rows rho = 64 J + 8 w + l / 4 and rho + 32, and the
    # code bytes 16 c .. 16 c + 15 (c = l % 4) of each row in a 128-K stage:
    # chunks 2c and 2c + 1 (16 codes each). One 8-byte load at the scale
    # word of row rho in the stage's units, then prmt: bytes 0, 1 the
    # (rho, rho + 32) scales of chunk 2c, bytes 2, 3 those of chunk 2c + 1.
    # NVFP4: two units a stage, block = chunk; MXFP4: one unit, block = c.
    rng = np.random.default_rng(3)
    for fmt, bs in (("nvfp4", 16), ("mxfp4", 32)):
        k = 640                                   # 5 stages
        scales = rng.integers(0, 256, size=(128, k // bs), dtype=np.uint8)
        tile = ref.swizzle_scales(scales).reshape(-1)  # one 128-row tile
        units_per_stage = 128 // (4 * bs)
        for stage in range(k // 128):
            region = tile[stage * units_per_stage * 512:(stage + 1) * units_per_stage * 512]
            for j in range(2):
                for w in range(4):
                    for lane in range(32):
                        c, g = lane % 4, lane // 4
                        rho = 64 * j + 8 * w + g
                        unit = 0 if fmt == "mxfp4" else c // 2
                        at = unit * 512 + (rho % 32) * 16 + (rho % 128) // 32 * 4
                        assert at % 8 == 0            # the 8-byte load is aligned
                        w0 = int.from_bytes(region[at:at + 4].tobytes(), "little")
                        w1 = int.from_bytes(region[at + 4:at + 8].tobytes(), "little")
                        lo = c if fmt == "mxfp4" else (c % 2) * 2
                        hi = c if fmt == "mxfp4" else lo + 1
                        selector = lo + (lo + 4) * 16 + hi * 256 + (hi + 4) * 4096
                        got = _prmt(w0, w1, selector).to_bytes(4, "little")
                        for h in range(2):
                            chunk = stage * 8 + 2 * c + h
                            block = chunk * 16 // bs
                            assert got[2 * h] == scales[rho, block]
                            assert got[2 * h + 1] == scales[rho + 32, block]
