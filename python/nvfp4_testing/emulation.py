"""The sm_100a (tcgen05) kernels executed under emulation on a Hopper GPU.

    python3 -m nvfp4_testing.emulation configs      every tile configuration
    python3 -m nvfp4_testing.emulation mutations    the mutation test
    python3 -m nvfp4_testing.emulation runner DIR   one matmul through nvfp4-runner
    python3 -m nvfp4_testing.emulation scales       UE8M0 scales at their extremes
    python3 -m nvfp4_testing.emulation overlap      two launches at once must trap

`configs` runs the selfcheck matmul and grouped families (and quantize, whose
E2M1 conversion is emulated too) with the sm_100a pipeline under
nvfp4-emulate-tcgen05, once per tile configuration: token tiles 64, 128 and
256, shallow and deep stage rings. Matmuls are checked against the fp64
reference within the spec's bound, quantize bit for bit.

`mutations` corrupts one field of the emitted tcgen05 ops at a time
(nvfp4-test-mutate-tcgen05, a test pass that nvfp4-runner registers, named
in the pipeline's `emulation-passes` option) and runs one NVFP4 and one
MXFP4 matmul through nvfp4-runner ($NVFP4_RUNNER) each time: every
corruption of a field the hardware reads must make the run fail its check
(a trap of the emulation, which names the violated rule, or wrong numbers).
LBO is the control: the PTX ISA says it is not used by swizzled K-major
layouts, so corrupting it must change nothing.

Needs a GPU with TMA (sm_90 or later). Prints one line per case and a
SUMMARY line; exit status 1 on any failure.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

#: Tile configurations of the sm_100a GEMM (nvfp4-lower-to-sm100 options).
CONFIGS = [
    "",                          # the pass's choice (token tile by shape)
    "token-tile=64 stages=2",
    "token-tile=128 stages=3",
    "token-tile=256 stages=4",
]

#: field -> whether corrupting it must make the run fail.
MUTATIONS = {
    "swizzle": True,
    "sbo": True,
    "idesc-n": True,
    "idesc-m": True,
    "sf-id": True,
    "cp-shape": True,
    "tmem-column": True,
    "scale-column": True,
    "d-column": True,
    "enable-input-d": True,
    "lbo": False,
}

#: Fields of CTA-pair kernels (cta_group::2), mutated in NVIDIA's CuTe DSL
#: pair kernels (nvfp4_testing.cutedsl mutations) with those above.
PAIR_MUTATIONS = {
    "commit-mask": True,
    "cta-group": True,
}


def _env(pipeline_options):
    env = dict(os.environ)
    env["NVFP4_EMULATE_TCGEN05"] = "1"
    env["NVFP4_PIPELINE_OPTIONS"] = pipeline_options
    return env


def _check(label, got, a_q, a_s, b_q, b_s, *, fmt="nvfp4", out="f32"):
    """One matmul's output against the fp64 reference within the spec's
    bound (a Report of one case, summary printed); 1 if it is outside."""
    from nvfp4 import reference as ref
    from nvfp4_testing.selfcheck import Report, summation_bound
    m, n, k = a_q.shape[0], b_q.shape[0], a_q.shape[1] * 2
    kw = dict(a_rows=m, b_rows=n, swizzled=True)
    want = ref.matmul_reference(a_q, a_s, b_q, b_s, fmt=fmt, **kw)
    rep = Report("emulation")
    rep.close(f"{label} {fmt} M={m} K={k} N={n} -> {out}", got, want, out,
              summation_bound(a_q, a_s, b_q, b_s, k, fmt=fmt, **kw))
    rep.summary()
    return 1 if rep.failures else 0


def configs(families):
    failures = 0
    for options in CONFIGS:
        for family in families:
            label = options or "default tiles"
            print(f"== {family} under emulation, {label}", flush=True)
            start = time.time()
            proc = subprocess.run(
                [sys.executable, "-m", "nvfp4_testing.selfcheck", family, "--target=gpu",
                 "--size=full"], env=_env(options), capture_output=True, text=True)
            out = proc.stdout + proc.stderr
            summary = [l for l in out.splitlines() if l.startswith("SUMMARY")]
            bad = [l for l in out.splitlines() if l.startswith("FAIL")]
            ok = proc.returncode == 0 and summary and "0 failures" in summary[-1]
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} configs [{label}] {family}: "
                  f"{summary[-1] if summary else 'no summary'} ({time.time() - start:.1f} s)",
                  flush=True)
            for line in bad[:5]:
                print("   ", line)
            if not ok and not summary:
                print(out[-2000:])
        # quantize and the zero-size cases do not depend on the GEMM tile:
        # once is enough.
        families = [f for f in families if f not in ("quantize", "empty")]
    print(f"SUMMARY emulation configs: {failures} failures", flush=True)
    return failures


def extreme_scales(target="gpu"):
    """MXFP4 with UE8M0 block scales at the top of their range, where the
    product of A's and B's factors leaves f32's: an all-zero block of A
    with factor 2^127 against B's 2^13 (a product of 2^140 that contributes
    0), and A's and B's smallest nonzero values (0.5) under 2^127 and 2^1
    (a product of 2^128 that contributes a finite 2^126). Against the fp64
    reference, f32 out: the MMA must make neither inf nor NaN of them."""
    from nvfp4 import compiler, runtime
    from nvfp4 import reference as ref
    from nvfp4_testing.selfcheck import random_operand
    runtime.DEFAULT_POISON = 0xFF
    rng = np.random.default_rng(13)
    m, k, n = 128, 256, 136
    a_q, a_s = random_operand(m, k, "mxfp4", rng, modest=True)
    b_q, b_s = random_operand(n, k, "mxfp4", rng, modest=True)
    sa = ref.unswizzle_scales(a_s, m, k // 32)
    sb = ref.unswizzle_scales(b_s, n, k // 32)
    # Block 0 (bytes 0-15 of a row): zero in rows 0-63 of A under 2^127,
    # every row of B under 2^13.
    a_q[:64, 0:16] = 0
    sa[:64, 0] = 254
    sb[:, 0] = 140
    # Block 1 (bytes 16-31): element 32 alone is 0.5 (code 1, the low nibble)
    # in rows 64-127 of A under 2^127 and in every row of B under 2^1.
    a_q[64:, 16:32] = 0
    a_q[64:, 16] = 1
    sa[64:, 1] = 254
    b_q[:, 16:32] = 0
    b_q[:, 16] = 1
    sb[:, 1] = 128
    a_s, b_s = ref.swizzle_scales(sa), ref.swizzle_scales(sb)
    got = compiler.matmul(a_q, a_s, b_q, b_s, fmt="mxfp4", out_dtype="f32", target=target)
    return _check("UE8M0 products 2^140 (zero block), 2^128", got, a_q, a_s, b_q, b_s,
                  fmt="mxfp4")


_OVERLAP = """
import numpy as np, torch
from nvfp4 import compiler
from nvfp4_testing.selfcheck import random_operand
rng = np.random.default_rng(3)
a_q, a_s = random_operand(512, 512, "nvfp4", rng)
b_q, b_s = random_operand(512, 512, "nvfp4", rng)
fp4, e4m3 = torch.float4_e2m1fn_x2, torch.float8_e4m3fn
args = [torch.from_numpy(x).cuda().view(t)
        for x, t in ((a_q, fp4), (a_s, e4m3), (b_q, fp4), (b_s, e4m3))]
