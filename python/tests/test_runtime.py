"""The in-process runtime and the Python API on it (issue 10), on the CPU.

Every API function on numpy arrays (and torch CPU tensors when torch is
installed) against the reference; out= writes in place; the disk cache is
reused by a second process and filled safely by two at once; bad input
raises with the runtime's message and writes nothing. The GPU side (torch
CUDA tensors, streams, graph capture) is test/Integration/GPU/python-api.test.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from nvfp4 import compiler, runtime
from nvfp4 import reference as ref

pytestmark = pytest.mark.skipif(not runtime.available(),
                                reason="nvfp4._runtime is not built")

try:
    import torch
except ImportError:  # torch is optional in CI
    torch = None

PYTHON_DIR = Path(__file__).resolve().parents[1]
POISON = 0xFF


def _data(shape, seed, dtype="f32"):
    return ref.make_test_tensor(shape, seed, dtype=dtype)


def _poisoned(shape, dtype):
    a = np.empty(shape, dtype)
    a.reshape(-1).view(np.uint8).fill(POISON)
    return a


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_quantize_bit_exact_and_out(dtype):
    x = _data((256, 128), 3, dtype)
    x = x[0] if dtype == "bf16" else x
    want = ref.quantize_nvfp4(x, swizzle=True)
    got = compiler.quantize(x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    outs = (_poisoned((256, 64), np.uint8), _poisoned((2, 2, 32, 4, 4), np.uint8),
            _poisoned((), np.float32))
    res = compiler.quantize(x, out=outs)
    assert all(r is o for r, o in zip(res, outs))
    for g, w in zip(outs, want):
        np.testing.assert_array_equal(g, np.asarray(w))


def test_quantize_options_and_mxfp4():
    x = _data((128, 64), 5)
    q, s, d = compiler.quantize(x, block="16x16", swizzle=False)
    wq, ws, wd = ref.quantize_nvfp4(x, block=(16, 16))
    np.testing.assert_array_equal(q, wq)
    np.testing.assert_array_equal(s, ws)
    q, s = compiler.quantize(x, "mxfp4", rounding="stochastic", seed=11)
    wq, ws = ref.quantize_mxfp4(x, rounding="stochastic", seed=11, swizzle=True)
    np.testing.assert_array_equal(q, wq)
    np.testing.assert_array_equal(s, ws)


def test_hadamard_near_the_bf16_maximum_matches_the_reference():
    # bf16 rows of +-max (some with smaller values): the compiled transform
    # sums the terms x_i / 16 and multiplies by 4 (spec 2.2), so its partial
    # sums stay finite as the reference's do; the quantized bytes, scales and
    # decode scale agree bit for bit, with the tensor amax computed (Inf
    # where a column overflows) and given.
    big = ref.bf16_bits_to_f32(np.uint16(0x7F7F))
    rng = np.random.default_rng(8)
    rows = np.where(rng.random((32, 64)) < 0.5, big, -big).astype(np.float32)
    rows[1, :16] = -big * ref.HADAMARD_SIGNS
    rows[8:, ::5] = rng.normal(size=rows[8:, ::5].shape) * 1e35
    bits = ref.f32_to_bf16_bits(rows)
    for amax in (None, np.float32(3e38)):
        options = {} if amax is None else {"amax": amax}
        got = compiler.quantize(bits, hadamard=True, swizzle=False, **options)
        want = ref.quantize_nvfp4(bits, hadamard=True, **options)
        for g, w in zip(got, want):
            _same_bits(g, w)
    q, s = compiler.quantize(bits, "mxfp4", hadamard=True, swizzle=False)
    wq, ws = ref.quantize_mxfp4(bits, hadamard=True)
    _same_bits(q, wq)
    _same_bits(s, ws)


def _same_bits(got, want):
    got, want = np.atleast_1d(np.asarray(got)), np.atleast_1d(np.asarray(want))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def _roundtrip_breaking_decode_scale():
    """A decode scale d with fl(1/fl(1/d)) != d (S_dec recomputed from S_enc
    would not be d)."""
    one = np.float32(1)
    return next(d for d in (np.float32(k) * np.float32(1e-4) for k in range(1, 200))
                if one / (one / d) != d)


def test_quantize_given_scales():
    """encode_scale / decode_scale as a Python float, a numpy float32 scalar
    or a per-batch-entry array: the reference's bits, the decode scale
    reported as given (decode_scale) or fl(1/e) (encode_scale)."""
    x = _data((96, 64), 13)
    d = _roundtrip_breaking_decode_scale()
    for kw in (dict(encode_scale=2.75), dict(encode_scale=np.float32(0.125)),
               dict(decode_scale=d), dict(decode_scale=np.array(d)),
               dict(decode_scale=0.5, block="16x16", swizzle=False),
               dict(encode_scale=40.0, rounding="stochastic", seed=9, hadamard=True)):
        got = compiler.quantize(x, **kw)
        opts = dict(kw)
        if opts.get("block") == "16x16":
            opts["block"] = (16, 16)
        want = ref.quantize_nvfp4(x, swizzle=opts.pop("swizzle", True), **opts)
        for g, w in zip(got, want):
            _same_bits(g, w)
    _, _, sd = compiler.quantize(x, decode_scale=d)
    assert sd.view(np.uint32) == np.float32(d).view(np.uint32)
    _, _, sd = compiler.quantize(x, encode_scale=np.float32(1) / d)
    assert sd != d  # recomputed from S_enc: not the calibrated d
    # per batch entry, with out=
    xb, _ = _data((3, 40, 32), 14, "bf16")
    e = np.array([0.5, 7.0, 1e4], np.float32)
    want = ref.quantize_nvfp4(xb, encode_scale=e, swizzle=True)
    outs = (_poisoned((3, 40, 16), np.uint8), _poisoned((3, 1, 1, 32, 4, 4), np.uint8),
            _poisoned((3,), np.float32))
    res = compiler.quantize(xb, encode_scale=e, out=outs)
    assert all(r is o for r, o in zip(res, outs))
    for g, w in zip(outs, want):
        _same_bits(g, w)
    np.testing.assert_array_equal(outs[2], np.float32(1) / e)


def test_quantize_given_scale_edge_values():
    """No guard: 0, Inf, NaN and negative scales go through the block
    formulas (docs/spec.md 2.2); the reference's bits, NaN decode scales as
    NaN."""
    x = _data((32, 48), 15)
    for kw in (dict(encode_scale=0.0), dict(encode_scale=-0.0), dict(encode_scale=np.inf),
               dict(decode_scale=0.0), dict(decode_scale=np.inf), dict(decode_scale=-3.0),
               dict(encode_scale=-2.0), dict(decode_scale=np.nan), dict(encode_scale=np.nan)):
        q, s, sd = compiler.quantize(x, **kw)
        wq, ws, wd = ref.quantize_nvfp4(x, swizzle=True, **kw)
        _same_bits(q, wq)
        _same_bits(s, ws)
        if np.isnan(wd):
            assert np.isnan(sd)
        else:
            _same_bits(sd, wd)
    assert compiler.quantize(x, encode_scale=0.0)[2] == np.inf
    assert np.float32(compiler.quantize(x, decode_scale=0.0)[2]).view(np.uint32) == 0


def test_quantize_given_scale_errors_before_compiling(monkeypatch):
    def no_compile(*args, **kwargs):
        raise AssertionError("compiled a program the API should have rejected")
    monkeypatch.setattr(runtime, "compile_program", no_compile)
    x = _data((16, 32), 16)
    for kw, match in ((dict(encode_scale=1.0, decode_scale=1.0), "not both"),
                      (dict(encode_scale=1.0, amax=2.0), "replaces the amax"),
                      (dict(decode_scale=1.0, amax=2.0), "replaces the amax"),
                      (dict(encode_scale=1.0, scale_rule="four_over_six"), "max6"),
                      (dict(decode_scale=1.0, row_scaled=True), "row_scaled"),
                      (dict(fmt="mxfp4", encode_scale=1.0), "nvfp4 only")):
        with pytest.raises(ValueError, match=match):
            compiler.quantize(x, **kw)


def test_dequantize_and_swizzles():
    x = _data((128, 64), 7)
    q, s, d = ref.quantize_nvfp4(x)
    got = compiler.dequantize(q, s, d, out_dtype="f32")
    np.testing.assert_array_equal(got, ref.dequantize(q, s, d))
    sw = compiler.swizzle_scales(s)
    np.testing.assert_array_equal(sw, ref.swizzle_scales(s))
    np.testing.assert_array_equal(compiler.unswizzle_scales(sw, *s.shape), s)
    # the dequantized values through swizzled scales are the same
    np.testing.assert_array_equal(compiler.dequantize(q, sw, d, out_dtype="f32"), got)


def _operands(m, n, k, seed):
    aq, as_, ad = ref.quantize_nvfp4(_data((m, k), seed))
    bq, bs, bd = ref.quantize_nvfp4(_data((n, k), seed + 1))
    return aq, as_, ad, bq, bs, bd


def _close(got, want):
    tol = ref.TOL_ABS + ref.TOL_REL * np.abs(want)
    assert (np.abs(np.asarray(got, np.float64) - want) <= tol).all()


@pytest.mark.parametrize("swizzled", [True, False])
def test_matmul_row_major_or_swizzled_scales(swizzled):
    aq, as_, ad, bq, bs, bd = _operands(130, 72, 96, 11)
    sa, sb = (ref.swizzle_scales(as_), ref.swizzle_scales(bs)) if swizzled else (as_, bs)
    got = compiler.matmul(aq, sa, bq, sb, a_decode=ad, b_decode=bd, out_dtype="f32")
    want = ref.matmul_reference(aq, as_, bq, bs, alpha=float(ad) * float(bd))
    _close(got, want)


def test_fp4_matmul_and_quantize_to_fp4():
    a, b = _data((64, 128), 13), _data((48, 128), 14)
    qa = compiler.quantize_to_fp4(a)
    assert qa.fmt == "nvfp4" and qa.decode_scale is not None
    got = compiler.fp4_matmul(a, b, out_dtype="f32", b_options={"block": "16x16"})
    aq, as_, ad = ref.quantize_nvfp4(a)
    bq, bs, bd = ref.quantize_nvfp4(b, block=(16, 16))
    _close(got, ref.matmul_reference(aq, as_, bq, bs, alpha=float(ad) * float(bd)))


def _gpu_mode_group(m, n, k, seed):
    """One group as GPU-mode hands it over: [M, K/2, 1] values, [M, K/16, 1]
    row-major scales (and the pre-tiled 6-D form of the same scales)."""
    aq, as_, ad, bq, bs, bd = _operands(m, n, k, seed)
    return aq, as_, bq, bs, float(ad) * float(bd)


def _pretiled(s):
    """GPU-mode's [32, 4, R/128, 4, C/4, 1] view of swizzled bytes."""
    sw = ref.swizzle_scales(s)  # [RT, CT, 32, 4, 4]
    return sw[None].transpose(3, 4, 1, 5, 2, 0)


