# Sourced on the GPU machine, from the repository root, with .device carried:
#   .device/nvfp4-runner.xz   the statically linked runner (scripts/device/pack.sh)
#   .device/*.whl             python wheels the GPU machine lacks (lit)
# Unpacks them, records the machine in $OUT/machine.txt and exports
# NVFP4_RUNNER and PYTHONPATH.
OUT=${OUT:-/tmp/nvfp4-out}
mkdir -p "$OUT" /tmp/nvfp4
{
  date -u
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm --format=csv
  command -v ptxas compute-sanitizer cuobjdump || true
  ptxas --version | tail -1
  python3 -c "import sys, numpy; print('python', sys.version.split()[0], 'numpy', numpy.__version__)"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
xz -dc .device/nvfp4-runner.xz > /tmp/nvfp4/nvfp4-runner && chmod +x /tmp/nvfp4/nvfp4-runner
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/nvfp4/site .device/*.whl \
  > /dev/null 2>&1 || true
export PYTHONPATH=/tmp/nvfp4/site:$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export NVFP4_RUNNER=/tmp/nvfp4/nvfp4-runner
