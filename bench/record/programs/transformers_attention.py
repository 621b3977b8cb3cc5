"""A decoder's inference as a model author changes it: a transformers Llama-style model built from its
configuration (no weights downloaded) in bf16 on the GPU, a few forward passes over a batch of prompts, each in
the NVTX range `forward`. The attention implementation comes from the environment, so that the command line
stays the same between a base and a candidate, as it does for a change in the code:

    GPUPERF_BENCH_ATTN=sdpa|eager python3 transformers_attention.py [--layers 8] [--steps 6]

SDPA runs a fused attention kernel (flash or memory-efficient); eager runs batched GEMMs, a softmax and the
elementwise masking in its place. Prints `attention NAME` and the logits' shape last.
"""
import argparse
import os

import torch
from transformers import LlamaConfig, LlamaForCausalLM

parser = argparse.ArgumentParser()
parser.add_argument("--layers", type=int, default=8)
parser.add_argument("--steps", type=int, default=6)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--seq", type=int, default=1024)
args = parser.parse_args()

attn = os.environ.get("GPUPERF_BENCH_ATTN", "sdpa")
torch.manual_seed(0)
config = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=args.layers,
                     num_attention_heads=16, num_key_value_heads=8, vocab_size=16384,
                     max_position_embeddings=args.seq)
model = LlamaForCausalLM._from_config(config, attn_implementation=attn, torch_dtype=torch.bfloat16).cuda().eval()
ids = torch.randint(0, config.vocab_size, (args.batch, args.seq), device="cuda")
with torch.no_grad():
    for _ in range(args.steps):
        with torch.cuda.nvtx.range("forward"):
            logits = model(input_ids=ids).logits
torch.cuda.synchronize()
print(f"attention {attn}")
print(f"logits {tuple(logits.shape)}")