compiler.matmul(*args, out_dtype="f32")  # compiles; runs alone
torch.cuda.synchronize()
print("one launch at a time: ran", flush=True)
streams = [torch.cuda.Stream(), torch.cuda.Stream()]
for s in streams:
    with torch.cuda.stream(s):
        compiler.matmul(*args, out_dtype="f32")
torch.cuda.synchronize()
print("two launches at once: ran", flush=True)
"""


def overlap():
    """Two launches of one emulated kernel at once, on two streams, one CTA
    each (ctas=1: one CTA works through every tile, long under emulation,
    so the second launch starts while the first runs): the second's CTA
    must trap at its entry, since the launches would share the kernel's
    tensor memory and queue of in-flight ops. One launch alone runs."""
    proc = subprocess.run([sys.executable, "-c", _OVERLAP], env=_env("ctas=1"),
                          capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    ok = (proc.returncode != 0 and "one launch at a time: ran" in out and
          "started while the same CTA of another launch" in out and
          "two launches at once: ran" not in out)
    trap = [l.strip() for l in out.splitlines() if "nvfp4 tcgen05 emulation:" in l]
    print(f"{'PASS' if ok else 'FAIL'} emulation overlapping launches: exit {proc.returncode}, "
          f"{trap[0] if trap else 'no trap'}", flush=True)
    if not ok:
        print(out[-3000:])
    return 0 if ok else 1


def _runner_matmul(workdir, fmt, m, k, n, seed, pipeline_options=""):
    """One matmul (bf16 out) through nvfp4-runner --emulate-tcgen05
    ($NVFP4_RUNNER) on .npy files in `workdir`: (the runner's process,
    its output or None, the operands)."""
    from pathlib import Path
    from nvfp4_testing.selfcheck import random_operand
    out = Path(workdir)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    a_q, a_s = random_operand(m, k, fmt, rng)
    b_q, b_s = random_operand(n, k, fmt, rng)
    scale = "f8E4M3FN" if fmt == "nvfp4" else "f8E8M0FNU"

    def ty(a, element, enc=""):
        return "tensor<" + "x".join(map(str, a.shape[:-1])) + \
            f"x{a.shape[-1] * (2 if element == 'f4E2M1FN' else 1)}x{element}{enc}>"
    sw = ", #nvfp4.swizzled_128x4"
    ta, tsa = ty(a_q, "f4E2M1FN"), ty(a_s, scale, sw)
    tb, tsb = ty(b_q, "f4E2M1FN"), ty(b_s, scale, sw)
    tc = f"tensor<{m}x{n}xbf16>"
    (out / "mm.mlir").write_text(
        f"func.func @main(%a: {ta}, %sa: {tsa}, %b: {tb}, %sb: {tsb}) -> {tc} {{\n"
        f"  %c = nvfp4.matmul %a, %sa, %b, %sb : {ta}, {tsa}, {tb}, {tsb} -> {tc}\n"
        f"  return %c : {tc}\n}}\n")
    for name, array in [("a", a_q), ("sa", a_s), ("b", b_q), ("sb", b_s)]:
        np.save(out / f"{name}.npy", np.ascontiguousarray(array).view(np.uint8))
    result = out / "c.npy"
    result.unlink(missing_ok=True)
    cmd = [os.environ.get("NVFP4_RUNNER", "nvfp4-runner"), str(out / "mm.mlir"), "--target=gpu",
           "--emulate-tcgen05"] + [f"--input={out / x}.npy" for x in ("a", "sa", "b", "sb")] + \
          [f"--output={result}"]
    if pipeline_options:
        cmd.append(f"--pipeline-options={pipeline_options}")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    got = np.load(result) if proc.returncode == 0 and result.exists() else None
    return proc, got, (a_q, a_s, b_q, b_s)


def runner(workdir):
    """One NVFP4 matmul (M, N off the tiles, bf16 out) through nvfp4-runner
    --emulate-tcgen05 ($NVFP4_RUNNER) on .npy files in `workdir`, checked
    against the reference: the runner's path to the emulated kernel."""
    proc, got, operands = _runner_matmul(workdir, "nvfp4", 200, 768, 136, 12)
    if got is None:
        print(proc.stdout + proc.stderr)
        print("FAIL emulation runner: exit", proc.returncode)
        return 1
    return _check("nvfp4-runner --emulate-tcgen05", got, *operands, out="bf16")