def test_grouped_independent_gpu_mode_forms():
    groups = [_gpu_mode_group(m, 64, 128, 20 + i) for i, m in enumerate([40, 130])]
    a = [g[0][:, :, None] for g in groups]
    b = [g[2][:, :, None] for g in groups]
    sa_rm = [g[1][:, :, None] for g in groups]
    sb_tiled = [_pretiled(g[3]) for g in groups]
    alpha = np.array([g[4] for g in groups], np.float32)
    got = compiler.grouped_matmul("independent", [x[:, :, 0] for x in a], sa_rm,
                                  [x[:, :, 0] for x in b], sb_tiled, alpha=alpha,
                                  out_dtype="f32")
    want = ref.grouped_matmul_independent([(g[0], g[1], g[2], g[3], g[4]) for g in groups])
    for g, w in zip(got, want):
        _close(g, w)


def test_grouped_contiguous_and_masked():
    sizes = [5, 0, 19]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
    aq, as_, ad = ref.quantize_nvfp4(_data((24, 64), 31))
    bq, bs, bd = ref.quantize_nvfp4(_data((3, 16, 64), 32))
    got = compiler.grouped_matmul("contiguous", aq, ref.swizzle_scales(as_), bq,
                                  ref.swizzle_scales(bs), group_offsets=offsets,
                                  a_decode=ad, b_decode=bd, out_dtype="f32")
    want = ref.grouped_matmul_contiguous(aq, as_, bq, bs, offsets, ad * bd)
    _close(got, want)
    mq, ms, md = ref.quantize_nvfp4(_data((3, 8, 64), 33))
    masked_m = np.array([8, 0, 3], np.int32)
    got = compiler.grouped_matmul("masked", mq, ref.swizzle_scales(ms), bq,
                                  ref.swizzle_scales(bs), masked_m=masked_m,
                                  a_decode=md, b_decode=bd, out_dtype="f32")
    want = ref.grouped_matmul_masked(mq, ms, bq, bs, masked_m, md * bd)
    for g in range(3):
        _close(got[g, :masked_m[g]], want[g, :masked_m[g]])


