"""A small PyTorch program for bench/gpu/identity_gpu.sh: a matmul (cuBLAS), a convolution (cuDNN) and, where
torch has it, NCCL's version (libtorch_cuda loads libnccl), so `gpuperf record` has libraries to store."""
import torch

x = torch.randn(512, 512, device="cuda")
y = x @ x
img = torch.randn(8, 3, 64, 64, device="cuda")
conv = torch.nn.Conv2d(3, 16, 3).cuda()
with torch.backends.cudnn.flags(enabled=True):
    z = conv(img)
torch.cuda.synchronize()
nccl = torch.cuda.nccl.version() if hasattr(torch.cuda, "nccl") else None
print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version(), "nccl", nccl, float(y.sum() + z.sum()))
