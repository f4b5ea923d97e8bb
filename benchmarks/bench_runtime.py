"""Per-call host overhead of the Python API on the in-process runtime (issue 10).

    python3 benchmarks/bench_runtime.py [--old-api PATH/compiler.py --old-runner PATH]

On the GPU (torch CUDA tensors):
  * gpumode4 independent grouped matmul (outputs given, as GPU-mode does)
    and a 128x256 bf16 quantize (its three outputs allocated by torch, and
    given with out=): wall time per call of calls 2..N (synchronized once at
    the end) against the kernel time (a torch CUDA graph of 20 calls back
    to back, replayed, timed with CUDA events: the GPU's time per call
    without the host): the difference is the host overhead a call adds
    (wall: the median of five runs of 1000 calls; the overhead of the
    fastest and slowest run beside it, and, as a yardstick of the host's
    speed at the time, a 16-element torch add_ timed the same way);
  * the runtime's own timing of the call (its events around replays of a
    graph of one call), beside that kernel time;
  * a cold process whose kernel is in the disk cache: time from the first
    call to its result (torch already imported);
  * compiling the MoE example (docs/examples/moe_grouped.mlir) with no
    cache, and loading it from the disk cache in a new process (each after
    the process brought CUDA up, which is timed apart).
On the CPU: the overhead of a 128x4 swizzle (numpy).
With --old-api, the same calls through the subprocess API (the previous
python/nvfp4/compiler.py and its nvfp4-runner) in the same run.
Prints one JSON object (with the CPUs the process may run on: on a
machine of several NUMA nodes, pin it near the GPU, e.g. with taskset).
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

from nvfp4 import compiler, runtime  # noqa: E402


def _wall_runs(fn, n, sync, runs=5):
    """Wall time per call of `runs` runs of n calls (synchronized at the end
    of each), sorted: the host's speed varies from run to run."""
    fn()
    sync()
    per_call = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        per_call.append((time.perf_counter() - t) / n * 1e6)
    return sorted(per_call)