def test_bad_input_raises_and_writes_nothing():
    aq, as_, ad, bq, bs, bd = _operands(16, 8, 64, 41)
    sa, sb = ref.swizzle_scales(as_), ref.swizzle_scales(bs)
    out = _poisoned((16, 8), np.float32)
    with pytest.raises(runtime.RunnerError, match="expected A and B to share K"):
        compiler.matmul(aq, sa, bq[:, :16].copy(), sb, out=out, out_dtype="f32")
    assert (out.reshape(-1).view(np.uint8) == POISON).all()
    # out= of the wrong shape or dtype: the runtime's message, nothing written
    bad = _poisoned((16, 9), np.float32)
    with pytest.raises(runtime.RunnerError, match=r"output #0.*\[16, 8\]"):
        compiler.matmul(aq, sa, bq, sb, out=bad, out_dtype="f32")
    assert (bad.reshape(-1).view(np.uint8) == POISON).all()
    with pytest.raises(runtime.RunnerError, match="output #0"):
        compiler.matmul(aq, sa, bq, sb, out=_poisoned((16, 8), np.float64), out_dtype="f32")
    with pytest.raises(ValueError, match="not C-contiguous"):
        compiler.matmul(aq, sa, bq, sb, out=np.empty((8, 16), np.float32).T, out_dtype="f32")
    # group tables out of contract: the message names the rule; C untouched
    groups_b = np.stack([bq, bq])
    groups_s = np.stack([sb, sb])
    for offsets, rule in (([1, 8, 16], "expected 0"), ([0, 9, 8], "is below"),
                          ([0, 8, 20], "expected 16")):
        c = _poisoned((16, 8), np.float32)
        with pytest.raises(runtime.RunnerError, match=rule):
            compiler.grouped_matmul("contiguous", aq, sa, groups_b, groups_s,
                                    group_offsets=np.array(offsets, np.int32),
                                    out=c, out_dtype="f32")
        assert (c.reshape(-1).view(np.uint8) == POISON).all()
    with pytest.raises(runtime.RunnerError, match="invalid program"):
        runtime.run_program("func.func @main() {", [], target="cpu")
    with pytest.raises(ValueError, match="out= takes 3"):
        compiler.quantize(_data((16, 32), 1), out=(np.empty((16, 16), np.uint8),))