def trap_message(out: str) -> str:
    """The emulation's message in a process's output (what the device
    printed before its trap), or ''."""
    traps = [l for l in out.splitlines() if "nvfp4 tcgen05 emulation:" in l]
    return traps[0].split("emulation: ", 1)[-1].strip() if traps else ""


def judge_mutation(field, subject, outcome, detail, must_fail) -> int:
    """Prints one mutation's line; 1 when it is a failure of the test: a
    field the hardware reads whose corruption the run did not catch (a
    trap, wrong numbers or a hang), or one it does not read that changed
    the run."""
    caught = outcome in ("trap", "wrong numbers", "hang")
    ok = caught if must_fail else outcome == "passed"
    print(f"{'PASS' if ok else 'FAIL'} mutation {field} ({subject}): "
          f"{'caught' if caught else 'not caught'}: {outcome}"
          f"{': ' + detail if detail else ''}", flush=True)
    return 0 if ok else 1


def _run_one(fmt, mutation):
    """One matmul through the runner with `mutation` (a field of
    nvfp4-test-mutate-tcgen05, or None): 'passed', 'wrong numbers', 'trap'
    (the emulation's message) or 'error', and a detail."""
    options = (f"emulation-passes={{nvfp4-test-mutate-tcgen05{{field={mutation}}}}}"
               if mutation else "")
    m, k, n = (256, 512, 200) if fmt == "nvfp4" else (200, 512, 136)
    with tempfile.TemporaryDirectory() as workdir:
        proc, got, operands = _runner_matmul(workdir, fmt, m, k, n, 11, options)
    out = proc.stdout + proc.stderr
    trap = trap_message(out)
    if trap:
        return "trap", trap
    if got is None:
        return "error", out.strip().splitlines()[-1] if out.strip() else f"exit {proc.returncode}"
    log = io.StringIO()
    with contextlib.redirect_stdout(log):
        failed = _check("sm_100a pipeline", got, *operands, fmt=fmt, out="bf16")
    if not failed:
        return "passed", ""
    lines = [l for l in log.getvalue().splitlines() if l.startswith("FAIL")]
    return "wrong numbers", lines[0].split(": ", 1)[-1] if lines else "outside the bound"


def mutations():
    failures = 0
    for fmt in ("nvfp4", "mxfp4"):
        outcome, detail = _run_one(fmt, None)
        ok = outcome == "passed"
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} mutation none ({fmt}): {outcome} {detail}", flush=True)
    for field, must_fail in MUTATIONS.items():
        for fmt in ("nvfp4", "mxfp4"):
            failures += judge_mutation(field, fmt, *_run_one(fmt, field), must_fail)
    print(f"SUMMARY emulation mutations: {failures} failures", flush=True)
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command",
                        choices=["configs", "mutations", "runner", "scales", "overlap"])
    parser.add_argument("arg", nargs="?", default=None)
    args = parser.parse_args(argv)
    if args.command == "runner":
        return runner(args.arg or "emulation-runner")
    if args.command == "scales":
        return extreme_scales(args.arg or "gpu")
    if args.command == "overlap":
        return overlap()
    if args.command == "configs":
        families = (args.arg.split(",") if args.arg
                    else ["quantize", "empty", "matmul", "grouped"])
        return 1 if configs(families) else 0
    return 1 if mutations() else 0


if __name__ == "__main__":
    sys.exit(main())
