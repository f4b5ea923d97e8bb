# -*- Python -*-
# The GPU integration suite: the same cases as test/Integration/CPU, run on
# the GPU. A standalone lit suite (it needs only python, lit, grep and the
# runner, no LLVM tools: the GPU machine has none):
#
#   NVFP4_RUNNER=build/bin/nvfp4-runner lit -v test/Integration/GPU
#
# Tests require the lit feature cuda-sm90 (or cuda), probed with nvidia-smi;
# elsewhere they are reported UNSUPPORTED.

import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "NVFP4-GPU"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.environ.get("NVFP4_GPU_TEST_EXEC_ROOT",
                                       config.test_source_root)

src_root = os.path.abspath(os.path.join(config.test_source_root, "..", "..", ".."))
runner = os.environ.get("NVFP4_RUNNER",
                        os.path.join(src_root, "build", "bin", "nvfp4-runner"))
config.environment["NVFP4_RUNNER"] = runner
config.environment["PYTHONPATH"] = os.path.join(src_root, "python")
for var in ["PATH", "HOME", "CUDA_ROOT", "CUDA_HOME", "CUDA_PATH",
            "NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "TMPDIR",
            "NVFP4_BUILD_DIR", "NVFP4_CACHE_DIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("%PYTHON", sys.executable))
config.substitutions.append(("%runner", runner))
config.substitutions.append(("%nvfp4_src_root", src_root))

smi = shutil.which("nvidia-smi")
if smi:
    try:
        caps = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.split()
    except (OSError, subprocess.SubprocessError):
        caps = []
    for cap in caps:
        major, _, minor = cap.partition(".")
        config.available_features.add("cuda")
        config.available_features.add("cuda-sm%s%s" % (major, minor))
# NVIDIA's CuTe DSL kernels, imported on the CPU machine (scripts/cutedsl.sh)
# and carried here (scripts/device/pack.sh): test/Integration/GPU/cutedsl.test.
cutedsl_kernels = os.environ.get("NVFP4_CUTEDSL_KERNELS", "")
if cutedsl_kernels and os.path.exists(os.path.join(cutedsl_kernels, "manifest.json")):
    config.available_features.add("cutedsl-kernels")
    config.substitutions.append(("%cutedsl_kernels", os.path.abspath(cutedsl_kernels)))
if shutil.which("compute-sanitizer"):
    config.available_features.add("compute-sanitizer")
# SASS inspection of cubins compiled for other chips (sm_100a): the runner
# compiles without a GPU of that kind; cuobjdump disassembles.
# cuobjdump: on PATH or from the nvidia-cuda-cuobjdump wheel
# (nvfp4_testing.sass.find_cuobjdump, asked with the python the tests run).
def have_cuobjdump():
    if shutil.which("cuobjdump"):
        return True
    try:
        return subprocess.run([sys.executable, "-m", "nvfp4_testing.sass", "--where"],
                              capture_output=True, timeout=60,
                              env=dict(os.environ, PYTHONPATH=config.environment["PYTHONPATH"])
                              ).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
if shutil.which("ptxas") and have_cuobjdump():
    config.available_features.add("cuobjdump")
