#!/usr/bin/python3
"""Makes the small TorchScript models of the wrap tests and libtorch's own
outputs for them (random weights, fixed seeds; nothing is downloaded).

usage: make_test_models.py OUT_DIR

For each model NAME it writes NAME.pt, NAME.input<i>.npy and NAME.expected.npy
(eager libtorch output) and NAME.frozen.npy (libtorch's own freeze +
optimize_for_inference output) of its first output, NAME.expected<i>.npy of
every output of a tuple, and NAME.expected.<key>.npy of every entry of a dict. Without python3-torch it writes
OUT_DIR/unavailable.txt with the reason and exits 0, so the tests skip
saying why.
"""
import os
import sys
import warnings
from typing import Dict

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
try:
    import numpy as np
    import torch
except ImportError as e:  # the tests read this and skip with the reason
    with open(os.path.join(out, "unavailable.txt"), "w") as f:
        f.write(f"python3-torch is not available to /usr/bin/python3: {e}")
    sys.exit(0)

torch.manual_seed(0)


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))

    def forward(self, x):
        return self.net(x)


class ConvBn(torch.nn.Module):
    """Conv + BatchNorm + ReLU: freezing folds the BatchNorm, so the compile
    tier really differs from eager."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.bn.running_mean.uniform_(-0.5, 0.5)
        self.bn.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class RmsNorm(torch.nn.Module):
    """The same computation as the cpu backend's rms_norm op (eps 1e-5)."""

    def forward(self, x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * w


class MatMul(torch.nn.Module):
    """Two inputs whose order shows: (2, 3) @ (3, 4) works, the other way not."""

    def forward(self, a, b):
        return a @ b


class Mask(torch.nn.Module):
    """Bool in and bool out."""

    def forward(self, x, mask):
        return x.masked_fill(mask, 0.0), mask.logical_not()


class Heads(torch.nn.Module):
    """A dict whose insertion order is not its key order."""

    def forward(self, x) -> Dict[str, torch.Tensor]:
        return {"logits": x * 2, "boxes": x + 1, "aux": x - 1}


class Scale(torch.nn.Module):
    """int, float and bool arguments."""

    def forward(self, x, k: int, s: float, flip: bool):
        y = x * s + k
        return -y if flip else y


class Transposed(torch.nn.Module):
    """A strided output."""

    def forward(self, x):
        return x.t()


class Warns(torch.nn.Module):
    """libtorch warns on every run: the out= tensor has the wrong size."""

    def forward(self, x):
        out = torch.empty(1)
        torch.add(x, x, out=out)
        return out


class TwoOutputs(torch.nn.Module):
    def forward(self, x):
        return x + 1, x * 2


models = {
    "mlp": (Mlp(), [torch.randn(2, 16)]),
    "convbn": (ConvBn(), [torch.randn(1, 3, 8, 8)]),
    "rms_norm": (RmsNorm(), [torch.randn(3, 16), torch.rand(16) + 0.5]),
    "two_outputs": (TwoOutputs(), [torch.randn(4)]),
    "matmul": (MatMul(), [torch.randn(2, 3), torch.randn(3, 4)]),
    "mask": (Mask(), [torch.randn(2, 3), torch.rand(2, 3) > 0.5]),
    "heads": (Heads(), [torch.randn(3)]),
    "scale": (Scale(), [torch.randn(2, 3), torch.tensor(3), torch.tensor(0.5), torch.tensor(True)]),
    "transposed": (Transposed(), [torch.randn(2, 3)]),
    "warns": (Warns(), [torch.randn(3)]),
}

for name, (model, inputs) in models.items():
    model.eval()
    scripted = torch.jit.script(model)
    warnings.simplefilter("ignore")  # Warns warns here too
    path = os.path.join(out, name + ".pt")
    scripted.save(path)
    with torch.no_grad():
        expected = scripted(*inputs)
        frozen = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.load(path).eval()))
        frozen_out = frozen(*inputs)
    for i, x in enumerate(inputs):
        np.save(os.path.join(out, f"{name}.input{i}.npy"), x.numpy())
    if isinstance(expected, dict):
        for key, value in expected.items():
            np.save(os.path.join(out, f"{name}.expected.{key}.npy"), value.numpy())
        continue
    if isinstance(expected, tuple):
        for i, value in enumerate(expected):
            np.save(os.path.join(out, f"{name}.expected{i}.npy"), value.numpy())
    first = expected[0] if isinstance(expected, tuple) else expected
    first_frozen = frozen_out[0] if isinstance(frozen_out, tuple) else frozen_out
    np.save(os.path.join(out, name + ".expected.npy"), first.numpy())
    np.save(os.path.join(out, name + ".frozen.npy"), first_frozen.numpy())
