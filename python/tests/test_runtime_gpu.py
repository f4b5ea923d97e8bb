"""The Python API on torch CUDA tensors (issue 10): runs on the GPU machine
(test/Integration/GPU/python-api.test); skipped without CUDA torch.

Torch in, torch out, bit-exact quantize; a non-default stream; CUDA graph
capture and replay; GPU-mode's grouped problem called as a submission
calls it, bit-identical to nvfp4-runner on the same program; bad tables
raise and leave the output untouched.
"""

import subprocess

import numpy as np
import pytest

from nvfp4 import compiler, runtime
from nvfp4 import reference as ref
from nvfp4_testing import find_runner

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(
    not (runtime.available() and torch.cuda.is_available() and runtime.gpu_available()),
    reason="needs nvfp4._runtime, CUDA torch and a GPU")


def _bf16(shape, seed):
    bits, _ = ref.make_test_tensor(shape, seed, dtype="bf16")
    return torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16).cuda()


def _np(t):
    return t.cpu().view(torch.uint8).numpy() if t.element_size() == 1 else t.cpu().numpy()


def test_quantize_torch_in_torch_out_bit_exact():
    x = _bf16((256, 512), 1)
    q, s, d = compiler.quantize(x)
    assert q.is_cuda and s.is_cuda and d.is_cuda
    assert s.dtype == torch.float8_e4m3fn and d.dtype == torch.float32
    bits = x.cpu().view(torch.int16).numpy().view(np.uint16)
    wq, ws, wd = ref.quantize_nvfp4(bits, swizzle=True)
    np.testing.assert_array_equal(_np(q), wq)
    np.testing.assert_array_equal(_np(s), ws)
    assert d.item() == wd


def _bound(got, want, bf16=True):
    tol = ref.TOL_ABS + (ref.TOL_REL + (2.0 ** -8 if bf16 else 0)) * np.abs(want)
    return bool((np.abs(got - want) <= tol).all())


