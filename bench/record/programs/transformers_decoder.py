"""A decoder as users train one: a transformers Llama-style model built from its configuration (no weights
downloaded), grouped-query SDPA attention, trained a few eager steps in bf16 autocast, then its forward compiled
with torch.compile (Inductor's Triton kernels beside cuBLAS) and run a few times.

    python3 transformers_decoder.py [--layers 4] [--steps 4] [--compiled-steps 4] [--count]

Steps run in the NVTX ranges `train_step` and `compiled_forward` (a window for `record --nvtx-include`).
Prints `launches N` last: with --count, the kernel executions torch.profiler saw from the model's
construction on (the count `gpuperf record` must match); without it, -1.
"""
import argparse

import torch
from transformers import LlamaConfig, LlamaForCausalLM

parser = argparse.ArgumentParser()
parser.add_argument("--layers", type=int, default=4)
parser.add_argument("--steps", type=int, default=4)
parser.add_argument("--compiled-steps", type=int, default=4)
parser.add_argument("--count", action="store_true")
args = parser.parse_args()


def work():
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=512, intermediate_size=1376, num_hidden_layers=args.layers,
                         num_attention_heads=8, num_key_value_heads=4, vocab_size=8192,
                         max_position_embeddings=256)
    model = LlamaForCausalLM._from_config(config, attn_implementation="sdpa").cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, config.vocab_size, (8, 128), device="cuda")
    model.train()
    for _ in range(args.steps):
        with torch.cuda.nvtx.range("train_step"):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    model.eval()
    compiled = torch.compile(model)
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        for _ in range(args.compiled_steps):
            with torch.cuda.nvtx.range("compiled_forward"):
                logits = compiled(input_ids=ids).logits
    torch.cuda.synchronize()
    return loss, logits


if args.count:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        loss, logits = work()
    kernels = [e for e in prof.events()
               if e.device_type == torch.autograd.DeviceType.CUDA and not e.name.startswith(("Memcpy", "Memset"))]
    print(f"loss {loss.item():.4f} logits {tuple(logits.shape)}")
    print(f"launches {len(kernels)}")
else:
    loss, logits = work()
    print(f"loss {loss.item():.4f} logits {tuple(logits.shape)}")
    print("launches -1")
