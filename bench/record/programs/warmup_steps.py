"""A program whose first launches are warm-up: 5 warm-up iterations, then 3 steps, each a cuBLAS matmul and a
ReLU, the iterations in NVTX ranges "warmup" and "step". For `record --launch-skip/--launch-count`
(bench/record/launch_skip_gpu.sh): skipping the 5 warm-up matmuls profiles the 3 steps' ones."""
import torch

x = torch.randn(2048, 2048, device="cuda")


def iteration(name):
    torch.cuda.nvtx.range_push(name)
    torch.relu(x @ x)
    torch.cuda.nvtx.range_pop()


for _ in range(5):
    iteration("warmup")
for _ in range(3):
    iteration("step")
torch.cuda.synchronize()