def test_matmul_on_a_side_stream_and_out():
    a, w = _bf16((200, 512), 2), _bf16((136, 512), 3)
    qa, qw = compiler.quantize_to_fp4(a), compiler.quantize_to_fp4(w, block="16x16")
    out = torch.full((200, 136), float("nan"), dtype=torch.bfloat16, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        c = compiler.matmul(qa.values, qa.scales, qw.values, qw.scales,
                            a_decode=qa.decode_scale, b_decode=qw.decode_scale, out=out)
    side.synchronize()
    assert c is out
    want = ref.matmul_reference(_np(qa.values), _np(qa.scales), _np(qw.values),
                                _np(qw.scales), alpha=qa.decode_scale.item() *
                                qw.decode_scale.item(), swizzled=True)
    assert _bound(c.float().cpu().numpy().astype(np.float64), want)


def _gpu_mode_data(sizes, n, k, seed):
    """GPU-mode's generate_input: per group [m, k/2, 1] fp4 values, row-major
    [m, k/16, 1] float8 scales on the CPU, and the [m, n, 1] f16 output."""
    g = torch.Generator().manual_seed(seed)
    abc, sf, problems = [], [], []
    for m in sizes:
        a = torch.randint(0, 256, (1, m, k // 2), dtype=torch.uint8, generator=g)
        b = torch.randint(0, 256, (1, n, k // 2), dtype=torch.uint8, generator=g)
        a = a.cuda().permute(1, 2, 0).view(torch.float4_e2m1fn_x2)
        b = b.cuda().permute(1, 2, 0).view(torch.float4_e2m1fn_x2)
        c = torch.randn((1, m, n), dtype=torch.float16, device="cuda").permute(1, 2, 0)
        sfa = torch.randint(1, 3, (1, m, k // 16), dtype=torch.int8,
                            generator=g).to(torch.float8_e4m3fn).permute(1, 2, 0)
        sfb = torch.randint(1, 3, (1, n, k // 16), dtype=torch.int8,
                            generator=g).to(torch.float8_e4m3fn).permute(1, 2, 0)
        abc.append((a, b, c))
        sf.append((sfa, sfb))
        problems.append((m, n, k, 1))
    return abc, sf, problems


def custom_kernel(data):
    """A GPU-mode submission written with the API."""
    abc, sf, _ = data
    sfa = [s[0].cuda() for s in sf]  # GPU-mode keeps the scales on the host
    sfb = [s[1].cuda() for s in sf]
    compiler.grouped_matmul("independent", [t[0] for t in abc], sfa,
                            [t[1] for t in abc], sfb, out_dtype="f16",
                            out=[t[2][:, :, 0] for t in abc])
    return [t[2] for t in abc]


def test_gpu_mode_submission_matches_the_runner(tmp_path):
    data = _gpu_mode_data([128, 384], 512, 1536, seed=4)
    results = custom_kernel(data)
    torch.cuda.synchronize()
    # The same program through nvfp4-runner (.npy in and out).
    abc, sf, _ = data
    arrays = ([_np(t[0][:, :, 0].contiguous()) for t in abc] +
              [_np(s[0][:, :, 0].contiguous()) for s in sf] +
              [_np(t[1][:, :, 0].contiguous()) for t in abc] +
              [_np(s[1][:, :, 0].contiguous()) for s in sf])
    G = len(abc)
    A, SA, B, SB = arrays[:G], arrays[G:2 * G], arrays[2 * G:3 * G], arrays[3 * G:]
    # The program the API compiled for the call, run by the runner.
    compiled = next(p for (op, target, _), p in compiler._OPS.items()
                    if op[0] == "grouped" and target == "gpu")
    program = next(key[0] for key, p in runtime._PROGRAMS.items() if p is compiled)
    (tmp_path / "p.mlir").write_text(program)
    cmd = [find_runner(), str(tmp_path / "p.mlir"), "--target=gpu"]
    for i, arr in enumerate(A + SA + B + SB):
        np.save(tmp_path / f"in{i}.npy", arr)
        cmd.append(f"--input={tmp_path / f'in{i}.npy'}")
    for g in range(G):
        cmd.append(f"--output={tmp_path / f'out{g}.npy'}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for g in range(G):
        want = np.load(tmp_path / f"out{g}.npy")
        got = results[g][:, :, 0].cpu().numpy()
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_graph_capture_and_replay():
    sizes, n, k = [64, 192], 256, 512
    a = [_bf16((m, k), 10 + i) for i, m in enumerate(sizes)]
    w = [_bf16((n, k), 20 + i) for i in range(len(sizes))]
    qa = [compiler.quantize_to_fp4(x) for x in a]
    qw = [compiler.quantize_to_fp4(x) for x in w]
    outs = [torch.empty((m, n), dtype=torch.bfloat16, device="cuda") for m in sizes]
    alpha = torch.stack([x.decode_scale * y.decode_scale for x, y in zip(qa, qw)])

    def step():
        compiler.grouped_matmul("independent", [x.values for x in qa], [x.scales for x in qa],
                                [y.values for y in qw], [y.scales for y in qw],
                                alpha=alpha, out=outs)

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        step()  # warm-up: compile, tensor maps, workspaces
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    for x in outs:
        x.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    for g, m in enumerate(sizes):
        want = ref.matmul_reference(_np(qa[g].values), _np(qa[g].scales), _np(qw[g].values),
                                    _np(qw[g].scales), alpha=alpha[g].item(), swizzled=True)
        assert _bound(outs[g].float().cpu().numpy().astype(np.float64), want)


def test_120_independent_groups():
    # 120 groups: the token pre-pass takes 19256 bytes of parameters, which
    # its module gets PTX ISA 8.1 for (nvfp4-gpu-ptx-version; ptxas
    # refused it before): the groups' outputs, poisoned first, against the
    # fp64 reference; the groups' sizes vary.
    g, n, k = 120, 128, 256
    sizes = [8 * (1 + i % 5) for i in range(g)]
    qa = [compiler.quantize_to_fp4(_bf16((m, k), 300 + i)) for i, m in enumerate(sizes)]
    qw = [compiler.quantize_to_fp4(_bf16((n, k), 600 + i)) for i in range(g)]
    a = [x.values for x in qa]
    alpha = torch.stack([x.decode_scale * y.decode_scale for x, y in zip(qa, qw)])
    outs = [torch.full((m, n), float("nan"), dtype=torch.bfloat16, device="cuda")
            for m in sizes]
    compiler.grouped_matmul("independent", a, [x.scales for x in qa],
                            [y.values for y in qw], [y.scales for y in qw],
                            alpha=alpha, out=outs)
    torch.cuda.synchronize()
    for i in range(g):
        want = ref.matmul_reference(_np(a[i]), _np(qa[i].scales), _np(qw[i].values),
                                    _np(qw[i].scales), alpha=alpha[i].item(), swizzled=True)
        assert _bound(outs[i].float().cpu().numpy().astype(np.float64), want), i


def test_bad_cuda_table_raises_and_writes_nothing():
    x = _bf16((16, 64), 30)
    q, s, d = compiler.quantize(x)
    wq, ws, wd = compiler.quantize(_bf16((2, 8, 64), 31))
    c = torch.full((16, 8), float("nan"), device="cuda")
    offsets = torch.tensor([0, 9, 8], dtype=torch.int32, device="cuda")
    with pytest.raises(runtime.RunnerError, match="is below"):
        compiler.grouped_matmul("contiguous", q, s, wq, ws, group_offsets=offsets,
                                out=c, out_dtype="f32")
    assert torch.isnan(c).all()


def test_table_check_while_recording_a_graph_is_refused_and_capture_goes_on():
    """Reading a CUDA table back would break the recording: the call is
    refused before anything is queued, the capture continues, and the same
    call without the check is recorded and replays bit-exact."""
    x = _bf16((16, 64), 32)
    q, s, d = compiler.quantize(x)
    wq, ws, wd = compiler.quantize(_bf16((2, 8, 64), 33))
    offsets = torch.tensor([0, 9, 16], dtype=torch.int32, device="cuda")
    want = compiler.grouped_matmul("contiguous", q, s, wq, ws, group_offsets=offsets,
                                   out_dtype="f32")
    c = torch.full((16, 8), float("nan"), device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=side):
        with pytest.raises(runtime.RunnerError, match="CUDA graph is being recorded"):
            compiler.grouped_matmul("contiguous", q, s, wq, ws, group_offsets=offsets,
                                    out=c, out_dtype="f32")
        compiler.grouped_matmul("contiguous", q, s, wq, ws, group_offsets=offsets,
                                out=c, out_dtype="f32", check_tables=False)
    torch.cuda.synchronize()
    assert torch.isnan(c).all()  # recorded, not run
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(c, want)


def test_default_stream_is_ordered_and_not_waited_for():
    """On torch's default stream (handle 0, CU_STREAM_LEGACY to the driver)
    a call queues behind the work before it and returns without waiting."""
    x = _bf16((256, 512), 40)
    xs = torch.empty_like(x)
    compiler.quantize(xs)  # warm: compiled, workspaces made
    torch.cuda.synchronize()
    torch.cuda._sleep(400_000_000)  # some 0.2 s of GPU time, then
    xs.copy_(x)                     # the input is written on the same stream
    q, s, d = compiler.quantize(xs)
    assert not torch.cuda.current_stream().query()  # returned before the GPU ran it
    torch.cuda.synchronize()
    wq, ws, wd = ref.quantize_nvfp4(x.cpu().view(torch.int16).numpy().view(np.uint16),
                                    swizzle=True)
    np.testing.assert_array_equal(_np(q), wq)
    np.testing.assert_array_equal(_np(s), ws)
    assert d.item() == wd


def test_fp4_matmul_on_bf16_cuda_tensors():
    a, w = _bf16((96, 256), 41), _bf16((160, 256), 42)
    c = compiler.fp4_matmul(a, w, b_options={"block": "16x16"})
    assert c.is_cuda and c.dtype == torch.bfloat16 and c.shape == (96, 160)
    aq, as_, ad = ref.quantize_nvfp4(a.cpu().view(torch.int16).numpy().view(np.uint16),
                                     swizzle=True)
    wq, ws, wd = ref.quantize_nvfp4(w.cpu().view(torch.int16).numpy().view(np.uint16),
                                    block=(16, 16), swizzle=True)
    want = ref.matmul_reference(aq, as_, wq, ws, alpha=float(ad) * float(wd), swizzled=True)
    assert _bound(c.float().cpu().numpy().astype(np.float64), want)


def test_torch_compile_inductor_and_cuda_graphs():
    """The custom ops under inductor, and under mode="reduce-overhead" (CUDA
    graphs recorded by torch): the same bits as eager."""
    import nvfp4.ops  # noqa: F401
    nv = torch.ops.nvfp4
    x = _bf16((128, 256), 43)
    wq, ws, wd = nv.quantize(_bf16((192, 256), 44), block="16x16")

    def f(x):
        q, s, d = nv.quantize(x)
        return nv.matmul(q, s, wq, ws, d, wd).float() * 0.5

    eager = f(x)
    from torch._dynamo.utils import counters
    for mode in (None, "reduce-overhead"):
        torch._dynamo.reset()
        counters.clear()
        g = torch.compile(f, fullgraph=True, mode=mode)
        for _ in range(4):  # reduce-overhead records at the second or third call
            out = g(x)
        torch.cuda.synchronize()
        assert torch.equal(out, eager), mode
        # CUDA graphs were recorded, not skipped (inductor says why it skips)
        assert not counters["inductor"]["cudagraph_skips"], dict(counters["inductor"])


def test_host_inputs_with_cuda_tensors_and_an_explicit_stream():
    """CPU torch scales and a numpy decode scale with CUDA values are copied
    to the device; CPU inputs with a CUDA out= run on the GPU too (target
    'auto' follows out=); with stream= the copies and the outputs are made
    on that stream."""
    a, w = _bf16((64, 256), 45), _bf16((96, 256), 46)
    qa, qw = compiler.quantize_to_fp4(a), compiler.quantize_to_fp4(w)
    want = ref.matmul_reference(_np(qa.values), _np(qa.scales), _np(qw.values),
                                _np(qw.scales), alpha=qa.decode_scale.item() *
                                qw.decode_scale.item(), swizzled=True)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    c = compiler.matmul(qa.values, qa.scales.cpu(), qw.values, qw.scales.cpu(),
                        a_decode=qa.decode_scale.item(), b_decode=qw.decode_scale.cpu(),
                        stream=side)
    side.synchronize()
    assert c.is_cuda and _bound(c.float().cpu().numpy().astype(np.float64), want)
    out = torch.full((64, 96), float("nan"), dtype=torch.bfloat16, device="cuda")
    r = compiler.matmul(qa.values.cpu(), qa.scales.cpu(), qw.values.cpu(), qw.scales.cpu(),
                        a_decode=qa.decode_scale.cpu(), b_decode=qw.decode_scale.cpu(),
                        out=out)
    torch.cuda.synchronize()
    assert r is out and _bound(out.float().cpu().numpy().astype(np.float64), want)