def _wall_per_call(fn, n, sync, runs=5):
    """The median of _wall_runs."""
    return _wall_runs(fn, n, sync, runs)[runs // 2]


def _graph_time(torch, fn, calls=20, reps=50):
    """Kernel time per call: a torch CUDA graph of `calls` calls replayed
    `reps` times, CUDA events around the replays. Calls back to back in one
    graph leave the host out: replaying a graph of one small call would
    time the host's graph launches instead."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    for _ in range(3):
        g.replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        g.replay()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / (reps * calls) * 1e3


def _gpumode4(torch):
    sizes, n, k = [128, 384], 4096, 1536
    g = torch.Generator(device="cuda").manual_seed(0)
    a = [torch.randint(0, 256, (m, k // 2), dtype=torch.uint8, device="cuda", generator=g)
         for m in sizes]
    b = [torch.randint(0, 256, (n, k // 2), dtype=torch.uint8, device="cuda", generator=g)
         for _ in sizes]
    sa = [torch.full((1, k // 64, 32, 4, 4) if m <= 128 else (3, k // 64, 32, 4, 4), 0x38,
                     dtype=torch.uint8, device="cuda") for m in sizes]
    sb = [torch.full((n // 128, k // 64, 32, 4, 4), 0x38, dtype=torch.uint8, device="cuda")
          for _ in sizes]
    outs = [torch.empty((m, n), dtype=torch.float16, device="cuda") for m in sizes]
    return lambda: compiler.grouped_matmul("independent", a, sa, b, sb, out_dtype="f16",
                                           out=outs), (a, sa, b, sb)


def gpu_section(args):
    import torch
    res = {}
    sync = torch.cuda.synchronize
    # The host's speed now: one small in-place torch op on the GPU.
    y = torch.zeros(16, device="cuda")
    res["torch_add__us_per_call"] = round(_wall_per_call(lambda: y.add_(1), 1000, sync), 2)
    grouped, operands = _gpumode4(torch)
    x = torch.randn(128, 256, dtype=torch.bfloat16, device="cuda")
    quant = lambda: compiler.quantize(x)  # noqa: E731
    quant_outs = compiler.quantize(x)
    quant_out = lambda: compiler.quantize(x, out=quant_outs)  # noqa: E731
    for name, fn in (("gpumode4_grouped", grouped), ("quantize_128x256", quant),
                     ("quantize_128x256_out", quant_out)):
        walls = _wall_runs(fn, 1000, sync)
        wall = walls[len(walls) // 2]
        kernel = _graph_time(torch, fn)
        res[name] = {"wall_us_per_call": round(wall, 2), "graph_replay_us": round(kernel, 2),
                     "host_overhead_us": round(wall - kernel, 2),
                     "host_overhead_us_min_max": [round(walls[0] - kernel, 2),
                                                  round(walls[-1] - kernel, 2)]}
    # The runtime's own timing of the same grouped call (its events, graph).
    a, sa, b, sb = operands
    _, t = compiler.grouped_matmul("independent", a, sa, b, sb, out_dtype="f16",
                                   benchmark=True, graph=True, warmup=10, reps=200)
    res["gpumode4_grouped"]["runtime_graph_us"] = round(t.median_us, 2)
    _, t = compiler.quantize(x, benchmark=True, graph=True, warmup=10, reps=200)
    res["quantize_128x256"]["runtime_graph_us"] = round(t.median_us, 2)

    # A cold process with a disk-cache hit (the cache was filled above).
    probe = (
        "import time, torch\n"
        "from nvfp4 import compiler, runtime\n"
        "x = torch.randn(128, 256, dtype=torch.bfloat16, device='cuda'); torch.cuda.synchronize()\n"
        "t = time.perf_counter(); q = compiler.quantize(x); torch.cuda.synchronize()\n"
        "print((time.perf_counter() - t) * 1e3, runtime.cache_stats()['disk_hits'])\n"
    )
    cold = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    ms, hits = cold.stdout.split() if cold.returncode == 0 else ("nan", "0")
    if cold.returncode != 0:
        res["cold_process_error"] = cold.stderr[-1000:]
    res["cold_process_disk_hit_ms"] = float(ms)
    res["cold_process_disk_hits"] = int(hits)

    # Compiling the MoE example with no cache (sm_90a, in process), then in a
    # second process from the disk cache. The process first brings CUDA up
    # (driver, primary context: paid once per process by any CUDA program,
    # reported apart), then compiles.
    with tempfile.TemporaryDirectory() as tmp:
        probe = ("import time\n"
                 "from nvfp4 import runtime\n"
                 "t = time.perf_counter(); runtime.gpu_available()\n"
                 "t1 = time.perf_counter(); runtime.compile_program(open(%r).read(), 'gpu')\n"
                 "print(t1 - t, time.perf_counter() - t1)\n") % (
                     str(REPO / "docs/examples/moe_grouped.mlir"))
        env = dict(os.environ, NVFP4_CACHE_DIR=tmp)
        runs = [subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                               text=True) for _ in range(2)]
    (init0, first), (init1, second) = [
        r.stdout.split() if r.returncode == 0 else ("nan", "nan") for r in runs]
    errors = [r.stderr[-1000:] for r in runs if r.returncode != 0]
    if errors:
        res["moe_example_errors"] = errors
    res["cuda_init_s"] = [float(init0), float(init1)]
    res["moe_example_compile_s"] = float(first)
    res["moe_example_disk_hit_s"] = float(second)

    if args.old_api:
        spec = importlib.util.spec_from_file_location("old_compiler", args.old_api)
        old = importlib.util.module_from_spec(spec)
        sys.modules["old_compiler"] = old  # its dataclasses look it up
        spec.loader.exec_module(old)
        os.environ["NVFP4_RUNNER"] = args.old_runner
        a_np = [t.cpu().numpy() for t in a]
        sa_np = [t.cpu().numpy() for t in sa]
        b_np = [t.cpu().numpy() for t in b]
        sb_np = [t.cpu().numpy() for t in sb]
        old.grouped_matmul("independent", a_np, sa_np, b_np, sb_np, out="f16", target="gpu")
        t0 = time.perf_counter()
        for _ in range(3):
            old.grouped_matmul("independent", a_np, sa_np, b_np, sb_np, out="f16",
                               target="gpu")
        res["old_subprocess_api_gpumode4_ms_per_call"] = round(
            (time.perf_counter() - t0) / 3 * 1e3, 1)
        xb = x.cpu().view(torch.int16).numpy().view(np.uint16)
        t0 = time.perf_counter()
        for _ in range(3):
            old.quantize(xb, target="gpu")
        res["old_subprocess_api_quantize_ms_per_call"] = round(
            (time.perf_counter() - t0) / 3 * 1e3, 1)
    return res


def cpu_section():
    s = np.zeros((128, 4), np.uint8)
    fn = lambda: compiler.swizzle_scales(s, target="cpu")  # noqa: E731
    wall = _wall_per_call(fn, 1000, lambda: None)
    _, t = compiler.swizzle_scales(s, target="cpu", benchmark=True, warmup=10, reps=2000)
    return {"swizzle_128x4": {"wall_us_per_call": round(wall, 2),
                              "runtime_timed_us": round(t.median_us, 2),
                              "host_overhead_us": round(wall - t.median_us, 2)}}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--old-api", help="the previous compiler.py (subprocess API)")
    p.add_argument("--old-runner", help="the nvfp4-runner it spawns")
    args = p.parse_args()
    res = {"cpus": sorted(os.sched_getaffinity(0)), "cpu": cpu_section()}
    if runtime.gpu_available():
        res["gpu"] = gpu_section(args)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
