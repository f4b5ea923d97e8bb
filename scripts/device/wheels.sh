#!/usr/bin/env bash
# Downloads into .device/wheels the Python wheels the GPU machine lacks for
# the model tests and benchmarks (python/tests/test_models.py,
# test/Integration/GPU/models.test, benchmarks/bench_models.py):
# transformers, safetensors, compressed-tensors, accelerate, ModelOpt
# (nvidia-modelopt and the three it needs that the machine lacks: pulp,
# omegaconf, antlr4) and the small packages they need, for the machine's
# Python (3.12, manylinux x86_64). The machine already holds tokenizers,
# huggingface-hub, hf-xet, regex, pyyaml, scipy, ninja and nvidia-ml-py (its
# `pip list` of 2026-11-27), which are left out to keep the carry small:
# about 38 MB, carried with ".device/libnvfp4_runtime.so.xz" (22 MB; the
# runner, 16 MB more, goes in a call of its own: the carry limit is 64 MiB),
# then on the machine (scripts/device/models.sh):
#   python3 -m pip install -q --no-index --find-links .device/wheels \
#       transformers==5.24.0 compressed-tensors==0.20.0 accelerate==1.15.0 \
#       nvidia-modelopt==0.47.0
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$root/.device/wheels"
python3 -m pip download -q --no-deps --only-binary=:all: \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux_2_28_x86_64 --python-version 3.12 --implementation cp \
  -d "$root/.device/wheels" \
  transformers==5.24.0 compressed-tensors==0.20.0 safetensors==0.8.0 accelerate==1.15.0 \
  nvidia-modelopt==0.47.0 pulp==3.3.2 omegaconf==2.4.0 antlr4-python3-runtime==4.13.2 \
  typer click rich shellingham markdown-it-py mdurl pygments httpx httpcore h11 anyio \
  idna certifi tqdm packaging filelock fsspec typing-extensions pydantic pydantic-core \
  annotated-types typing-inspection loguru psutil
du -sh "$root/.device/wheels"
