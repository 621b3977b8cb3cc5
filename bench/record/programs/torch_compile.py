"""A torch.compile program: the launches it makes once compiled, inside an NVTX range, against torch.profiler.

    python3 torch_compile.py [--steps N] [--count]

Compiles a small MLP's forward with torch.compile (Inductor: Triton kernels and cuBLAS), runs it 3 times to
compile and warm up, then runs `--steps` inferences inside the NVTX range `measured`. Prints `launches N`
last: with --count, torch.profiler's kernel executions of the measured steps alone (the profiler runs around
them only), the count `gpuperf record` must match for launches whose NVTX path begins with `measured`;
without --count, 0. bench/record/record_matrix.py runs it.
"""
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--count", action="store_true")
args = parser.parse_args()

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.LayerNorm(1024), nn.Linear(1024, 256)).cuda().eval()
compiled = torch.compile(model)
x = torch.randn(128, 512, device="cuda")
with torch.no_grad():
    for _ in range(3):
        compiled(x)
torch.cuda.synchronize()


def measured():
    with torch.no_grad(), torch.cuda.nvtx.range("measured"):
        for _ in range(args.steps):
            out = compiled(x)
    torch.cuda.synchronize()
    return out


if args.count:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        out = measured()
    kernels = [e for e in prof.events()
               if e.device_type == torch.autograd.DeviceType.CUDA
               and not e.name.startswith(("Memcpy", "Memset"))]
    print(f"sum {out.float().sum().item():.3f}")
    print(f"launches {len(kernels)}")
else:
    out = measured()
    print(f"sum {out.float().sum().item():.3f}")
    print("launches 0")
