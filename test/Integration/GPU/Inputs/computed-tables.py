"""Writes the inputs of computed-tables.mlir into DIR: random operands and,
for each out-of-contract table, the (in-contract) table input and the bias
that the program adds to it."""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(3)


def save(name, array):
    np.save(out / f"{name}.npy", array)


save("a", rng.integers(0, 256, (256, 32), dtype=np.uint8))
save("sa", rng.integers(0, 0x70, (2, 1, 32, 4, 4), dtype=np.uint8))
save("b", rng.integers(0, 256, (2, 128, 32), dtype=np.uint8))
save("sb", rng.integers(0, 0x70, (2, 1, 1, 32, 4, 4), dtype=np.uint8))
save("am", rng.integers(0, 256, (2, 128, 32), dtype=np.uint8))
save("sam", rng.integers(0, 0x70, (2, 1, 1, 32, 4, 4), dtype=np.uint8))
save("off", np.array([0, 100, 256], dtype=np.int32))
save("mm", np.array([10, 20], dtype=np.int32))
# Offsets: not starting at 0, decreasing, past the rows, negative, huge.
for i, bias in enumerate([[7, 0, 0], [0, 150, -200], [0, 0, 5000],
                          [-50, -300, 0], [2**30, 2**30, 2**30]]):
    save(f"offbias{i}", np.array(bias, dtype=np.int32))
# masked_m: negative, above the group's rows, huge.
for i, bias in enumerate([[-30, 0], [0, 500], [2**30, -2**30]]):
    save(f"mmbias{i}", np.array(bias, dtype=np.int32))
