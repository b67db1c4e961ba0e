"""The computation of quickstart/main.cpp in Python, for comparison."""
import torch

image = torch.arange(1.0, 17.0).reshape(1, 1, 4, 4)
kernel = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
result = torch.ops.aten.conv2d(image, kernel)
print(f"torch {torch.__version__}")
print(f"conv2d -> shape {list(result.shape)}, values",
      " ".join(f"{v:g}" for v in result.flatten().tolist()))
