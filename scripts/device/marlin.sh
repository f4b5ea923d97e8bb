#!/usr/bin/env bash
# Builds .device/libmarlin_fp4.so(.xz): vLLM's Marlin FP4 GEMM (W4A16, NVFP4
# weights, bf16 activations and output), sm_90a SASS only, with the plain C
# entry points of scripts/device/marlin/marlin_fp4_capi.cu (ours). The decode
# benchmark's Marlin peer (benchmarks/marlin_peer.py) loads it with ctypes.
#
#   scripts/device/marlin.sh          (on a machine with network and nvcc)
#
# Nothing of vLLM is kept in this repository: the pinned sdist is fetched
# with pip into .whl/ (git-ignored, kept as a cache) and its own files are
# compiled from there:
#   csrc/quantization/marlin/{kernel.h,marlin.cuh,marlin_dtypes.cuh,
#     marlin_template.h,dequant.h,marlin_mma.h}, csrc/core/scalar_type.hpp
#   csrc/quantization/marlin/generate_kernels.py   run for arch 9.0; only the
#     bf16 x FE2M1f (FE4M3fn scales, group_blocks 1) x bf16 instantiations
#     and their kernel_selector.h entries are kept (15 kernels)
#   csrc/quantization/marlin/marlin.cu              only namespace marlin (the
#     launcher marlin_mm and its heuristics), not the torch-op marlin_gemm
#   csrc/quantization/marlin/gptq_marlin_repack.cu  only namespace marlin (the
#     repack kernel), not the torch-op wrapper
# scalar_type.hpp includes torch/headeronly/util/Exception.h for
# STD_TORCH_CHECK; scripts/device/marlin/shim/ has our stand-in, so no torch
# header is used and no torch is linked. cudart is linked statically.
#
# pip download of an sdist prepares its metadata, which runs vLLM's
# setup.py: that needs torch, setuptools-scm and setuptools-rust importable
# here (no build isolation) and nvcc on PATH; only the first run downloads.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
ver=0.33.0
sha=f4c33c2503d52bb411146afa9618a4f48bed68912f617e6803ac8d76e4c74112
cuda="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
jobs="${MARLIN_JOBS:-$(nproc)}"
sdist="$root/.whl/vllm-$ver.tar.gz"
work="$root/.whl/marlin-build-$ver"
src="$work/vllm-$ver/csrc"
gen="$work/gen"
obj="$work/obj"
out="$root/.device/libmarlin_fp4.so"
t0=$(date +%s)

mkdir -p "$root/.whl" "$root/.device"
if [ ! -f "$sdist" ]; then
  python3 -c "import setuptools_scm, setuptools_rust" 2>/dev/null ||
    python3 -m pip install -q setuptools-scm setuptools-rust ||
    python3 -m pip install -q --break-system-packages setuptools-scm setuptools-rust
  python3 -m pip download -q --no-deps --no-binary=:all: --no-build-isolation \
    -d "$root/.whl" "vllm==$ver"
fi
echo "$sha  $sdist" | sha256sum -c --quiet -
python3 -c "import jinja2" 2>/dev/null ||
  python3 -m pip install -q jinja2 || python3 -m pip install -q --break-system-packages jinja2

# The sources it needs, nothing else.
if [ ! -f "$src/quantization/marlin/marlin.cu" ]; then
  mkdir -p "$work"
  m="vllm-$ver/csrc/quantization/marlin"
  tar -xzf "$sdist" -C "$work" "vllm-$ver/csrc/core/scalar_type.hpp" \
    "$m/kernel.h" "$m/marlin.cuh" "$m/marlin_dtypes.cuh" "$m/marlin_template.h" \
    "$m/dequant.h" "$m/marlin_mma.h" "$m/marlin.cu" "$m/gptq_marlin_repack.cu" \
    "$m/generate_kernels.py"
fi

# vLLM's kernel generator for arch 9.0, then only the NVFP4 bf16 kernels.
rm -rf "$gen" && mkdir -p "$gen/all" "$obj"
python3 "$src/quantization/marlin/generate_kernels.py" 9.0 "$gen/all"
python3 - "$gen" "$src/quantization/marlin" "$ver" <<'EOF'
import os, re, sys
gen, msrc, ver = sys.argv[1:]
types = ("vllm::kBFloat16.id(), vllm::kFE2M1f.id(), vllm::kBFloat16.id(), "
         "vllm::kFE4M3fn.id(), ")
