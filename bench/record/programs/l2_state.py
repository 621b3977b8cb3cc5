"""Elementwise kernels whose DRAM traffic from a cold L2 is known, 4 launches each, in NVTX ranges:
"small": out1 = x * 2 over 8 MiB, which fits in the L2 (a warm cache would hide its reads);
"chain": out2 = out1 * 3, reading what "small" has just written (still in the L2 unless it was emptied);
"big": out = y * 2 over 512 MiB, which does not fit.
For bench/record/l2_state_gpu.sh: which way of profiling reads the cold-cache values (8 MiB read for "small" and
"chain")."""
import torch

small = torch.randn(2 * 1024 * 1024, device="cuda")  # 8 MiB of float32
big = torch.randn(128 * 1024 * 1024, device="cuda")  # 512 MiB
out1 = torch.empty_like(small)
out2 = torch.empty_like(small)
out_big = torch.empty_like(big)
torch.cuda.synchronize()
for _ in range(4):
    torch.cuda.nvtx.range_push("small")
    torch.mul(small, 2.0, out=out1)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("chain")
    torch.mul(out1, 3.0, out=out2)
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_push("big")
    torch.mul(big, 2.0, out=out_big)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print(f"bytes each launch reads: small {small.numel() * 4}, chain {out1.numel() * 4}, big {big.numel() * 4}")
