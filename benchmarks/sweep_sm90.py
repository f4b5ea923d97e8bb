"""Tuning sweep of the sm_90a GEMM's options (convert-nvfp4-to-sm90).

    python3 benchmarks/sweep_sm90.py [--out DIR] [--cases gpumode1,moe_prefill]
                                     [--configs ";token-tile=64;granule=16 stages=4"]

Configurations are separated by ";". Each is the base ("" = the pipeline
defaults) or space-separated nvfp4-lower-to-sm90 options handed to
nvfp4-runner --pipeline-options. Each
case runs in the MoE layout (contiguous; dense_8k as a matmul), is timed as
CUDA-graph replays and checked on sampled rows like benchmarks/bench_h200.py.
Writes DIR/sweep.json and prints a table: one row per case, one column per
configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

import bench_h200 as bench  # noqa: E402

DEFAULT_CONFIGS = [
    "",
    "token-tile=64", "token-tile=128",
    "promote-every=0", "promote-every=8",
    "granule=16", "granule=8",
    "stages=3", "stages=4",
]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.environ.get("OUT", "/tmp/nvfp4-sweep"))
    p.add_argument("--cases", default="gpumode1,gpumode3,moe_prefill,dense_8k")
    p.add_argument("--configs", default=";".join(DEFAULT_CONFIGS))
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args(argv)
    configs = args.configs.split(";")
    cases = args.cases.split(",")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    for case in cases:
        for config in configs:
            os.environ["NVFP4_PIPELINE_OPTIONS"] = config
            rng = np.random.default_rng(7)
            row = bench.bench_case(case, args.reps, rng, forms=("contiguous", "matmul"),
                                   graph_only=True)[0]
            results[(case, config)] = row
            print(json.dumps(dict(config=config, **row)), flush=True)
    with open(out / "sweep.json", "w") as f:
        json.dump([dict(config=c, **r) for (_, c), r in results.items()], f, indent=1)
    head = "| case | " + " | ".join(c or "defaults" for c in configs) + " |"
    lines = [head, "|" + "---|" * (len(configs) + 1)]
    for case in cases:
        cells = []
        for config in configs:
            r = results[(case, config)]
            t = r["graph_us"] if r["graph_us"] is not None else r["calls_us"]
            cells.append(f"{t:.1f}" + ("" if r["check"] <= 1 else " WRONG"))
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    print("\n".join(lines))
    (out / "sweep.md").write_text("\n".join(lines) + "\n")
    return 0 if all(r["check"] <= 1 for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
