#!/usr/bin/env python3
"""build.py FILE.mlir [--pipeline STR] [--outdir DIR]

Lower FILE with mlir-opt (default: the upstream -gpu-lower-to-nvvm-pipeline with
cubin-format=isa), extract the PTX string from the resulting gpu.binary, run
`ptxas -arch=sm_90a -v -O3` on it, and report each kernel's SASS size read from the
cubin's `.text.<kernel>` section (sm_90 SASS is 16 B per instruction; sections are
padded to 128 B, so sizes are exact to 8 instructions).  Needs no GPU."""
import sys, subprocess, re, os, argparse
ap = argparse.ArgumentParser()
ap.add_argument('file')
ap.add_argument('--pipeline', default='-gpu-lower-to-nvvm-pipeline=cubin-chip=sm_90a cubin-features=+ptx80 opt-level=3 cubin-format=isa')
ap.add_argument('--pre', default='')
ap.add_argument('--outdir', default='/tmp/nvfp4-sm90-build')
a = ap.parse_args()
os.makedirs(a.outdir, exist_ok=True)
base = os.path.join(a.outdir, os.path.splitext(os.path.basename(a.file))[0])
cmd = ['/usr/lib/llvm-22/bin/mlir-opt', a.file] + a.pre.split() + [a.pipeline]
r = subprocess.run(cmd, capture_output=True, text=True)
if r.returncode:
    print(r.stderr); sys.exit(1)
if r.stderr.strip(): print('mlir-opt stderr:', r.stderr[:4000])
open(base + '.lowered.mlir', 'w').write(r.stdout)
m = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', r.stdout)
if not m:
    print('no assembly found'); sys.exit(1)
def unesc(s):
    out = bytearray(); i = 0
    while i < len(s):
        if s[i] == '\\':
            out.append(int(s[i+1:i+3], 16)); i += 3
        else:
            out += s[i].encode(); i += 1
    return out.decode()
ptx = unesc(m[0])
open(base + '.ptx', 'w').write(ptx)
r = subprocess.run(['/usr/local/cuda/bin/ptxas', '-arch=sm_90a', '-v', '-O3', base + '.ptx', '-o', base + '.cubin'], capture_output=True, text=True)
print(r.stdout + r.stderr)
if r.returncode: sys.exit(1)
r = subprocess.run(['/usr/lib/llvm-22/bin/llvm-readelf', '-S', '-W', base + '.cubin'], capture_output=True, text=True)
for line in r.stdout.splitlines():
    mm = re.search(r'\] (\.text\.\S+)\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)', line)
    if mm:
        sz = int(mm.group(2), 16)
        print(f'SASS {mm.group(1)}: {sz} bytes = {sz//16} instr (incl. trailing BRA/NOP padding)')