def test_row_major_scales_must_cover_their_operand_exactly():
    """Row-major scales are swizzled into 128 x 4 tiles inside the call, so
    scales of fewer rows (or more columns) than the operand would pass the
    verifier and read padding bytes as scales: refused, naming the operand,
    nothing written."""
    aq, as_, ad, bq, bs, bd = _operands(64, 96, 128, 43)
    out = _poisoned((64, 96), np.float32)
    with pytest.raises(ValueError, match=r"a_s: row-major scales of shape \[32, 8\] for "
                                         r"values of shape \[64, 64\] \(K = 128\); "
                                         r"expected \[64, 8\]"):
        compiler.matmul(aq, as_[:32], bq, bs, a_decode=ad, b_decode=bd, out=out,
                        out_dtype="f32")
    wide = np.concatenate([bs, bs[:, :4]], axis=1)
    with pytest.raises(ValueError, match=r"b_s: .*expected \[96, 8\]"):
        compiler.matmul(aq, as_, bq, wide, a_decode=ad, b_decode=bd, out=out,
                        out_dtype="f32")
    assert (out.reshape(-1).view(np.uint8) == POISON).all()
    stack_b = np.stack([bq, bq])
    offsets = np.array([0, 30, 64], np.int32)
    with pytest.raises(ValueError, match=r"b_scales: .*\[2, 96, 8\]"):
        compiler.grouped_matmul("contiguous", aq, as_, stack_b, np.stack([bs, bs])[:, :80],
                                group_offsets=offsets, out_dtype="f32")
    with pytest.raises(ValueError, match=r"a_scales\[1\]: .*expected \[64, 8\]"):
        compiler.grouped_matmul("independent", [aq, aq], [as_, as_[:40]], [bq, bq],
                                [bs, bs], out_dtype="f32")
    with pytest.raises(ValueError, match=r"weight scales: .*expected \[96, 8\]"):
        compiler.linear(_data((4, 128), 44), bq, bs[:64], bd)


