"""Writes one benchmark case as a runner invocation, for profilers.

    python3 benchmarks/dump_case.py CASE FORM DIR

CASE is a key of bench_h200.CASES, FORM independent | contiguous | matmul;
or CASE quantize_8k with FORM quantize (the 8192 x 8192 bf16 quantize).
Writes DIR/program.mlir and DIR/in<i>.npy (the same data bench_h200.py
times) and prints the nvfp4-runner arguments that run it.
"""

import sys
from pathlib import Path

import numpy as np

import bench_h200 as bench  # noqa: E402
from nvfp4 import compiler  # noqa: E402


class _Captured(Exception):
    pass


def main(argv):
    case, form, out = argv
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)

    def capture(program, inputs, num_outputs, **kw):
        (out / "program.mlir").write_text(program)
        args = []
        for i, a in enumerate(inputs):
            np.save(out / f"in{i}.npy", a)
            args.append(f"--input={out / f'in{i}.npy'}")
        print(" ".join([str(out / "program.mlir"), "--target=gpu"] + args))
        raise _Captured()

    compiler.run_program = capture
    try:
        if case == "quantize_8k":
            bench.bench_quantize(1, np.random.default_rng(7), None)
        else:
            bench.bench_case(case, 1, np.random.default_rng(7), forms=(form,),
                             graph_only=True)
    except _Captured:
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
