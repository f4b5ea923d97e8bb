"""benchmarks/peers.py and its use in benchmarks/bench_h200.py, on the CPU.

What needs a GPU (the timings, torch._scaled_grouped_mm) is not run here.
Without torch the torch tests are skipped; with a CPU-only torch the peer
calls run on the CPU (and torch._scaled_grouped_mm's arguments are checked
by its meta implementation).
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_h200 as bench  # noqa: E402
import peers  # noqa: E402
from nvfp4 import reference as ref  # noqa: E402
from nvfp4_testing.selfcheck import random_operand  # noqa: E402


def _torch():
    try:
        import torch
    except Exception as e:  # not installed (CI), or broken
        pytest.skip(f"torch cannot be imported: {e}")
    return torch


def _blocked_torch(monkeypatch):
    """Make `import torch` fail as it does where torch is not installed."""
    monkeypatch.setitem(sys.modules, "torch", None)


# ---------------------------------------------------------------------------
# Cases and operands
# ---------------------------------------------------------------------------

def test_cases_fit_the_peers():
    for ms, n, k in peers.CASES.values():
        # torch._scaled_mm / _scaled_grouped_mm need K and N multiples of 16;
        # NVFP4 needs K a multiple of 16 too.
        assert n % 16 == 0 and k % 16 == 0 and all(m > 0 for m in ms)


def test_case_operands_shapes():
    ms, n, k = [3, 130], 32, 64
    a, b = peers.case_operands(ms, n, k, np.random.default_rng(0))
    assert [m for _, _, m in a] == ms and len(b) == len(ms)
    for (q, s, m) in a:
        assert q.dtype == np.uint8 and q.shape == (m, k // 2)
        assert s.dtype == np.uint8 and s.shape == (-(-m // 128), -(-(k // 16) // 4), 32, 4, 4)
    for q, s in b:
        assert q.dtype == np.uint8 and q.shape == (n, k // 2)
        assert s.shape == (1, 1, 32, 4, 4)


def test_case_operands_draw_like_bench():
    """Same generator state -> the same operands as bench_h200 always drew."""
    ms, n, k = [5, 7], 32, 64
    a, b = peers.case_operands(ms, n, k, np.random.default_rng(11))
    rng = np.random.default_rng(11)
    a2 = [random_operand(m, k, "nvfp4", rng, modest=True) for m in ms]
    b2 = [random_operand(n, k, "nvfp4", rng, modest=True) for _ in ms]
    for (q, s, _), (q2, s2) in zip(a, a2):
        assert np.array_equal(q, q2) and np.array_equal(s, s2)
    for (q, s), (q2, s2) in zip(b, b2):
        assert np.array_equal(q, q2) and np.array_equal(s, s2)


def test_bench_case_times_the_peers_operands(monkeypatch):
    """bench_case draws its operands through peers.case_operands, and uses
    the ones it is given."""
    seen = []

    class Stop(Exception):
        pass

    def fake_matmul(a_q, a_s, b_q, b_s, **kw):
        seen.append((a_q, b_q))
        raise Stop()

    monkeypatch.setitem(bench.CASES, "tiny", ([5], 32, 64))
    monkeypatch.setattr(bench.compiler, "matmul", fake_matmul)
    with pytest.raises(Stop):
        bench.bench_case("tiny", 1, np.random.default_rng(3))
    a, b = peers.case_operands([5], 32, 64, np.random.default_rng(3))
    assert np.array_equal(seen[0][0], a[0][0]) and np.array_equal(seen[0][1], b[0][0])
    a, b = peers.case_operands([5], 32, 64, np.random.default_rng(4))
    with pytest.raises(Stop):
        bench.bench_case("tiny", 1, None, operands=(a, b))
    assert np.array_equal(seen[1][0], a[0][0])


def _operand(values, scale_bytes):
    """Packed codes and swizzled scales of a hand-made [rows, 16*blocks] operand."""
    codes = ref.e2m1_encode_rne(np.asarray(values, np.float32))
    return ref.pack_fp4(codes), ref.swizzle_scales(np.asarray(scale_bytes, np.uint8))


def test_dequantized_hand_made():
    # Row 0: 16 x 1.0 with scale 2.0 (0x40), then 16 x -1.5 with scale 0.5 (0x30).
    # Row 1: 0, 0.5, ..., 6 and negatives with scale 1.0 (0x38); a block of 6 with
    # the smallest E4M3 subnormal scale 2^-9 (0x01).
    grid = [0, .5, 1, 1.5, 2, 3, 4, 6, -0., -.5, -1, -1.5, -2, -3, -4, -6]
    values = [[1.0] * 16 + [-1.5] * 16, grid + [6.0] * 16]
    q, s = _operand(values, [[0x40, 0x30], [0x38, 0x01]])
    got = peers.dequantized(q, s, 2)
    want = np.array([[2.0] * 16 + [-0.75] * 16, grid + [6.0 * 2.0 ** -9] * 16], np.float32)
    assert got.dtype == np.float32 and got.shape == (2, 32)
    assert np.array_equal(got, want)


def test_dequantized_exact_in_bf16():
    q, s = random_operand(130, 256, "nvfp4", np.random.default_rng(5), modest=False)
    x = peers.dequantized(q, s, 130)
    assert np.array_equal(x.astype(np.float64), ref._dequant_f64(q, s, "nvfp4", True, 130))
    # A float32 is a bf16 value iff its low 16 bits are zero.
    assert not np.any(x.view(np.uint32) & 0xFFFF)


def test_sample_rows():
    assert peers.sample_rows(5).tolist() == [0, 1, 2, 3, 4]
    r = peers.sample_rows(100)
    assert len(r) == peers.SAMPLE_ROWS and r[0] == 0 and r[-1] == 99
    assert np.all(np.diff(r) > 0)
    assert peers.sample_rows(0).size == 0
    # bench_h200.check samples the same rows.
    m = 248
    assert np.array_equal(peers.sample_rows(m),
                          np.linspace(0, m - 1, min(m, bench.SAMPLE_ROWS)).astype(int))


def test_reference_rows_hand_made():
    a = np.array([[1, 2], [3, 4]], np.float32)
    b = np.array([[1, 0], [0, 1], [1, 1]], np.float32)
    got = peers.reference_rows(a, b)
    assert got.dtype == np.float64
    assert np.array_equal(got, [[1, 2, 3], [3, 4, 7]])
    # float64, not float32: 2^24 + 1 survives.
    a = np.array([[2.0 ** 24, 1.0]], np.float32)
    b = np.array([[1.0, 1.0]], np.float32)
    assert peers.reference_rows(a, b)[0, 0] == 2.0 ** 24 + 1


def test_reference_rows_match_matmul_reference():
    rng = np.random.default_rng(9)
    (aq, a_s), (bq, b_s) = (random_operand(r, 128, "nvfp4", rng) for r in (40, 24))
    idx = peers.sample_rows(40)
    got = peers.reference_rows(peers.dequantized(aq, a_s, 40)[idx], peers.dequantized(bq, b_s, 24))
    want = ref.matmul_reference(aq, a_s, bq, b_s, a_rows=40, b_rows=24, swizzled=True)[idx]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_rel_err():
    w = np.array([[3.0, 4.0]])
    assert peers.rel_err(w, w) == 0.0
    assert peers.rel_err(w * 1.01, w) == pytest.approx(0.01)
    assert peers.rel_err([[3.0, 4.0 + 5.0]], w) == pytest.approx(1.0)  # |(0,5)| / |(3,4)|
    assert peers.rel_err(np.zeros((1, 2)), np.zeros((1, 2))) == 0.0
    assert peers.rel_err([[1.0, 0.0]], np.zeros((1, 2))) == math.inf
    assert peers.rel_err([[np.nan, 4.0]], w) == math.inf
    assert peers.rel_err([[np.inf, 4.0]], w) == math.inf
    with pytest.raises(ValueError):
        peers.rel_err(np.zeros((2, 2)), w)


def test_floors():
    # m=16, N=32, K=64: A 16*32 B, B 32*32 B, scales (16+32)*4 B, output 16*32*2 B.
    assert peers.hbm_bytes([16], 32, 64) == 512 + 1024 + 192 + 1024
    assert peers.hbm_bytes([16, 16], 32, 64) == 2 * 2752
    f = peers.floors([16], 32, 64, copy_bw_Bps=2752e6, peak_flops=2 * 16 * 32 * 64 * 1e6 / 2)
    assert f["hbm_floor_us"] == pytest.approx(1.0)
    assert f["mma_floor_us"] == pytest.approx(2.0)
    assert f["floor_us"] == pytest.approx(2.0)
    assert peers.group_starts([3, 0, 5]) == [0, 3, 3, 8]


# ---------------------------------------------------------------------------
# Without torch / CUDA
# ---------------------------------------------------------------------------

def test_without_torch_says_so(monkeypatch, capsys):
    _blocked_torch(monkeypatch)
    with pytest.raises(peers.Unavailable, match="torch cannot be imported"):
        peers.load_torch()
    with pytest.raises(peers.Unavailable):
        peers.measure_machine()
    a, b = peers.case_operands([5], 32, 64, np.random.default_rng(0))
    with pytest.raises(peers.Unavailable):
        peers.measure_case("tiny", a, b, dict(copy_bw_Bps=1e12, peak_bf16_tflops=1e3))
    assert peers.main(["--cases", "gpumode3"]) == 0
    assert "peers: skipped: torch cannot be imported" in capsys.readouterr().out
    assert bench.peer_machine() is None
    assert "peers: skipped: torch cannot be imported" in capsys.readouterr().out


def test_without_cuda_says_so(capsys):
    torch = _torch()
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(peers.Unavailable, match="sees no CUDA device"):
        peers.load_torch()
    assert peers.load_torch(need_cuda=False) is torch
    assert peers.main(["--cases", "dense_8k"]) == 0
    assert "sees no CUDA device" in capsys.readouterr().out


def test_main_rejects_unknown_case():
    with pytest.raises(SystemExit):
        peers.main(["--cases", "nope"])


# ---------------------------------------------------------------------------
# The peer calls on a CPU torch
# ---------------------------------------------------------------------------

def test_fp8_rowwise_quantize():
    torch = _torch()
    x = torch.tensor([[1.0, -2.0, 0.25, 3.0e-5] + [0.0] * 12, [0.0] * 16,
                      [448.0 * 4, 1.0, -7.0, 100.0] + [2.0] * 12])
    q, s = peers.fp8_rowwise(torch, x)
    assert q.dtype == torch.float8_e4m3fn and q.shape == x.shape
    assert s.dtype == torch.float32 and s.shape == (3, 1)
    assert s[0, 0].item() == pytest.approx(2.0 / 448) and s[1, 0].item() == 1.0
    assert s[2, 0].item() == pytest.approx(4.0)
    back = q.float() * s
    assert back[0, 1].item() == pytest.approx(-2.0, rel=1e-6)  # the row's amax maps to 448
    assert torch.all(back[1] == 0)
    # e4m3 round to nearest: |err| <= 2^-4 |x| (normal) or 2^-10 * scale (subnormal).
    err = (back - x).abs()
    assert torch.all(err <= torch.maximum(x.abs() * 2.0 ** -4, s * 2.0 ** -10) * (1 + 1e-6))
    # 3D (stacked weights): one scale per row of each matrix.
    q3, s3 = peers.fp8_rowwise(torch, torch.randn(2, 5, 32))
    assert q3.shape == (2, 5, 32) and s3.shape == (2, 5, 1)


def test_device_operands():
    torch = _torch()
    ms, n, k = [3, 130, 17], 32, 64
    a, b = peers.case_operands(ms, n, k, np.random.default_rng(1))
    A, B, refs = peers.device_operands(torch, a, b, "cpu")
    assert A.dtype == torch.bfloat16 and tuple(A.shape) == (sum(ms), k)
    assert B.dtype == torch.bfloat16 and tuple(B.shape) == (len(ms), n, k)
    starts = peers.group_starts(ms)
    for g, ((aq, a_s, m), (bq, b_s)) in enumerate(zip(a, b)):
        af = peers.dequantized(aq, a_s, m)
        assert np.array_equal(A[starts[g]:starts[g + 1]].float().numpy(), af)
        assert np.array_equal(B[g].float().numpy(), peers.dequantized(bq, b_s, n))
        idx, want = refs[g]
        assert np.array_equal(idx, peers.sample_rows(m)) and want.shape == (len(idx), n)
        full = ref.matmul_reference(aq, a_s, bq, b_s, a_rows=m, b_rows=n, swizzled=True)
        np.testing.assert_allclose(want, full[idx], rtol=1e-12, atol=1e-12)


def test_peers_on_cpu():
    """Every peer call that a CPU torch implements runs, and its output
    passes the check; fp8_grouped (CUDA only) records its error instead."""
    torch = _torch()
    ms, n, k = [3, 130, 0, 17], 32, 64
    a, b = peers.case_operands(ms, n, k, np.random.default_rng(2))
    res = {"case": "tiny"}
    peers.run_peers(torch, res, a, b, "cpu", timed=False)
    for p in ("cublas_bf16", "grouped_mm_bf16", "fp8_rowwise"):
        assert p + "_err" not in res, res[p + "_err"]
        assert res[p + "_us"] is None  # not timed
    assert res["cublas_bf16_relerr"] <= peers.BF16_RELERR_BAR
    assert res["grouped_mm_bf16_relerr"] <= peers.BF16_RELERR_BAR
    assert res["fp8_rowwise_relerr_own"] <= peers.BF16_RELERR_BAR
    assert 1e-3 < res["fp8_rowwise_relerr"] < 0.1  # e4m3 cannot hold the NVFP4 values
    if "fp8_grouped_err" in res:
        assert res["fp8_grouped_us"] is None
    else:
        assert res["fp8_grouped_relerr_own"] <= peers.BF16_RELERR_BAR
    lines = peers.check_lines(res)
    assert len(lines) == 4 and not any("SUSPECT" in line for line in lines)
    json.dumps(res)


def test_check_catches_a_wrong_peer():
    """A peer that writes nothing, or the wrong rows, is not ok."""
    torch = _torch()
    ms, n, k = [4, 20], 32, 64
    a, b = peers.case_operands(ms, n, k, np.random.default_rng(3))
    A, B, refs = peers.device_operands(torch, a, b, "cpu")
    out = torch.zeros(sum(ms), n, dtype=torch.bfloat16)
    res = {"case": "tiny"}
    peers.run_peer(torch, res, "cublas_bf16", lambda: out, out, refs, ms, timed=False)
    assert res["cublas_bf16_relerr"] == math.inf  # the NaN poison stayed
    good = torch.cat([A[:4] @ B[0].t(), A[4:] @ B[1].t()])
    swapped = torch.cat([A[:4] @ B[1].t(), A[4:] @ B[0].t()])
    for c, ok in ((good, True), (swapped, False)):
        res = {"case": "tiny"}
        peers.run_peer(torch, res, "grouped_mm_bf16", lambda: c.clone(), None, refs, ms,
                       timed=False)
        assert (res["grouped_mm_bf16_relerr"] <= peers.BF16_RELERR_BAR) == ok
        assert ("SUSPECT" in peers.check_lines(res)[0]) != ok

    def boom():
        raise RuntimeError("not on this device\nsecond line")

    res = {"case": "tiny"}
    peers.run_peer(torch, res, "fp8_grouped", boom, None, refs, ms, timed=False)
    assert res["fp8_grouped_us"] is None
    assert res["fp8_grouped_err"] == "RuntimeError: not on this device"


def test_fp8_grouped_arguments_on_meta():
    """torch's meta implementation of _scaled_grouped_mm accepts the layout
    and scale shapes that make_peers passes (for every case)."""
    torch = _torch()
    for ms, n, k in peers.CASES.values():
        A = torch.empty(sum(ms), k, dtype=torch.bfloat16, device="meta")
        B = torch.empty(len(ms), n, k, dtype=torch.bfloat16, device="meta")
        fp8 = peers.fp8_rowwise(torch, A) + peers.fp8_rowwise(torch, B)
        calls = {name: call for name, call, _ in peers.make_peers(torch, A, B, ms, fp8)}
        for name in ("grouped_mm_bf16", "fp8_grouped", "cublas_bf16"):
            try:
                c = calls[name]()
            except NotImplementedError as e:  # no meta kernel in this torch
                pytest.skip(f"{name}: {e}")
            assert tuple(c.shape) == (sum(ms), n) and c.dtype == torch.bfloat16


# ---------------------------------------------------------------------------
# bench_h200 with the peers (nvfp4-runner faked)
# ---------------------------------------------------------------------------

class _Timing:
    median_us = 10.0


def _fake_compiler(monkeypatch):
    """compiler.matmul / grouped_matmul answering with the reference."""
    def mm(a_q, a_s, b_q, b_s, m, n):
        return ref.matmul_reference(a_q, a_s, b_q, b_s, a_rows=m, b_rows=n,
                                    swizzled=True).astype(np.float16)

    def matmul(a_q, a_s, b_q, b_s, **kw):
        return mm(a_q, a_s, b_q, b_s, a_q.shape[0], b_q.shape[0]), _Timing()

    def grouped_matmul(mode, a, a_s, b, b_s, group_offsets=None, **kw):
        if mode == "independent":
            return [mm(*x, x[0].shape[0], x[2].shape[0]) for x in zip(a, a_s, b, b_s)], _Timing()
        k = a.shape[1] * 2
        rows = ref.unswizzle_scales(a_s, a.shape[0], k // 16)
        c = [mm(a[lo:hi], ref.swizzle_scales(rows[lo:hi]), b[g], b_s[g], hi - lo, b.shape[1])
             for g, (lo, hi) in enumerate(zip(group_offsets[:-1], group_offsets[1:]))]
        return np.concatenate(c), _Timing()

    monkeypatch.setattr(bench.compiler, "matmul", matmul)
    monkeypatch.setattr(bench.compiler, "grouped_matmul", grouped_matmul)
    monkeypatch.setattr(bench, "bench_quantize", lambda reps, rng, bw: [])
    monkeypatch.setitem(bench.CASES, "tiny", ([5, 130], 32, 64))


def test_bench_without_peers(monkeypatch, tmp_path, capsys):
    _fake_compiler(monkeypatch)
    _blocked_torch(monkeypatch)
    assert bench.main(["--out", str(tmp_path), "--cases", "tiny", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    assert "peers: skipped: torch cannot be imported" in out
    md = (tmp_path / "bench.md").read_text()
    assert "| FP8 rowwise | FP8 grouped |" in md and "| tiny | contiguous |" in md
    data = json.loads((tmp_path / "bench.json").read_text())
    assert data["peers"] == [] and data["meta"]["copy_bandwidth_tbs"] is None
    assert all(r["fp8_grouped_us"] is None for r in data["rows"])


def test_bench_with_peers_and_shared(monkeypatch, tmp_path, capsys):
    """The peers' numbers reach bench.json / bench.md, and --check-shared
    puts the shared script's next to them (a stand-in script here)."""
    _fake_compiler(monkeypatch)
    machine = dict(copy_bw_Bps=4e12, peak_bf16_tflops=800.0, torch="x", device="gpu")
    monkeypatch.setattr(peers, "measure_machine", lambda: machine)

    def measure_case(name, a, b, machine):
        ms = [m for _, _, m in a]
        r = dict(case=name, **peers.floors(ms, 32, 64, machine["copy_bw_Bps"], 8e14))
        r.update(cublas_bf16_us=5.0, cublas_bf16_relerr=1e-3, grouped_mm_bf16_us=4.0,
                 grouped_mm_bf16_relerr=1e-3, fp8_rowwise_us=3.0, fp8_rowwise_relerr=0.03,
                 fp8_rowwise_relerr_own=1e-3, fp8_grouped_us=None,
                 fp8_grouped_err="RuntimeError: no kernel")
        return r

    monkeypatch.setattr(peers, "measure_case", measure_case)
    shared = tmp_path / "shared_peers.py"
    shared.write_text(
        "import json\n"
        "CASES = {'tiny': ([5, 130], 32, 64), 'other': ([1], 16, 16)}\n"
        "def main():\n"
        "    print('measured copy bandwidth 4.10 TB/s, bf16 matmul 790 TFLOP/s')\n"
        "    for c in CASES:\n"
        "        print(json.dumps({'case': c, 'floor_us': 1.0, 'cublas_bf16_us': 6.0,"
        " 'grouped_mm_bf16_us': 4.0, 'fp8_rowwise_us': 3.3, 'fp8_grouped_us': 2.0}))\n")
    assert bench.main(["--out", str(tmp_path), "--cases", "tiny", "--reps", "1",
                       "--check-shared", str(shared)]) == 0
    out = capsys.readouterr().out
    assert "check tiny fp8_grouped: not run (RuntimeError: no kernel)" in out
    data = json.loads((tmp_path / "bench.json").read_text())
    assert data["meta"]["copy_bandwidth_tbs"] == 4.0
    assert [r["fp8_rowwise_us"] for r in data["rows"]] == [3.0, 3.0]
    assert data["shared_peers"]["rows"].keys() == {"tiny"}  # only the cases run
    md = (tmp_path / "bench.md").read_text()
    assert "| machine | copy bandwidth TB/s | 4.00 | 4.10 | 1.02 |" in md
    assert "| tiny | cublas_bf16_us | 5.00 | 6.00 | 1.20 |" in md
    assert "| tiny | fp8_grouped_us | failed: RuntimeError: no kernel | 2.00 | - |" in md


