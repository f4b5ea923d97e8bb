# Sourced on the GPU machine, from the repository root, with .device carried:
#   .device/nvfp4-runner.xz          the statically linked runner
#   .device/libnvfp4_runtime.so.xz   the runtime library (scripts/device/pack.sh)
#   .device/*.whl                    python wheels the GPU machine lacks (lit)
# Unpacks them, builds the Python bindings (nvfp4._runtime) against the
# library with the machine's nanobind, records the machine in
# $OUT/machine.txt and exports NVFP4_RUNNER, NVFP4_BUILD_DIR and PYTHONPATH.
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
if [ -f .device/libmarlin_fp4.so.xz ]; then xz -dc .device/libmarlin_fp4.so.xz > /tmp/nvfp4/libmarlin_fp4.so; fi  # scripts/device/marlin.sh
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/nvfp4/site .device/*.whl \
  > /dev/null 2>&1 || true
export PYTHONPATH=/tmp/nvfp4/site:$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export NVFP4_RUNNER=/tmp/nvfp4/nvfp4-runner
# The CuTe DSL kernels scripts/device/pack.sh carried, if it did.
if [ -f .device/cutedsl/manifest.json ]; then export NVFP4_CUTEDSL_KERNELS=$PWD/.device/cutedsl; fi
# The bindings: <NVFP4_BUILD_DIR>/python/nvfp4/{_runtime*.so,libnvfp4_runtime.so}
export NVFP4_BUILD_DIR=/tmp/nvfp4/build
mkdir -p $NVFP4_BUILD_DIR/python/nvfp4
if [ ! -f $NVFP4_BUILD_DIR/python/nvfp4/libnvfp4_runtime.so ]; then
  xz -dc .device/libnvfp4_runtime.so.xz > $NVFP4_BUILD_DIR/python/nvfp4/libnvfp4_runtime.so
  cmake -S python/nvfp4/_runtime_src -B /tmp/nvfp4/pybuild -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v python3)" \
    -DNVFP4_RUNTIME_LIBRARY=$NVFP4_BUILD_DIR/python/nvfp4/libnvfp4_runtime.so \
    -DNVFP4_C_INCLUDE_DIR=$PWD/include \
    -DNVFP4_PYTHON_OUTPUT_DIR=$NVFP4_BUILD_DIR/python/nvfp4 > /tmp/nvfp4/pybuild.log 2>&1 &&
  ninja -C /tmp/nvfp4/pybuild >> /tmp/nvfp4/pybuild.log 2>&1 ||
    { echo "building the Python bindings failed:"; tail -20 /tmp/nvfp4/pybuild.log; }
fi