def test_options_and_arrays_out_of_contract_are_refused_before_anything_runs():
    """What the API used to accept silently, wrap, truncate or crash on
    (issue 24): each refused with a message, the out= array untouched."""
    x = _data((16, 64), 45)
    aq, as_, ad, bq, bs, bd = _operands(16, 8, 64, 46)
    out = _poisoned((16, 8), np.float32)
    ro = _poisoned((16, 8), np.float32)
    ro.setflags(write=False)
    stack_b, stack_s = np.stack([bq, bq]), np.stack([bs, bs])
    cases = [
        (ValueError, "is read-only",
         lambda: compiler.matmul(aq, as_, bq, bs, out=ro, out_dtype="f32")),
        (ValueError, r"group_offsets: values beyond int32 \(0\.\.4294967304\)",
         lambda: compiler.grouped_matmul("contiguous", aq, as_, stack_b, stack_s,
                                         group_offsets=np.array([0, 2**32 + 8, 16]),
                                         out=out, out_dtype="f32")),
        (TypeError, "group_offsets: integers, got float64",
         lambda: compiler.grouped_matmul("contiguous", aq, as_, stack_b, stack_s,
                                         group_offsets=[0, 8.5, 16], out=out, out_dtype="f32")),
        (ValueError, "contiguous mode takes no masked_m",
         lambda: compiler.grouped_matmul("contiguous", aq, as_, stack_b, stack_s,
                                         group_offsets=[0, 8, 16], masked_m=[1, 2],
                                         out=out, out_dtype="f32")),
        (ValueError, "masked mode needs masked_m",
         lambda: compiler.grouped_matmul("masked", aq[None], as_[None], stack_b, stack_s,
                                         out_dtype="f32")),
        (ValueError, "beta must be finite, got nan",
         lambda: compiler.matmul(aq, as_, bq, bs, acc=np.zeros((16, 8), np.float32),
                                 beta=float("nan"), out=out, out_dtype="f32")),
        (ValueError, "beta scales acc: pass acc too",
         lambda: compiler.matmul(aq, as_, bq, bs, beta=0.5, out=out, out_dtype="f32")),
        (TypeError, "packed FP4 values are uint8 bytes",
         lambda: compiler.matmul(aq.view(np.int8), as_, bq, bs, out=out, out_dtype="f32")),
        (ValueError, "not in this machine's byte order",
         lambda: compiler.quantize(x.astype(x.dtype.newbyteorder("S")))),
        (ValueError, "rounding must be 'nearest_even' or 'stochastic', got 'up'",
         lambda: compiler.quantize(x, rounding="up")),
        (ValueError, r"block must be one of .* got \(16, 16, 1\)",
         lambda: compiler.quantize(x, block=(16, 16, 1))),
        (ValueError, "seed applies to rounding='stochastic' only",
         lambda: compiler.quantize(x, seed=3)),
        (ValueError, "e4m3_max must be a whole number, got 256.7",
         lambda: compiler.quantize(x, scale_rule="four_over_six", e4m3_max=256.7)),
        (ValueError, "benchmark takes reps >= 1",
         lambda: compiler.quantize(x, benchmark=True, reps=0)),
    ]
    for error, message, call in cases:
        with pytest.raises(error, match=message):
            call()
    assert (out.reshape(-1).view(np.uint8) == POISON).all()
    assert (ro.reshape(-1).view(np.uint8) == POISON).all()
    # A block given as a list is the same block as the tuple or the name.
    q_list = compiler.quantize(x, block=[16, 16])
    q_name = compiler.quantize(x, block="16x16")
    for a, b in zip(q_list, q_name):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_the_package_is_the_compiler_and_the_reference_has_its_own_name():
    # One name, one meaning: nvfp4.dequantize is the compiler's; the NumPy
    # oracle is nvfp4.reference and nothing of it is re-exported.
    import nvfp4
    for name in compiler.__all__:
        assert getattr(nvfp4, name) is getattr(compiler, name), name
    assert nvfp4.reference is ref and nvfp4.runtime is runtime
    for name in ("quantize_nvfp4", "matmul_reference", "make_test_tensor"):
        assert not hasattr(nvfp4, name)


