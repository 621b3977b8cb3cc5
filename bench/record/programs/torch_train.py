"""A PyTorch training loop in nested NVTX ranges, optionally with a CuPy RawKernel in the same process.

    python3 torch_train.py [--cupy] [--steps N] [--count]

Prints `launches N` last: with --count, the number of kernel executions torch.profiler saw (every kernel of
the process, CuPy's included), the program's own count that `gpuperf record` must match; without it, the
launches of the CuPy kernel it made (0 without --cupy). bench/record/record_matrix.py runs it.
"""
import argparse
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--cupy", action="store_true")
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--count", action="store_true")
args = parser.parse_args()


def work():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(256, 512, device="cuda")
    y = torch.randint(0, 10, (256,), device="cuda")
    own = 0
    if args.cupy:
        import cupy
        scale = cupy.RawKernel(r'''
extern "C" __global__ void gpuperf_matrix_scale(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 0.999f;
}''', "gpuperf_matrix_scale")
        buf = cupy.ones(1 << 16, dtype=cupy.float32)
    for step in range(args.steps):
        with torch.cuda.nvtx.range("epoch"):
            torch.cuda.nvtx.range_push("forward")
            loss = nn.functional.cross_entropy(model(x), y)
            torch.cuda.nvtx.range_pop()
            with torch.cuda.nvtx.range("backward"):
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            if args.cupy:
                with torch.cuda.nvtx.range("cupy"):
                    scale((buf.size // 256,), (256,), (buf, cupy.int32(buf.size)))
                    own += 1
    torch.cuda.synchronize()
    if args.cupy:
        cupy.cuda.runtime.deviceSynchronize()
    print(f"loss {loss.item():.4f}")
    return own


if args.count:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        work()
    kernels = [e for e in prof.events()
               if e.device_type == torch.autograd.DeviceType.CUDA
               and not e.name.startswith(("Memcpy", "Memset"))]
    print(f"launches {len(kernels)}")
else:
    print(f"launches {work()}")