def test_check_shared_absent(tmp_path, capsys):
    assert bench.run_shared(str(tmp_path / "nope.py"), ["gpumode1"]) is None
    assert "no shared peer script at" in capsys.readouterr().out


def test_check_shared_failing_script(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("print('starting')\nraise ImportError('no triton here')\n")
    assert bench.run_shared(str(bad), ["gpumode1"]) is None
    out = capsys.readouterr().out
    assert "starting" in out and "ImportError: no triton here" in out


def test_timing_failure_keeps_the_check():
    """Where the graph timing fails (here: no CUDA), the check's result stays
    and the error says it was the timing."""
    torch = _torch()
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    ms, n, k = [4, 20], 32, 64
    a, b = peers.case_operands(ms, n, k, np.random.default_rng(4))
    A, B, refs = peers.device_operands(torch, a, b, "cpu")
    res = {"case": "tiny"}
    peers.run_peer(torch, res, "grouped_mm_bf16",
                   lambda: torch._grouped_mm(A, B.transpose(-2, -1),
                                             offs=torch.tensor([4, 24], dtype=torch.int32)),
                   None, refs, ms, timed=True)
    assert res["grouped_mm_bf16_relerr"] <= peers.BF16_RELERR_BAR
    assert res["grouped_mm_bf16_us"] is None
    assert res["grouped_mm_bf16_err"].startswith("timing (CUDA graph): ")


def test_machine_line():
    m = dict(copy_bw_Bps=4.1e12, peak_bf16_tflops=789.6, torch="2.9", device="H200",
             copy_ok=True)
    assert peers.machine_line(m) == ("peers: torch 2.9 on H200: copy bandwidth 4.10 TB/s "
                                     "(kernel-driven), bf16 matmul 790 TFLOP/s")
    assert "WRONG" in peers.machine_line(dict(m, copy_ok=False))
