"""The small models the aoti tests, example and bench export (tiny: AOTInductor
compiles each for a minute or more on a small machine)."""

import torch
from torch import nn


class Mlp(nn.Module):
    """Two inputs with a shared dynamic batch, two outputs."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))

    def forward(self, x, y):
        h = self.net(x)
        return h + y, h.sum(dim=1)


class TinyCnn(nn.Module):
    """A torchvision-style classifier, cut down: conv, batch norm, pool, linear."""

    def __init__(self, classes=5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                      nn.MaxPool2d(2))
        self.classifier = nn.Linear(4 * 4 * 4, classes)

    def forward(self, image):
        return self.classifier(torch.flatten(self.features(image), 1))


class Eigh(nn.Module):
    """linalg.eigh has no C shim: AOTInductor needs the proxy executor for it."""

    def forward(self, x):
        return torch.linalg.eigh(x @ x.mT).eigenvalues


def seeded(module: nn.Module, seed: int = 0) -> nn.Module:
    """`module` with seeded random weights and batch-norm statistics, in eval mode."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for tensor in list(module.parameters()) + list(module.buffers()):
            if tensor.is_floating_point():
                tensor.copy_(torch.rand(tensor.shape, generator=generator) * 0.5 + 0.25
                             if tensor.dim() == 1 else
                             torch.randn(tensor.shape, generator=generator) * 0.5)
    return module.eval()


def make_model():
    """The example's classifier (tools/export_aoti.py's default factory name)."""
    return seeded(TinyCnn())
