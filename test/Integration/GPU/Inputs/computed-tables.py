"""Writes the inputs of computed-tables.mlir into DIR: random operands and
out-of-contract group tables (offsets<i>.npy, masked<i>.npy)."""
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
# Offsets: not starting at 0, decreasing, past the rows, negative, huge.
for i, table in enumerate([[7, 100, 256], [0, 250, 56], [0, 100, 5256],
                           [-50, -200, 256], [2**30, 2**30 + 100, 2**31 - 1]]):
    save(f"offsets{i}", np.array(table, dtype=np.int32))
# masked_m: negative, above the group's rows, huge.
for i, table in enumerate([[-20, 20], [10, 520], [2**30, -2**30]]):
    save(f"masked{i}", np.array(table, dtype=np.int32))
