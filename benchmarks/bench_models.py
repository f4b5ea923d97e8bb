"""Whole models on one GPU: random-weight transformers models at real layer
shapes, in bf16 (transformers on cuBLAS) and loaded by
nvfp4.models.from_pretrained from checkpoints that compressed-tensors made
of the same weights, in one process.

    python3 benchmarks/bench_models.py --out DIR [--models llama8b,qwen3moe,gptoss20b]
        [--layers 4] [--batches 1,8,64] [--context 512] [--prefill 2048]
        [--forms bf16,nvfp4,nvfp4a16_f16,nvfp4a16_mma,nvfp4a16,mxfp4,mxfp4_mma]
        [--checkpoints DIR]

Models (MODELS): Llama-3-8B's decoder layers (hidden 4096, 32 heads, 8 KV
heads, MLP 14336, vocab 128256) and Qwen3-30B-A3B's (hidden 2048, 32
heads, 4 KV heads, 128 experts of 768, top 8, vocab 151936), and on request
gpt-oss-20b's (hidden 2880, 64 heads of 64, 8 KV heads, 32 experts of
2880, top 4, sliding and full attention in turn, vocab 201088), `--layers`
of them (matrices N(0, 0.02)).

Forms:
  bf16          the transformers model itself (torch.nn.functional.linear:
                cuBLAS; Qwen3-MoE's experts: its grouped_mm experts path)
  nvfp4         compressed-tensors NVFP4 (W4A4; activations quantized with
                the static input_global_scale; MoE: one scale per layer and
                projection, shared_expert_input_scale)
  nvfp4a16_f16  compressed-tensors NVFP4A16 loaded in float16 (W4A16 on the
                sm_90a kernel)
  nvfp4a16      compressed-tensors NVFP4A16 in bf16 with bf16-mma=false
                (NVFP4_PIPELINE_OPTIONS: W4A16 on the portable kernel; decode
                only)
  nvfp4a16_mma  the same in bf16 as compiled by default (bf16-mma: the sm_90a
                kernel's bf16 MMA)
  mxfp4         gpt-oss only: its MXFP4 experts as OpenAI's checkpoints store
                them, with bf16-mma=false (W4A16 on bf16 activations: the
                portable kernel; decode only)
  mxfp4_mma     the same as compiled by default (the sm_90a kernel's bf16
                MMA)

Measured: prefill (batch 1, --prefill tokens, logits of the last position
only, eager: one forward per rep) tokens/s; decode tokens/s at each batch:
one step of nvfp4.models.GraphDecoder (a static KV cache holding --context
tokens, a few more as the timed steps append theirs; the step recorded as
a CUDA graph and replayed: the median of the steps), tokens/s = batch /
step time; where recording fails the step runs eagerly (the `decode_mode`
column says which; --also-eager times the eager steps too, in the same
process, as the `decode_b*_eager` columns; --interleave keeps the bf16
model and times its steps in rounds alternating with each quantized form's,
as the `decode_b*_bf16_interleaved` columns: a step's time drifts over a
process by more than the forms differ). Weight memory: the bytes of every
parameter and buffer. Consecutive layers have distinct weights (cold in L2
as in a model).

Writes DIR/models.json and DIR/models.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import tempfile
import time
from pathlib import Path


import torch  # noqa: E402

MODELS = {
    "llama8b": ("llama", dict(vocab_size=128256, hidden_size=4096, intermediate_size=14336,
                              num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                              max_position_embeddings=8192, rope_theta=500000.0)),
    "qwen3moe": ("qwen3_moe", dict(vocab_size=151936, hidden_size=2048, intermediate_size=6144,
                                   moe_intermediate_size=768, num_experts=128,
                                   num_experts_per_tok=8, num_attention_heads=32,
                                   num_key_value_heads=4, head_dim=128,
                                   max_position_embeddings=8192, decoder_sparse_step=1,
                                   mlp_only_layers=[], norm_topk_prob=True)),
    "gptoss20b": ("gpt_oss", dict(vocab_size=201088, hidden_size=2880, intermediate_size=2880,
                                  num_local_experts=32, num_experts_per_tok=4,
                                  num_attention_heads=64, num_key_value_heads=8, head_dim=64,
                                  sliding_window=128, max_position_embeddings=8192)),
}


def build(name, layers, device):
    import transformers as tf
    kind, dims = MODELS[name]
    cls = {"llama": tf.LlamaConfig, "qwen3_moe": tf.Qwen3MoeConfig,
           "gpt_oss": tf.GptOssConfig}[kind]
    config = cls(num_hidden_layers=layers, tie_word_embeddings=False, **dims)
    torch.manual_seed(0)
    with torch.device(device):
        model = tf.AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.config.architectures = [type(model).__name__]
    from nvfp4_testing.producers import random_weights
    return random_weights(model, 0.02).eval()


def weight_bytes(model):
    seen, total = set(), 0
    for t in list(model.parameters()) + list(model.buffers()):
        if t.data_ptr() in seen:
            continue
        seen.add(t.data_ptr())
        total += t.numel() * t.element_size()
    return total


def timed(fn, reps, cuda):
    times = []
    for _ in range(reps):
        if cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        else:
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def prefill_tokens_per_s(model, tokens, device, reps):
    ids = torch.randint(0, model.config.vocab_size, (1, tokens), device=device)
    with torch.no_grad():
        model(ids, logits_to_keep=1)  # warm up (compiles our programs)
        seconds = timed(lambda: model(ids, logits_to_keep=1), reps, device.type == "cuda")
    return tokens / seconds


def _decoder(model, batch, context, device, reps, graphs=True):
    """A GraphDecoder past a --context prompt with its step recorded, the
    token it steps on, and the mode it runs in."""
    from nvfp4.models import GraphDecoder
    g = torch.Generator(device="cpu").manual_seed(batch)
    prompt = torch.randint(0, model.config.vocab_size, (batch, context), generator=g).to(device)
    token = torch.randint(0, model.config.vocab_size, (batch,), generator=g).to(device)
    mode = "cuda_graph" if device.type == "cuda" and graphs else "eager"
    try:
        decoder = GraphDecoder(model, batch, context + reps + 4, graphs=graphs)
        decoder.prefill(prompt)
        decoder.step_logits(token)  # records the step (CUDA)
    except Exception as e:  # report it, time eagerly
        print(f"  graph capture failed ({type(e).__name__}: {str(e)[:200]}); eager",
              flush=True)
        mode = "eager"
        decoder = GraphDecoder(model, batch, context + reps + 4, graphs=False)
        decoder.prefill(prompt)
        decoder.step_logits(token)
    return decoder, token, mode


def decode_tokens_per_s(model, batch, context, device, reps, graphs=True):
    decoder, token, mode = _decoder(model, batch, context, device, reps, graphs)
    seconds = timed(lambda: decoder.step_logits(token), reps, device.type == "cuda")
    return batch / seconds, mode


def decode_interleaved(model, peer, batch, context, device, reps, rounds=4):
    """Tokens/s of `model` and of `peer` (the bf16 model), their steps timed
    in alternating rounds of reps / rounds each (a step's time drifts over a
    process by more than the forms differ); medians over all rounds."""
    per = max(reps // rounds, 1)
    (ours, tok_ours, mode), (base, tok_base, _) = (
        _decoder(model, batch, context, device, reps + per),
        _decoder(peer, batch, context, device, reps + per))
    cuda = device.type == "cuda"
    mine, theirs = [], []
    for _ in range(rounds):
        mine.append(timed(lambda: ours.step_logits(tok_ours), per, cuda))
        theirs.append(timed(lambda: base.step_logits(tok_base), per, cuda))
    return batch / statistics.median(mine), batch / statistics.median(theirs), mode


def measure(model, form, args, device, rows, name, peer=None):
    row = dict(model=name, form=form, layers=args.layers,
               weight_bytes=weight_bytes(model), device=str(device))
    if device.type == "cuda":
        row["gpu"] = torch.cuda.get_device_name()
    if form not in ("nvfp4a16", "mxfp4") or device.type != "cuda":
        row["prefill_tokens_per_s"] = prefill_tokens_per_s(model, args.prefill, device,
                                                           args.reps)
    for batch in args.batches:
        if peer is not None:
            tps, bf16, mode = decode_interleaved(model, peer, batch, args.context, device,
                                                 args.reps * 5)
            row[f"decode_b{batch}_bf16_interleaved_tokens_per_s"] = bf16
        else:
            tps, mode = decode_tokens_per_s(model, batch, args.context, device,
                                            args.reps * 5)
        row[f"decode_b{batch}_tokens_per_s"] = tps
        row[f"decode_b{batch}_mode"] = mode
        if args.also_eager and mode != "eager":
            tps, _ = decode_tokens_per_s(model, batch, args.context, device, args.reps * 5,
                                         graphs=False)
            row[f"decode_b{batch}_eager_tokens_per_s"] = tps
    print(json.dumps(row), flush=True)
    rows.append(row)
    write(args.out, rows, args.batches)


def write(out, rows, batches):
    """DIR/models.json and models.md of the rows so far (rewritten after
    each row: a run cut short keeps what it measured); returns the table."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "models.json").write_text(json.dumps(rows, indent=1))
    cols = ["prefill_tokens_per_s"] + [f"decode_b{b}_tokens_per_s" for b in batches]
    for extra in ("eager", "bf16_interleaved"):
        cols += [f"decode_b{b}_{extra}_tokens_per_s" for b in batches
                 if any(f"decode_b{b}_{extra}_tokens_per_s" in r for r in rows)]
    lines = ["| model | form | weights GiB | " + " | ".join(cols) + " |",
             "|---" * (3 + len(cols)) + "|"]
    for r in rows:
        vals = [f"{r[c]:.1f}" if c in r else "-" for c in cols]
        lines.append(f"| {r['model']} x{r['layers']} | {r['form']} | "
                     f"{r['weight_bytes'] / 2**30:.2f} | " + " | ".join(vals) + " |")
    (out / "models.md").write_text("\n".join(lines) + "\n")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=".")
    parser.add_argument("--models", default="llama8b,qwen3moe")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--batches", default="1,8,64")
    parser.add_argument("--context", type=int, default=512)
    parser.add_argument("--prefill", type=int, default=2048)
    parser.add_argument("--forms",
                        default="bf16,nvfp4,nvfp4a16_f16,nvfp4a16_mma,nvfp4a16,mxfp4,mxfp4_mma")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--checkpoints", default=None,
                        help="where the quantized checkpoints are written (and reused "
                             "by a later run: <model>-<scheme>); default: a fresh "
                             "temporary directory")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--interleave", action="store_true",
                        help="keep the bf16 model and time its decode steps in rounds "
                             "alternating with each quantized form's (the "
                             "`decode_b*_bf16_interleaved` columns)")
    parser.add_argument("--also-eager", action="store_true",
                        help="also time each decode step eagerly (graphs=False: the "
                             "host's cost per step), in the same process")
    args = parser.parse_args(argv)
    args.batches = [int(b) for b in args.batches.split(",")]
    forms = args.forms.split(",")
    device = torch.device(args.device)
    from nvfp4 import models
    from nvfp4_testing import producers
    rows = []
    tmp = args.checkpoints or tempfile.mkdtemp(prefix="nvfp4-models-")
    os.makedirs(tmp, exist_ok=True)
    for name in args.models.split(","):
        peer = None
        if "bf16" in forms:
            model = build(name, args.layers, device)
            measure(model, "bf16", args, device, rows, name)
            if args.interleave:
                peer = model
            del model
        # gpt-oss: its own MXFP4 format (experts only, bf16 activations);
        # the others: compressed-tensors.
        quantized = ((("mxfp4", "MXFP4", "bf16-mma=false"), ("mxfp4_mma", "MXFP4", ""))
                     if MODELS[name][0] == "gpt_oss" else
                     (("nvfp4", "NVFP4", ""), ("nvfp4a16_f16", "NVFP4A16", ""),
                      ("nvfp4a16_mma", "NVFP4A16", ""),
                      ("nvfp4a16", "NVFP4A16", "bf16-mma=false")))
        for form, scheme, options in quantized:
            if form not in forms:
                continue
            path = os.path.join(tmp, f"{name}-{scheme}")
            if not os.path.exists(path):
                model = build(name, args.layers, device)
                t = time.time()
                if scheme == "MXFP4":
                    producers.gpt_oss_checkpoint(model, path)
                else:
                    producers.compressed_tensors_checkpoint(
                        model, scheme, path, shared_expert_input_scale=True, references=False)
                print(f"  {name} {scheme}: checkpoint in {time.time() - t:.1f} s", flush=True)
                del model
                gc.collect()
            dtype = torch.float16 if form == "nvfp4a16_f16" else torch.bfloat16
            t = time.time()
            model = models.from_pretrained(path, device=device, dtype=dtype)
            print(f"  loaded in {time.time() - t:.1f} s", flush=True)
            saved = os.environ.get("NVFP4_PIPELINE_OPTIONS")
            # Read when a program compiles; the CPU pipeline takes none.
            os.environ["NVFP4_PIPELINE_OPTIONS"] = options if device.type == "cuda" else ""
            try:
                measure(model, form, args, device, rows, name, peer)
            finally:
                if saved is None:
                    del os.environ["NVFP4_PIPELINE_OPTIONS"]
                else:
                    os.environ["NVFP4_PIPELINE_OPTIONS"] = saved
            del model
            gc.collect()
            if device.type == "cuda":
                torch.cuda.empty_cache()
    print(write(args.out, rows, args.batches))


if __name__ == "__main__":
    main()
