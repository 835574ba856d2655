"""Small models the tests script and compare with PyTorch (random weights
from fixed seeds; nothing is downloaded). Importing this imports torch."""
from typing import Dict

import torch
from torch import nn


class BasicBlock(nn.Module):
    """resnet's basic block: two conv-bn stages and the residual."""

    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class TinyResNet(nn.Module):
    """resnet-style: stem, two basic blocks, global pooling, classifier."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU())
        self.blocks = nn.Sequential(BasicBlock(16), BasicBlock(16))
        self.fc = nn.Linear(16, 10)
        for m in self.modules():  # BatchNorm statistics that are not the identity
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        y = self.blocks(self.stem(x))
        return self.fc(torch.flatten(torch.mean(y, dim=(2, 3), keepdim=True), 1))


class Mlp(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, width), nn.ReLU(), nn.Linear(width, width),
                                 nn.ReLU(), nn.Linear(width, 8))

    def forward(self, x):
        return self.net(x)


class TwoInTwoOut(nn.Module):
    """Two inputs, a tuple of two outputs."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16)

    def forward(self, a, b):
        h = self.proj(a) * torch.sigmoid(b)
        return h.sum(dim=-1), h - b


class RmsNorm(nn.Module):
    """The cpu and cuda backends' rms_norm op (eps 1e-6) as a module."""

    def forward(self, x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


class AddOneInPlace(nn.Module):
    """Writes into its input (to show the module sees the caller's memory)."""

    def forward(self, x):
        x.add_(1.0)
        return x * 2.0


class Tiny(nn.Module):
    """The benchmark's tiny model: one small linear layer."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x)


class Positive(nn.Module):
    """A bool output."""

    def forward(self, x):
        return x > 0


class Masked(nn.Module):
    """A bool input."""

    def forward(self, x, mask):
        return x.masked_fill(mask, 0.0)


class Named(nn.Module):
    """A dict output."""

    def forward(self, x) -> Dict[str, torch.Tensor]:
        return {"plus_one": x + 1, "twice": x * 2}


class NotScriptable(nn.Module):
    """forward uses Python TorchScript cannot compile (a generator)."""

    def forward(self, x):
        return sum(v for v in [x, x])


def make(cls, seed=0, *args):
    torch.manual_seed(seed)
    return cls(*args).eval()
