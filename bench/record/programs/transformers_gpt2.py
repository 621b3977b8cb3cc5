"""A whole model: a transformers GPT-2 built from its configuration (no weights downloaded), trained a few
steps in bf16 autocast, then generating tokens.

    python3 transformers_gpt2.py [--layers 4] [--steps 6] [--tokens 24] [--count] [--window FIRST:COUNT]

Prints `launches N` last: with --count, the kernel executions torch.profiler saw (every kernel of the
process from the model's construction on), the count `gpuperf record` must match; without it, -1.
bench/record/record_matrix.py runs it. --window 2:3 puts training steps 2, 3 and 4 (0-based) inside one more NVTX
range, "pm_window", the window bench/record/pm_sampling_gpu.sh samples (`record --pm-sampling-nvtx pm_window`).
"""
import argparse

import torch
from transformers import GPT2Config, GPT2LMHeadModel

parser = argparse.ArgumentParser()
parser.add_argument("--layers", type=int, default=4)
parser.add_argument("--steps", type=int, default=6)
parser.add_argument("--tokens", type=int, default=24)
parser.add_argument("--count", action="store_true")
parser.add_argument("--window", default="", help="FIRST:COUNT training steps inside the NVTX range pm_window")
args = parser.parse_args()
window = [int(x) for x in args.window.split(":")] if args.window else [-1, 0]


def work():
    torch.manual_seed(0)
    config = GPT2Config(n_layer=args.layers, n_embd=512, n_head=8, n_positions=256, vocab_size=8192)
    model = GPT2LMHeadModel(config).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, config.vocab_size, (8, 128), device="cuda")
    model.train()
    for step in range(args.steps):
        if step == window[0]:
            torch.cuda.nvtx.range_push("pm_window")
        with torch.cuda.nvtx.range("train_step"):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(ids, labels=ids).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        if step == window[0] + window[1] - 1:
            torch.cuda.synchronize()  # the window's kernels end inside it
            torch.cuda.nvtx.range_pop()
    model.eval()
    with torch.no_grad(), torch.cuda.nvtx.range("generate"):
        out = model.generate(ids[:2, :16], max_new_tokens=args.tokens, do_sample=False, pad_token_id=0)
    torch.cuda.synchronize()
    return loss, out


if args.count:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        loss, out = work()
    kernels = [e for e in prof.events()
               if e.device_type == torch.autograd.DeviceType.CUDA and not e.name.startswith(("Memcpy", "Memset"))]
    print(f"loss {loss.item():.4f} generated {out.shape[1]}")
    print(f"launches {len(kernels)}")
else:
    loss, out = work()
    print(f"loss {loss.item():.4f} generated {out.shape[1]}")
    print("launches -1")
