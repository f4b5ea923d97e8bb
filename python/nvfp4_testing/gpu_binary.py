"""PTX out of `gpu.binary` ops: the text MLIR embeds with
`--gpu-module-to-binary="format=isa"` (or a pipeline's cubin-format=isa).

    python3 -m nvfp4_testing.gpu_binary MODULE.mlir [--name NAME | --prefix P] [-o OUT]
    python3 -m nvfp4_testing.gpu_binary MODULE.mlir --name NAME --cubin -o OUT.cubin

Prints (or writes) the PTX of the gpu.binary named NAME, or of every one
whose symbol starts with P (all of them by default), concatenated; with
--cubin, the `bin` object of NAME (format=bin) instead. The lit tests pipe
the PTX into ptxas and FileCheck, and the cubins into cuobjdump. MLIR prints the string with \\XX escapes for bytes
that are not printable ASCII and \\\\ for a backslash.
"""

from __future__ import annotations

import argparse
import re
import sys

_BINARY = re.compile(r'gpu\.binary @([\w$.]+)(.*?)(?=gpu\.binary @|\Z)', re.S)
_ASSEMBLY = re.compile(r'assembly = "((?:[^"\\]|\\.)*)"')
_BIN = re.compile(r'bin = "((?:[^"\\]|\\.)*)"')


def _unescape(s: str) -> str:
    return re.sub(r'\\([0-9A-Fa-f]{2}|\\)',
                  lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1), 16)), s)


def extract(text: str, prefix: str = "", exact: str | None = None) -> dict[str, str]:
    """{binary symbol: PTX} for the binaries named `exact`, or whose name
    starts with `prefix`."""
    out = {}
    for name, body in _BINARY.findall(text):
        if exact is not None and name != exact:
            continue
        if exact is None and not name.startswith(prefix):
            continue
        for blob in _ASSEMBLY.findall(body):
            out[name] = _unescape(blob).rstrip("\0")
    return out


def extract_cubin(text: str, name: str) -> bytes | None:
    """The `bin` object of the gpu.binary `name` (format=bin), as bytes."""
    for symbol, body in _BINARY.findall(text):
        if symbol == name:
            for blob in _BIN.findall(body):
                return _unescape(blob).encode("latin-1")
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("module")
    p.add_argument("--name", help="the binary's symbol")
    p.add_argument("--prefix", default="", help="symbol prefix of the binaries")
    p.add_argument("--cubin", action="store_true", help="write the cubin of --name")
    p.add_argument("-o", "--output")
    args = p.parse_args(argv)
    text = sys.stdin.read() if args.module == "-" else open(args.module).read()
    if args.cubin:
        data = extract_cubin(text, args.name) if args.name else None
        if data is None or not args.output:
            print(f"--cubin needs -o and a gpu.binary '{args.name}' with a bin object",
                  file=sys.stderr)
            return 1
        with open(args.output, "wb") as f:
            f.write(data)
        return 0
    ptx = extract(text, args.prefix, args.name)
    if not ptx:
        print(f"no gpu.binary with PTX matching '{args.name or args.prefix}'",
              file=sys.stderr)
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
