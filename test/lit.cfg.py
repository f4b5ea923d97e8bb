# -*- Python -*-
# lit configuration for the nvfp4 test suite.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "NVFP4"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py", ".test"]
# Integration/GPU is its own suite (check-nvfp4-gpu): it runs where there
# is no LLVM, on the GPU machine.
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "Inputs", "GPU"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nvfp4_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%PYTHON", config.python_executable))
config.substitutions.append(("%nvfp4_src_root", config.nvfp4_src_root))
config.substitutions.append(("%nvfp4_obj_root", config.nvfp4_obj_root))
llvm_config.use_default_substitutions()

# Strict FileCheck everywhere: captured variables do not leak between
# CHECK-LABEL blocks and every --check-prefix must be used.
config.environment["FILECHECK_OPTS"] = (
    "-enable-var-scope --allow-unused-prefixes=false")

# The python reference (python/nvfp4) for integration tests.
config.environment["PYTHONPATH"] = os.pathsep.join(
    [os.path.join(config.nvfp4_src_root, "python"),
     config.environment.get("PYTHONPATH", "")])

# The runner the python API (python/nvfp4/compiler.py) drives.
config.environment["NVFP4_RUNNER"] = os.path.join(config.nvfp4_tools_dir,
                                                  "nvfp4-runner")

# The runtime's kernel cache (Runtime::cacheDirectory) stays in the build
# tree, so tests neither read nor fill the user's.
config.environment["NVFP4_CACHE_DIR"] = os.path.join(config.nvfp4_obj_root,
                                                     "kernel-cache")
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.nvfp4_tools_dir, config.llvm_tools_dir]
tools = ["nvfp4-opt", "FileCheck", "not", "count", "split-file"]
# Executing lowered IR on the CPU (the nvfp4k scheduler tests): upstream
# mlir-opt for the standard lowering to LLVM, mlir-runner with the C runner
# utilities (vector.print), all from Debian's MLIR 22 packages.
runner_utils = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib",
                            "libmlir_c_runner_utils.so")
if (os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-runner")) and
        os.path.exists(runner_utils)):
    tools += ["mlir-opt", "mlir-runner"]
    config.available_features.add("mlir-runner")
    config.substitutions.append(("%mlir_c_runner_utils", runner_utils))
for extra in ["nvfp4-runner"]:
    if os.path.exists(os.path.join(config.nvfp4_tools_dir, extra)):
        tools.append(extra)
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Tier 2: compile-only GPU tests need ptxas (on the CI machine too).
if config.have_cuda and config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
    config.substitutions.append(("%cuda_root", config.cuda_root))

# Tier 2b: SASS inspection of the ptxas-built cubins (sm_100a) needs
# cuobjdump: on PATH, or from the nvidia-cuda-cuobjdump wheel that
# scripts/setup.sh installs (python/nvfp4_testing/sass.py finds it, with the
# python the tests run).
def probe_cuobjdump():
    try:
        out = subprocess.run(
            [config.python_executable, "-m", "nvfp4_testing.sass", "--where"],
            capture_output=True, text=True, timeout=60,
            env=dict(os.environ, PYTHONPATH=config.environment["PYTHONPATH"]))
    except (OSError, subprocess.SubprocessError):
        return None
    path = out.stdout.strip()
    return path if out.returncode == 0 and path and os.path.exists(path) else None

cuobjdump = probe_cuobjdump()
if cuobjdump:
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%cuobjdump", cuobjdump))

# NVIDIA's CuTe DSL kernels, compiled and imported by scripts/cutedsl.sh
# (scripts/test.sh exports the directory): test/CuTeDSL.
cutedsl_kernels = os.environ.get("NVFP4_CUTEDSL_KERNELS", "")
if cutedsl_kernels and os.path.exists(os.path.join(cutedsl_kernels, "manifest.json")):
    config.available_features.add("cutedsl-kernels")
    config.substitutions.append(("%cutedsl_kernels", cutedsl_kernels))

# Tier 3: tests that run on a GPU, gated by what the machine has.
def probe_compute_capabilities():
    smi = shutil.which("nvidia-smi")
    if not smi or os.environ.get("NVFP4_NO_GPU"):
        return []
    try:
        out = subprocess.run(
            [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]

for cap in probe_compute_capabilities():
    major, _, minor = cap.partition(".")
    config.available_features.add("cuda")
    config.available_features.add("cuda-sm%s%s" % (major, minor))
