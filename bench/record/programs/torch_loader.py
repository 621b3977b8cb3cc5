"""PyTorch fed by a DataLoader with 2 worker processes (forked, CPU only), a few training steps.

    python3 torch_loader.py [--count]

Prints `launches N` last: with --count, the kernel executions torch.profiler saw (the program's own count
that `gpuperf record` must match); without it, 0."""
import argparse
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--count", action="store_true")
args = parser.parse_args()


def work():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(2048, 256), torch.randint(0, 10, (2048,)))
    loader = DataLoader(data, batch_size=128, num_workers=2, shuffle=False)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
    opt = torch.optim.Adam(model.parameters())
    for x, y in loader:
        with torch.cuda.nvtx.range("step"):
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
    torch.cuda.synchronize()
    print(f"loss {loss.item():.4f}")


if args.count:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        work()
    print("launches", sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                          and not e.name.startswith(("Memcpy", "Memset"))))
else:
    work()
    print("launches 0")
