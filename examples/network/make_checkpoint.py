"""Writes the network demo's checkpoint: a small convolutional classifier's
state dict, an input batch and PyTorch's output for it, in one safetensors
file. The C++ demo (main.cpp) builds the same network, loads the weights
unchanged and compares its output with PyTorch's.

    python make_checkpoint.py OUT.safetensors
"""
import sys

import torch
from safetensors.torch import save_file


def network() -> torch.nn.Sequential:
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1),
        torch.nn.BatchNorm2d(16),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(32, 10),
    )


def main() -> None:
    torch.manual_seed(0)
    net = network().eval()
    # Non-trivial running statistics, as a trained network would have.
    batch_norm = net[1]
    batch_norm.running_mean.uniform_(-0.5, 0.5)
    batch_norm.running_var.uniform_(0.5, 2.0)
    image = torch.rand(4, 3, 32, 32)
    with torch.no_grad():
        logits = net(image)
    tensors = {f"net.{k}": v.contiguous() for k, v in net.state_dict().items()}
    tensors["input"] = image
    tensors["expected"] = logits
    save_file(tensors, sys.argv[1], metadata={"torch": torch.__version__})
    print(f"torch {torch.__version__}: logits[0] =",
          " ".join(f"{v:.6f}" for v in logits[0].tolist()))


if __name__ == "__main__":
    main()