def test_emulate_tcgen05_needs_the_gpu_target():
    # The emulated sm_100a kernels are GPU code (what they compute is checked
    # on the H200: test/Integration/GPU/emulate-tcgen05.test).
    with pytest.raises(runtime.RunnerError, match="emulate_tcgen05 .* needs target 'gpu'"):
        runtime.compile_program("func.func @main() {\n  return\n}\n", "cpu",
                                emulate_tcgen05=True)


def test_ops_compile_anew_when_the_pipeline_options_change(monkeypatch):
    # The compiler's programs are keyed by $NVFP4_PIPELINE_OPTIONS as it is
    # at each call (a benchmark that sets it per form must get each form's
    # program, not the one an earlier form compiled): options the CPU
    # pipeline does not take fail the next call, the same call that
    # compiled before.
    x = ref.make_test_tensor((32, 64), 11)
    monkeypatch.setenv("NVFP4_PIPELINE_OPTIONS", "")
    want = [np.asarray(a) for a in compiler.quantize(x)]
    monkeypatch.setenv("NVFP4_PIPELINE_OPTIONS", "no-such-option=1")
    with pytest.raises(runtime.RunnerError, match="no-such-option"):
        compiler.quantize(x)
    monkeypatch.setenv("NVFP4_PIPELINE_OPTIONS", "")
    got = [np.asarray(a) for a in compiler.quantize(x)]
    for a, b in zip(got, want):
        assert np.array_equal(a, b)


def _subprocess(code, cache, **env):
    script = textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True,
        env=dict(os.environ, NVFP4_CACHE_DIR=str(cache), PYTHONPATH=str(PYTHON_DIR), **env))


_CACHE_SCRIPT = """
    import numpy as np, sys
    from nvfp4 import compiler, runtime
    from nvfp4 import reference as ref
    x = ref.make_test_tensor((128, 96), {seed})
    q, s, d = compiler.quantize(x, block="16x16")
    wq, ws, wd = ref.quantize_nvfp4(x, block=(16, 16), swizzle=True)
    assert (q == wq).all() and (s == ws).all() and d == wd
    st = runtime.cache_stats()
    print(st["compiles"], st["disk_hits"], st["disk_writes"])
"""


