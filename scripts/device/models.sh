#!/usr/bin/env bash
# Runs on the GPU machine (see env.sh), with ".device/libnvfp4_runtime.so.xz"
# and ".device/wheels" carried (scripts/device/pack.sh, wheels.sh; the
# runner need not come): the checkpoint and W4A16 work on the GPU.
#   1. installs transformers, safetensors, compressed-tensors, accelerate,
#      nvidia-modelopt from the carried wheels;
#   2. the selfcheck family weight_only, as compiled by default (bf16-mma)
#      and with bf16-mma=false, unless SELFCHECK=0;
#   3. python/tests/test_models.py on CUDA tensors;
#   4. scripts/generate.py --cuda-graph (CUDA graphs) on a tiny checkpoint of
#      each producer: compressed-tensors Qwen3-MoE NVFP4, ModelOpt Qwen3
#      NVFP4, gpt-oss MXFP4 (32 new tokens: past its 16-token window);
#   5. benchmarks/bench_models.py with the arguments given (default: both
#      models, all forms) unless BENCH=0.
# Logs and results in $OUT.
set -u
source "$(dirname "$0")/env.sh"
status=0
python3 -m pip install -q --no-index --find-links .device/wheels \
  transformers==5.24.0 compressed-tensors==0.20.0 accelerate==1.15.0 safetensors==0.8.0 \
  nvidia-modelopt==0.47.0 > "$OUT/pip.log" 2>&1 || { echo "pip install failed:"; tail -5 "$OUT/pip.log"; }
for options in $([ "${SELFCHECK:-1}" = 1 ] && echo default bf16-mma=false); do
  [ "$options" = default ] && options=""
  log="$OUT/selfcheck_weight_only${options:+_nobf16mma}.log"
  NVFP4_PIPELINE_OPTIONS="$options" timeout 300 python3 -m nvfp4_testing.selfcheck \
    weight_only --target=gpu --size=full > "$log" 2>&1 || status=1
  echo "== weight_only ${options:-default}"; grep -E "^FAIL|SUMMARY|TOTAL" "$log" | head -20
done
timeout 400 python3 -m pytest -q -p no:cacheprovider -rs python/tests/test_models.py \
  > "$OUT/test_models.log" 2>&1 || status=1
echo "== test_models"; tail -3 "$OUT/test_models.log"
python3 - > "$OUT/generate.log" 2>&1 <<'PY' || status=1
import warnings
warnings.simplefilter("ignore")
from nvfp4_testing import producers as P
P.compressed_tensors_checkpoint(P.tiny_model("qwen3_moe"), "NVFP4", "/tmp/nvfp4/ck-ct",
                                shared_expert_input_scale=True, references=False)
P.modelopt_checkpoint(P.tiny_model("qwen3"), "NVFP4_DEFAULT_CFG", "/tmp/nvfp4/ck-modelopt")
P.gpt_oss_checkpoint(P.tiny_model("gpt_oss"), "/tmp/nvfp4/ck-gptoss")
PY
for ck in ct modelopt gptoss; do
  echo "-- $ck" >> "$OUT/generate.log"
  timeout 300 python3 scripts/generate.py /tmp/nvfp4/ck-$ck --ids 1,2,3,4,5 \
    --max-new-tokens 32 --device cuda --cuda-graph >> "$OUT/generate.log" 2>&1 || status=1
done
echo "== generate"; grep -E "^--|tokens/s|Error|error" "$OUT/generate.log" | tail -12
if [ "${BENCH:-1}" = 1 ]; then
  timeout ${BENCH_TIMEOUT:-420} python3 benchmarks/bench_models.py --out "$OUT" "$@" \
    > "$OUT/bench_models.log" 2>&1 || status=1
  tail -15 "$OUT/bench_models.log"
fi
exit $status
