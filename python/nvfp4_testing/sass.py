"""SASS of the kernels the compiler builds for a chip, and what must be in it.

    python3 -m nvfp4_testing.sass PROGRAM.mlir --entry NAME [--chip sm_100a] --out DIR
                          [--require-gemm]
    python3 -m nvfp4_testing.sass --where     # the cuobjdump it uses

Compiles PROGRAM with ``nvfp4-runner --compile-only --target=gpu --chip``
(no GPU needed; ptxas comes from the CUDA toolkit), takes every cubin out of
the lowered module, disassembles it with ``cuobjdump -sass`` and writes
DIR/summary.txt: per kernel, how many times each instruction of interest
appears, and DIR/<kernel>.excerpt.txt: those instructions with their
addresses (--full: the whole SASS as DIR/<kernel>.sass). With
--require-gemm, the block-scaled GEMM kernels (``nvfp4_sm100_gemm_*``) must
contain the instructions of a block-scaled tcgen05 pipeline (UTCOMMA -- .4X
for NVFP4's scale_vec::4X --, UTCCP, UTCBAR, LDTM, UTMALDG, UBLKCP) and no
UTCQMMA / UTCHMMA (the FP8 and 16-bit MMAs): exit status 1 otherwise.
Nothing is run on the GPU, and no GPU is needed: cuobjdump comes from
$CUOBJDUMP, PATH or the nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm
wheels (find_cuobjdump).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .gpu_binary import extract_cubin

# SASS opcodes (mnemonic prefixes) worth counting in a block-scaled GEMM.
INTERESTING = ["UTCOMMA.4X", "UTCOMMA.2X", "UTCOMMA", "UTCQMMA", "UTCHMMA",
               "UTCCP", "UTCBAR", "LDTM", "STTM", "UTMALDG", "UBLKCP",
               "UTCATOMSWS", "SYNCS.ARRIVE", "SYNCS.PHASECHK", "HGMMA", "F2FP"]
# The block-scaled MMA is UTCOMMA: .4X for scale_vec::4X (NVFP4, block16),
# plain for scale_vec::2X (MXFP4, block32).
REQUIRED_GEMM = ["UTCOMMA", "UTCCP", "UTCBAR", "LDTM", "UTMALDG", "UBLKCP"]
FORBIDDEN_GEMM = ["UTCQMMA", "UTCHMMA"]


def find_cuobjdump() -> str | None:
    """cuobjdump: $CUOBJDUMP, else the one on PATH, else the one of the
    nvidia-cuda-cuobjdump wheel (PyPI), which installs it as
    site-packages/nvidia/cu<major>/bin/cuobjdump (the `nvidia` namespace
    package). `cuobjdump -sass` runs nvdisasm, which it looks for next to
    itself or on PATH: the wheel's needs the nvidia-cuda-nvdisasm wheel
    (same directory) or an nvdisasm on PATH, else it is not used. None when
    there is none."""
    env = os.environ.get("CUOBJDUMP")
    if env:
        return env
    found = shutil.which("cuobjdump")
    if found:
        return found
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        spec = None
    for root in (spec.submodule_search_locations or []) if spec else []:
        for cand in sorted(Path(root).glob("cu*/bin/cuobjdump"), reverse=True):
            nvdisasm = cand.with_name("nvdisasm")
            if os.access(cand, os.X_OK) and (os.access(nvdisasm, os.X_OK) or
                                             shutil.which("nvdisasm")):
                return str(cand)
    return None


def count_opcodes(sass: str) -> dict[str, int]:
    """Occurrences of each INTERESTING prefix as an opcode (after the
    optional predicate) in cuobjdump output."""
    counts = {k: 0 for k in INTERESTING}
    for line in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not m:
            continue
        op = m.group(1)
        for k in INTERESTING:
            if op == k or op.startswith(k + "."):
                counts[k] += 1
    return counts


def lower(program: Path, entry: str, chip: str) -> str:
    from nvfp4_testing import find_runner
    cmd = [find_runner(), str(program), f"--entry={entry}",
           "--compile-only", "--target=gpu", f"--chip={chip}", "--dump-lowered"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"nvfp4-runner failed:\n{proc.stderr}")
    return proc.stdout


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("program", type=Path)
    p.add_argument("--entry", action="append", required=True)
    p.add_argument("--chip", default="sm_100a")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--require-gemm", action="store_true")
    p.add_argument("--full", action="store_true", help="also write the whole SASS")
    p.add_argument("--cuobjdump", default=find_cuobjdump() or "cuobjdump")
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--where"]:   # the cuobjdump that would be used (lit probes it)
        found = find_cuobjdump()
        print(found or "")
        return 0 if found else 1
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([args.cuobjdump, "--version"], capture_output=True,
                             text=True).stdout.strip().splitlines()[-1:]
    lines = [f"# SASS of {args.program} ({', '.join(args.entry)}) for {args.chip}",
             f"# {' '.join(version)}", ""]
    failures = []
    # The runner lowers the whole module: one entry gives every kernel.
    for entry in args.entry[:1]:
        text = lower(args.program, entry, args.chip)
        names = re.findall(r"gpu\.binary @([\w$.]+)", text)
        for name in names:
            cubin = extract_cubin(text, name)
            if cubin is None:
                continue
            with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
                f.write(cubin)
                f.flush()
                sass = subprocess.run([args.cuobjdump, "-sass", f.name],
                                      capture_output=True, text=True, check=True).stdout
            if args.full:
                (args.out / f"{name}.sass").write_text(sass)
            counts = count_opcodes(sass)
            excerpt = [line.strip() for line in sass.splitlines()
                       if any(re.search(r"\b" + re.escape(k) + r"\b", line)
                              for k in INTERESTING[:12])]
            (args.out / f"{name}.excerpt.txt").write_text("\n".join(excerpt) + "\n")
            shown = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
            lines.append(f"{name}: {shown or '(none of interest)'}")
            if args.require_gemm and name.startswith("nvfp4_sm100_gemm"):
                for k in REQUIRED_GEMM:
                    if not counts[k]:
                        failures.append(f"{entry}/{name}: no {k}")
                for k in FORBIDDEN_GEMM:
                    if counts[k]:
                        failures.append(f"{entry}/{name}: {counts[k]} x {k}")
    lines.append("")
    lines.append("CHECK: " + ("OK" if not failures else "FAILED: " + "; ".join(failures)))
    (args.out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
