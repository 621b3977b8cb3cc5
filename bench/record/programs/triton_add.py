"""A Triton vector-add kernel launched --launches times (50 by default). Prints `launches N`: the launches
of its own kernel (`add_kernel`), which `gpuperf record` must store exactly."""
import argparse
import torch
import triton
import triton.language as tl

parser = argparse.ArgumentParser()
parser.add_argument("--launches", type=int, default=50)
args = parser.parse_args()


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
             mask=mask)


n = 1 << 20
x = torch.rand(n, device="cuda")
y = torch.rand(n, device="cuda")
out = torch.empty_like(x)
for _ in range(args.launches):
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
torch.cuda.synchronize()
assert torch.allclose(out, x + y)
print(f"launches {args.launches}")
