"""DistributedDataParallel over NCCL: an MLP trained for some steps on every GPU of the machine.

    torchrun --nproc_per_node 2 torch_ddp.py [--steps N] [--count]

Each rank prints `rank R launches N communication M` last: with --count, the kernel executions
torch.profiler saw on that rank from the model's construction on (N: every kernel, M: NCCL's), the counts
`gpuperf record` must match per rank; without it, `launches -1 communication -1` (no count of its own).
bench/record/record_matrix.py runs it under torchrun.
"""
import argparse
import faulthandler
import os
import signal

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=40)
parser.add_argument("--count", action="store_true")
args = parser.parse_args()
# SIGUSR1 prints every thread's Python stack and goes on (what a run that seems stuck is doing).
faulthandler.register(signal.SIGUSR1, all_threads=True)

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
rank = dist.get_rank()


def work():
    torch.manual_seed(rank)
    model = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                          nn.Linear(2048, 10)).cuda()
    # Small buckets: several all-reduces a step, overlapping the backward pass as in real training.
    ddp = DistributedDataParallel(model, device_ids=[local_rank], bucket_cap_mb=4)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(256, 512, device="cuda")
    y = torch.randint(0, 10, (256,), device="cuda")
    for _ in range(args.steps):
        with torch.cuda.nvtx.range("step"):
            loss = nn.functional.cross_entropy(ddp(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
    dist.barrier()  # inside the counted region: the barrier is an all-reduce kernel of its own
    torch.cuda.synchronize()
    return loss


if args.count:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        loss = work()
    kernels = [e for e in prof.events()
               if e.device_type == torch.autograd.DeviceType.CUDA and not e.name.startswith(("Memcpy", "Memset"))]
    nccl = [e for e in kernels if "nccl" in e.name]
    counts = (len(kernels), len(nccl))
else:
    loss = work()
    counts = (-1, -1)
print(f"loss {loss.item():.4f}")
print(f"rank {rank} launches {counts[0]} communication {counts[1]}", flush=True)
dist.destroy_process_group()