cond = ("a_type == vllm::kBFloat16 && b_type == vllm::kFE2M1f && "
        "c_type == vllm::kBFloat16 && s_type == vllm::kFE4M3fn && ")
# Instantiations: one file each, so that they compile in parallel.
text = open(f"{gen}/all/sm80_kernel_bfloat16_fe2m1f_bfloat16.cu").read()
head = text[:text.index("namespace MARLIN_NAMESPACE_NAME {")]
insts = [l for l in text.splitlines()
         if l.startswith("template __global__ void Marlin<" + types)]
assert len(insts) == 15, len(insts)
for i, l in enumerate(insts):
    with open(f"{gen}/nvfp4_kernel_{i:02d}.cu", "w") as f:
        f.write(head + "namespace MARLIN_NAMESPACE_NAME {\n\n" + l + "\n\n}\n")
# The selector, reduced to those (an if / else-if chain of line pairs).
lines = open(f"{gen}/all/kernel_selector.h").read().splitlines()
sel, first = [], True
for i, l in enumerate(lines):
    if re.match(r"(else )?if \(", l) and cond in l:
        sel.append(("if " if first else "else if ") + l[l.index("("):])
        sel.append(lines[i + 1])
        first = False
assert len(sel) == 30, len(sel)
open(f"{gen}/kernel_selector.h", "w").write(
    "// vLLM's kernel_selector.h, NVFP4 bf16 entries only\n" + "\n".join(sel) + "\n")
# The launcher and the repack kernel: namespace marlin of each file, the
# CUDA_ARCH < 750 stub of marlin.cu left out.
def marlin_namespace(path, skip_stub):
    src = open(path).read()
    start = src.index("namespace marlin {")
    body = src[start:]
    if skip_stub:
        a = body.index("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750")
        b = body.index("\n#else\n", a)
        body = body[:a] + body[b + len("\n#else\n"):]
    end = body.index("}  // namespace marlin")
    return body[:end] + "}  // namespace marlin\n"
with open(f"{gen}/marlin_launcher.inc", "w") as f:
    f.write(f'// from vLLM {ver} csrc/quantization/marlin/marlin.cu\n'
            f'#define MARLIN_FP4_VLLM_VERSION "vllm {ver}"\n')
    f.write(marlin_namespace(f"{msrc}/marlin.cu", True))
with open(f"{gen}/marlin_repack.inc", "w") as f:
    f.write(f'// from vLLM {ver} csrc/quantization/marlin/gptq_marlin_repack.cu\n')
    f.write(marlin_namespace(f"{msrc}/gptq_marlin_repack.cu", False))
EOF

# Flags as vLLM's CMakeLists.txt gives the Marlin files (torch's nvcc flags
# without the __CUDA_NO_HALF* defines, -DENABLE_FP8, Release -O3), for
# sm_90a SASS only.
flags=(-std=c++17 -O3 -DNDEBUG -DENABLE_FP8 --expt-relaxed-constexpr
       --expt-extended-lambda -static-global-template-stub=false
       -gencode=arch=compute_90a,code=sm_90a -Xcompiler=-fPIC,-fvisibility=hidden
       -I"$gen" -I"$root/scripts/device/marlin/shim" -I"$src"
       -I"$src/quantization/marlin")
cflags="${flags[*]}"
nvcc "${flags[@]}" -c "$root/scripts/device/marlin/marlin_fp4_capi.cu" \
  -o "$obj/capi.o"
# The kernels depend only on the pinned sources and these flags: kept in
# $obj between runs, keyed by both.
key=$(echo "$cflags" | sha256sum | cut -c1-12)
ls "$gen"/nvfp4_kernel_*.cu | xargs -P "$jobs" -I{} sh -c '
  f={}; o="'"$obj"'/$(basename "$f" .cu)-'"$key"'.o"
  if [ ! -f "$o" ]; then
    nvcc '"$cflags"' -c "$f" -o "$o.tmp" && mv "$o.tmp" "$o"
  fi'
nvcc -shared -gencode=arch=compute_90a,code=sm_90a -cudart=static \
  -o "$out" "$obj/capi.o" "$obj"/nvfp4_kernel_*-"$key".o
strip "$out"
echo "libmarlin_fp4.so stripped: $(stat -c %s "$out") bytes"
# Only the .xz stays in .device (as scripts/device/pack.sh does); env.sh
# unpacks it to /tmp/nvfp4/libmarlin_fp4.so.
xz -T2 -6 -f "$out"
t1=$(date +%s)
ls -la "$out.xz"
echo "built in $((t1 - t0)) s"
