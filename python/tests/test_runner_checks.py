"""The inputs nvfp4-runner and the Python API must reject (issue 11, item 4).

docs/spec.md section 3: group_offsets starts at 0, never decreases and ends
at S; 0 <= masked_m[g] <= maxM. Out-of-contract tables raise RunnerError with
the runner's message (the check lives in lib/Runner, so every caller gets
it). .npy sizes are checked with overflow in mind, and unknown CPU pipeline
options are errors. These tests need the built runner (build/bin or
$NVFP4_RUNNER) and run on the CPU.
"""

import subprocess

import numpy as np
import pytest

from nvfp4 import compiler
from nvfp4 import reference as ref

from nvfp4 import runtime
from nvfp4_testing import find_runner

try:
    RUNNER = find_runner()
except FileNotFoundError:  # pragma: no cover - only without a build
    RUNNER = None

pytestmark = pytest.mark.skipif(RUNNER is None or not runtime.available(),
                                reason="nvfp4-runner / nvfp4._runtime not built")

S, K, N, G = 8, 32, 8, 2


def _operands(masked):
    rng = np.random.default_rng(1)
    a_shape = (G, S, K // 2) if masked else (S, K // 2)
    a = rng.integers(0, 256, a_shape, dtype=np.uint8)
    a_s = np.full((G, 1, 1, 32, 4, 4) if masked else (1, 1, 32, 4, 4), 0x38, np.uint8)
    b = rng.integers(0, 256, (G, N, K // 2), dtype=np.uint8)
    b_s = np.full((G, 1, 1, 32, 4, 4), 0x38, np.uint8)
    return a, a_s, b, b_s


def _contiguous(offsets):
    a, a_s, b, b_s = _operands(masked=False)
    return compiler.grouped_matmul("contiguous", a, a_s, b, b_s,
                                   group_offsets=np.array(offsets, np.int32),
                                   out_dtype="f32", target="cpu")


def _masked(masked_m):
    a, a_s, b, b_s = _operands(masked=True)
    return compiler.grouped_matmul("masked", a, a_s, b, b_s,
                                   masked_m=np.array(masked_m, np.int32),
                                   out_dtype="f32", target="cpu")


def test_contiguous_in_contract_runs():
    offsets = [0, 3, 8]
    got = _contiguous(offsets)
    a, a_s, b, b_s = _operands(masked=False)
    want = ref.grouped_matmul_contiguous(a, a_s, b, b_s, np.array(offsets), 1.0,
                                         swizzled=True)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)


def test_masked_in_contract_runs():
    got = _masked([3, 8])
    assert got.shape == (G, S, N)
    assert np.isfinite(got).all()


@pytest.mark.parametrize("offsets, message", [
    ([1, 3, 8], r"group_offsets\[0\] = 1, expected 0"),
    ([0, 9, 8], r"group_offsets\[2\] = 8 is below group_offsets\[1\] = 9"),
    ([0, -2, 8], r"group_offsets\[1\] = -2 is below group_offsets\[0\] = 0"),
    ([0, 4, 12], r"group_offsets\[2\] = 12, expected 8"),
    ([0, 4, 6], r"group_offsets\[2\] = 6, expected 8"),
])
def test_contiguous_out_of_contract_raises(offsets, message):
    with pytest.raises(compiler.RunnerError, match=message) as info:
        _contiguous(offsets)
    assert "docs/spec.md section 3" in str(info.value)


@pytest.mark.parametrize("masked_m, message", [
    ([-1, 4], r"masked_m\[0\] = -1 is outside \[0, 8\]"),
    ([3, 9], r"masked_m\[1\] = 9 is outside \[0, 8\]"),
    ([-2147483648, 0], r"masked_m\[0\] = -2147483648 is outside \[0, 8\]"),
])
def test_masked_out_of_contract_raises(masked_m, message):
    with pytest.raises(compiler.RunnerError, match=message):
        _masked(masked_m)


def _npy_header(descr, shape):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    h += " " * (-(10 + len(h) + 1) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode()


@pytest.mark.parametrize("descr, shape", [
    ("<f4", "(4611686018427387904,)"),           # 2^64 bytes: wraps to 0
    ("<u2", "(4294967296, 2147483648)"),          # 2^64 bytes: wraps to 0
    ("<u2", "(4294967296, 4294967296, 4)"),       # 2^66 bytes
])
def test_npy_size_overflow_is_rejected(tmp_path, descr, shape):
    x = tmp_path / "x.npy"
    x.write_bytes(_npy_header(descr, shape))
    seed = tmp_path / "seed.npy"
    np.save(seed, np.int64(7))
    program = tmp_path / "p.mlir"
    program.write_text(
        "func.func @main(%x: tensor<16x32xbf16>, %seed: i64) -> tensor<16x32xf4E2M1FN> {\n"
        "  %q, %s, %d = nvfp4.quantize nvfp4 %x seed %seed "
        "{rounding = #nvfp4.rounding<stochastic>} : tensor<16x32xbf16> -> "
        "tensor<16x32xf4E2M1FN>, tensor<16x2xf8E4M3FN>, tensor<f32>\n"
        "  return %q : tensor<16x32xf4E2M1FN>\n}\n")
    proc = subprocess.run([RUNNER, str(program), "--target=cpu", f"--input={x}",
                           f"--input={seed}"], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "is too large (its byte count overflows)" in proc.stderr


def test_huge_type_is_rejected_not_crashed(tmp_path):
    x = tmp_path / "x.npy"
    x.write_bytes(_npy_header("<u2", "(4294967296, 2147483648)"))
    program = tmp_path / "p.mlir"
    t = "tensor<4294967296x2147483648xbf16>"
    program.write_text(f"func.func @main(%x: {t}) -> {t} {{\n  return %x : {t}\n}}\n")
    proc = subprocess.run([RUNNER, str(program), "--target=cpu", f"--input={x}",
                           f"--output={tmp_path / 'y.npy'}"],
                          capture_output=True, text=True)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "its byte count overflows 64 bits" in proc.stderr
    assert not (tmp_path / "y.npy").exists()


def test_unknown_cpu_pipeline_option_raises(monkeypatch):
    monkeypatch.setenv("NVFP4_PIPELINE_OPTIONS", "no-such-option=1")
    with pytest.raises(compiler.RunnerError,
                       match="bad --pipeline-options for nvfp4-lower-to-cpu"):
        compiler.swizzle_scales(np.zeros((4, 4), np.uint8), target="cpu")
