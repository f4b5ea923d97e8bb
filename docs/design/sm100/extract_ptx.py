#!/usr/bin/env python3
"""Extract the PTX text from `gpu.binary` objects written by
mlir-opt --gpu-module-to-binary="format=isa" (MLIR string escapes \\XX)."""
import re, sys
src = open(sys.argv[1]).read()
out = sys.argv[2] if len(sys.argv) > 2 else None
blobs = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', src)
def unescape(s):
    return re.sub(r'\\([0-9A-Fa-f]{2})', lambda m: chr(int(m.group(1), 16)), s).replace('\\\\', '\\')
text = "\n".join(unescape(b) for b in blobs)
if out: open(out, 'w').write(text)
else: sys.stdout.write(text)
