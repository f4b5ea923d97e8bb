#!/usr/bin/env python3
"""Loads a quantized checkpoint directory (compressed-tensors NVFP4 /
NVFP4A16, ModelOpt NVFP4 / W4A16_NVFP4, gpt-oss MXFP4) with
nvfp4.models.from_pretrained and generates greedily with a static KV cache.

    python3 scripts/generate.py /path/to/Llama-3.1-8B-Instruct-NVFP4 \\
        --prompt "The capital of France is" --device cuda --cuda-graph

Without --cuda-graph: model.generate(..., cache_implementation="static").
--cuda-graph: nvfp4.models.GraphDecoder, each decode step one CUDA graph
replay (the same greedy tokens as its eager steps). A directory without a
tokenizer takes --ids (comma-separated token ids) instead.
"""

import argparse
import sys
import time


import torch  # noqa: E402

from nvfp4 import models  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--prompt", default="The capital of France is")
    parser.add_argument("--ids", help="comma-separated prompt token ids (no tokenizer)")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--cuda-graph", action="store_true",
                        help="each decode step a CUDA graph replay (GraphDecoder)")
    args = parser.parse_args(argv)

    start = time.time()
    model = models.from_pretrained(args.checkpoint, device=args.device)
    print(f"loaded {args.checkpoint}: {model.nvfp4_quantized_modules} quantized modules on "
          f"{args.device} in {time.time() - start:.1f} s", flush=True)
    tokenizer = None
    if args.ids:
        ids = torch.tensor([[int(t) for t in args.ids.split(",")]])
    else:
        from transformers import AutoTokenizer
        tokenizer = AutoTokenizer.from_pretrained(args.checkpoint)
        ids = tokenizer(args.prompt, return_tensors="pt").input_ids
    ids = ids.to(args.device)
    kwargs = dict(max_new_tokens=args.max_new_tokens, do_sample=False,
                  cache_implementation="static",
                  pad_token_id=getattr(model.generation_config, "pad_token_id", None) or 0)
    sync = torch.cuda.synchronize if args.device != "cpu" else (lambda: None)
    with torch.no_grad():
        if args.cuda_graph:
            try:
                decoder = models.GraphDecoder(model, ids.shape[0],
                                              ids.shape[1] + args.max_new_tokens)
            except ValueError as e:  # e.g. sliding layers under flash attention
                sys.exit(f"--cuda-graph: {e}")
            decoder.generate(ids, 2)  # warm up: compiles, records the step
            sync()
            start = time.time()
            new = decoder.generate(ids, args.max_new_tokens)[0]
        else:
            model.generate(ids, **dict(kwargs, max_new_tokens=2))  # warm up
            sync()
            start = time.time()
            new = model.generate(ids, **kwargs)[0, ids.shape[1]:]
        sync()
    seconds = time.time() - start
    text = tokenizer.decode(new) if tokenizer else ",".join(str(int(t)) for t in new)
    print(f"generated {new.numel()} tokens in {seconds:.2f} s "
          f"({new.numel() / seconds:.1f} tokens/s, batch 1)")
    print(text)


if __name__ == "__main__":
    main()