def test_disk_cache_reused_by_a_second_process(tmp_path):
    first = _subprocess(_CACHE_SCRIPT.format(seed=1), tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["1", "0", "1"]
    entries = list(tmp_path.glob("*.bc"))
    assert len(entries) == 1
    second = _subprocess(_CACHE_SCRIPT.format(seed=2), tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["0", "1", "0"]  # nothing compiled
    # A damaged entry is a miss, recompiled and rewritten.
    entries[0].write_bytes(entries[0].read_bytes()[:100])
    third = _subprocess(_CACHE_SCRIPT.format(seed=3), tmp_path)
    assert third.returncode == 0, third.stderr
    assert third.stdout.split() == ["1", "0", "1"]
    # NVFP4_CACHE_DIR=off: no disk cache at all.
    off = _subprocess(_CACHE_SCRIPT.format(seed=4), "off")
    assert off.returncode == 0, off.stderr
    assert off.stdout.split() == ["1", "0", "0"]


def test_two_processes_fill_the_cache_at_once(tmp_path):
    script = textwrap.dedent(_CACHE_SCRIPT.format(seed=5))
    env = dict(os.environ, NVFP4_CACHE_DIR=str(tmp_path), PYTHONPATH=str(PYTHON_DIR))
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert len(list(tmp_path.glob("*.bc"))) == 1
    assert not list(tmp_path.glob("*.tmp-*"))
    again = _subprocess(_CACHE_SCRIPT.format(seed=6), tmp_path)
    assert again.stdout.split() == ["0", "1", "0"], again.stderr


def test_cpu_call_overhead_is_small():
    s = np.zeros((128, 4), np.uint8)
    compiler.swizzle_scales(s)
    import time
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(200):
            compiler.swizzle_scales(s)
        best = min(best, (time.perf_counter() - t) / 200)
    # issue 10's CPU budget is 50 us of overhead; the op itself is ~1 us.
    assert best < 200e-6, best


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_torch_cpu_tensors_in_torch_out():
    x = torch.from_numpy(_data((128, 64), 51)).to(torch.bfloat16)
    q, s, d = compiler.quantize(x)
    assert q.dtype == getattr(torch, "float4_e2m1fn_x2", torch.uint8)
    assert s.dtype == torch.float8_e4m3fn and d.dtype == torch.float32
    bits = x.view(torch.int16).numpy().view(np.uint16)
    wq, ws, wd = ref.quantize_nvfp4(bits, swizzle=True)
    np.testing.assert_array_equal(q.view(torch.uint8).numpy(), wq)
    np.testing.assert_array_equal(s.view(torch.uint8).numpy(), ws)
    c = compiler.matmul(q, s, q, s, a_decode=d, b_decode=d, out_dtype="bf16")
    assert c.dtype == torch.bfloat16 and c.shape == (128, 128)
    want = ref.matmul_reference(wq, ws, wq, ws, alpha=float(wd) ** 2, swizzled=True)
    got = c.float().numpy().astype(np.float64)
    tol = ref.TOL_ABS + (ref.TOL_REL + 2.0 ** -8) * np.abs(want)
    assert (np.abs(got - want) <= tol).all()


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_allocated_torch_outputs_are_fresh_contiguous_tensors():
    """Outputs come from empty_like of cached one-element templates: each
    call's are new, contiguous, with torch.empty's strides (empty outputs
    too), and own their memory."""
    shapes = {(128, 64): [(128, 32), (1, 1, 32, 4, 4), ()],
              (0, 64): [(0, 32), (0, 1, 32, 4, 4), ()]}
    for shape, want in shapes.items():
        x = torch.ones(shape, dtype=torch.bfloat16)
        first = compiler.quantize(x)
        second = compiler.quantize(x)
        for a, b, s in zip(first, second, want):
            assert a.shape == s and a.is_contiguous()
            assert a.stride() == torch.empty(s).stride()
            if a.numel():
                assert a.untyped_storage().nbytes() == a.numel() * a.element_size()
                assert a.data_ptr() != b.data_ptr()
        if x.numel():
            a, b = first[0].view(torch.uint8), second[0].view(torch.uint8)
            assert torch.equal(a, b)
