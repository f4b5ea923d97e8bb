"""PTX out of `gpu.binary` ops: the text MLIR embeds with
`--gpu-module-to-binary="format=isa"` (or a pipeline's cubin-format=isa).

    python3 -m nvfp4.gpu_binary MODULE.mlir [--name PREFIX] [-o OUT.ptx]

Prints (or writes) the PTX of every gpu.binary whose symbol starts with
PREFIX (all of them by default), concatenated. The lit tests pipe it into
ptxas and FileCheck. MLIR prints the string with \\XX escapes for bytes
that are not printable ASCII and \\\\ for a backslash.
"""

from __future__ import annotations

import argparse
import re
import sys

_BINARY = re.compile(r'gpu\.binary @([\w$.]+)(.*?)(?=gpu\.binary @|\Z)', re.S)
_ASSEMBLY = re.compile(r'assembly = "((?:[^"\\]|\\.)*)"')


def _unescape(s: str) -> str:
    return re.sub(r'\\([0-9A-Fa-f]{2}|\\)',
                  lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1), 16)), s)


def extract(text: str, prefix: str = "") -> dict[str, str]:
    """{binary symbol: PTX} for the binaries whose name starts with prefix."""
    out = {}
    for name, body in _BINARY.findall(text):
        if not name.startswith(prefix):
            continue
        for blob in _ASSEMBLY.findall(body):
            out[name] = _unescape(blob).rstrip("\0")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("module")
    p.add_argument("--name", default="", help="symbol prefix of the binaries")
    p.add_argument("-o", "--output")
    args = p.parse_args(argv)
    text = sys.stdin.read() if args.module == "-" else open(args.module).read()
    ptx = extract(text, args.name)
    if not ptx:
        print(f"no gpu.binary with PTX matching '{args.name}'", file=sys.stderr)
        return 1
    joined = "\n".join(ptx.values())
    if args.output:
        with open(args.output, "w") as f:
            f.write(joined)
    else:
        sys.stdout.write(joined)
    return 0


if __name__ == "__main__":
    sys.exit(main())
