"""A PyTorch training loop that times itself: what recording costs a real program, free of start-up.

    python3 torch_loop.py [--steps 300] [--warmup 20] [--repeat 1] [--ab] [--layer-ranges] [--emit-nvtx]

An MLP's forward, backward and SGD step, each step in an NVTX range; `--warmup` steps first (not timed:
allocator, cuBLAS handles, lazy modules), then `--steps` timed with torch.cuda.synchronize() on both ends.
Prints `loop_s S` (the timed loop's wall seconds), once per `--repeat` (the loop timed again in the same
process: a caller can take the median within a process, whose loop times vary less than between processes). bench/record/record_overhead.py runs it plain, under a bare
CUPTI tracer, and under `gpuperf record` with and without NVTX paths.

--ab (under `gpuperf record` with GPUPERF_RECORD_OVERHEAD_AB=all, or the parts to pause): the repeats
alternate gpuperf's own work on and off in the process (on, off, off, on, ...), through the injection
library's gpuperf_record_overhead_ours, and each line ends `ours on` or `ours off` (bench/record/record_overhead_ab.py).

Each loop also prints `step_us_median U`: the median host time of one step (time.perf_counter around the call,
no synchronisation; the loop is bound by the host's launching, so a step's host time is its cost). A loop's
time moves 10-13% from loop to loop in one process; where that comes in a few slow steps (a garbage
collection, a thread preempted), the median step leaves them out and resolves what every step pays (NVTX
callbacks, each launch's API and external-correlation records) more finely than the loop time can. What falls
on a few steps only (a periodic flush holding CUPTI, a buffer's writing taking the CPU) shows in `loop_s` alone.

More NVTX, to magnify what each range costs a tool (bench/record/record_overhead_ab.py --torch-args): --layer-ranges
puts each layer's forward in its own range inside the step's (7 more ranges a step, the same names every
step); --emit-nvtx runs the loops under torch.autograd.profiler.emit_nvtx(), a range for every operator,
forward and backward, named with its sequence number (new names every step, as a program profiled with
Nsight Systems that way has).
"""
import argparse
import contextlib
import statistics
import time

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=300)
parser.add_argument("--warmup", type=int, default=20)
parser.add_argument("--repeat", type=int, default=1)
parser.add_argument("--ab", action="store_true")
parser.add_argument("--layer-ranges", action="store_true")
parser.add_argument("--emit-nvtx", action="store_true")
args = parser.parse_args()
if args.steps < 1:
    parser.error("--steps must be at least 1")

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                      nn.ReLU(), nn.Linear(1024, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
if args.layer_ranges:
    for i, layer in enumerate(model):
        name = f"{type(layer).__name__}{i}"
        layer.register_forward_pre_hook(lambda module, inputs, name=name: torch.cuda.nvtx.range_push(name))
        layer.register_forward_hook(lambda module, inputs, output: torch.cuda.nvtx.range_pop())
x = torch.randn(256, 512, device="cuda")
y = torch.randint(0, 10, (256,), device="cuda")


def step():
    with torch.cuda.nvtx.range("step"):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return loss


for _ in range(args.warmup):
    step()
torch.cuda.synchronize()
ours = None
if args.ab:  # CUDA has loaded the injection library by now
    import ctypes
    import os
    path = os.environ.get("CUDA_INJECTION64_PATH", "")
    try:
        ours = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_NOLOAD).gpuperf_record_overhead_ours
    except (OSError, AttributeError):
        ours = None
    if ours is None or ours(1) != 0:
        raise SystemExit(f"torch_loop.py --ab: no gpuperf_record_overhead_ours in CUDA_INJECTION64_PATH ({path!r}), "
                         "or GPUPERF_RECORD_OVERHEAD_AB is unset or invalid")
for r in range(max(1, args.repeat)):
    on = r % 4 in (0, 3)
    if ours is not None:
        ours(1 if on else 0)  # between loops: no NVTX range is open
    step_s = [0.0] * args.steps
    start = time.perf_counter()
    with torch.autograd.profiler.emit_nvtx() if args.emit_nvtx else contextlib.nullcontext():
        for i in range(args.steps):
            begin = time.perf_counter()
            loss = step()
            step_s[i] = time.perf_counter() - begin
        torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    tag = "" if ours is None else " ours on" if on else " ours off"
    print(f"loop_s {loop_s:.6f}{tag}", flush=True)
    print(f"step_us_median {1e6 * statistics.median(step_s):.3f}{tag}", flush=True)
print(f"loss {loss.item():.4f}")
