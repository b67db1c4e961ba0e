"""A torchvision-style image classifier (a small ResNet: stem, two residual
blocks, global pooling, a linear head) with seeded random weights: the model
examples/aoti exports with tools/export_aoti.py and runs from C++.

    python tools/export_aoti.py examples/aoti/classifier.py -o classifier.pt2 \\
        --example-input float32[2,3,32,32] --dynamic 0:0:batch:1:16
"""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class Classifier(nn.Module):
    def __init__(self, classes=10, width=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2))
        self.layer1 = nn.Sequential(Block(width), Block(width))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width, classes)

    def forward(self, image):
        x = self.layer1(self.stem(image))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def make_model():
    torch.manual_seed(0)
    model = Classifier()
    with torch.no_grad():  # non-trivial batch-norm statistics, as after training
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.1, 0.1)
                module.running_var.uniform_(0.5, 1.5)
    return model.eval()
