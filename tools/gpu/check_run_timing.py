#!/usr/bin/env python3
"""omnirt-run measures completed work on CUDA: its figures for resnet50 and an
MLP agree with PyTorch's own synchronized measurement of the same TorchScript
module on the same GPU (issue 13: it used to report the launch time).

For each model and tier it runs

  omnirt-run MODEL.pt --backend cuda --json [--no-compile] --warmup W --iters N

and, in this process, the same work with PyTorch, synchronizing after every
call (same warm-up and iteration counts):
  eager    torch.jit.load(map_location="cuda"), eval, forward under
           torch.inference_mode (what the cuda engine's eager tier runs);
  compile  the frozen, optimize_for_inference'd module captured once in a
           torch.cuda.CUDAGraph; each call copies the input in and replays
           (what the engine's compile tier runs).
It prints both medians of wall time per call (launch to completion) and their
ratio, and the same for device time (omnirt-run's events; torch.cuda.Event).
Exit status 0 when every wall-time ratio is within --tolerance of 1.

Models (random weights, seeded): resnet50 (torchvision's when installed,
else the same architecture defined here), batch 8 at 3x224x224; an MLP of 8
Linear(4096, 4096) + ReLU layers, batch 512: compute-bound GEMMs (about 3 ms),
so that the GPU, not Python's call overhead (tens of microseconds that
omnirt-run, in C++, does not pay), sets its time. (At batch 8, 8192 wide,
the two processes' device times themselves differed by up to 6% on the H100:
skinny GEMMs, whose work is not what this check is about.)

usage: check_run_timing.py --omnirt-run PATH --plugin PATH [--work DIR]
                           [--warmup 20] [--iters 100] [--tolerance 0.05]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
from torch import nn


# --- models ------------------------------------------------------------------

class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet50(nn.Module):
    """torchvision.models.resnet50's architecture, for machines without torchvision."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = self._layer(64, 3)
        self.layer2 = self._layer(128, 4, stride=2)
        self.layer3 = self._layer(256, 6, stride=2)
        self.layer4 = self._layer(512, 3, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(2048, num_classes)

    def _layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * 4:
            downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * 4, 1, stride=stride, bias=False),
                                       nn.BatchNorm2d(planes * 4))
        layers = [Bottleneck(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * 4
        layers += [Bottleneck(self.inplanes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet50():
    try:
        import torchvision
        return torchvision.models.resnet50(weights=None), "torchvision.models.resnet50"
    except ImportError:
        return ResNet50(), "ResNet-50 defined in this script (no torchvision)"


def mlp():
    layers = []
    for _ in range(8):
        layers += [nn.Linear(4096, 4096), nn.ReLU()]
    return nn.Sequential(*layers), "8 x (Linear(4096, 4096) + ReLU)"


MODELS = [("resnet50", resnet50, (8, 3, 224, 224)), ("mlp", mlp, (512, 4096))]


def save_torchscript(make, shape, path):
    torch.manual_seed(0)
    model, what = make()
    model.eval()
    with torch.no_grad():
        scripted = torch.jit.trace(model, torch.rand(shape))
    scripted.save(path)
    return what


# --- PyTorch's own measurement ---------------------------------------------

def torch_times(path, shape, tier, warmup, iters):
    """Median per-call wall ms (perf_counter around the call and a device
    synchronize) and, in a second loop, device ms (CUDA events around the
    call), PyTorch alone."""
    x = torch.rand(shape, device="cuda") * 2 - 1
    with torch.inference_mode():
        module = torch.jit.load(path, map_location="cuda").eval()
        if tier == "eager":
            def call():
                module(x)
        else:
            frozen = torch.jit.optimize_for_inference(torch.jit.freeze(module))
            static_x = x.clone()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    frozen(static_x)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                frozen(static_x)

            def call():
                static_x.copy_(x)
                graph.replay()
        for _ in range(warmup):
            call()
        torch.cuda.synchronize()
        wall, device = [], []
        for _ in range(iters):
            t0 = time.perf_counter()
            call()
            torch.cuda.synchronize()
            wall.append((time.perf_counter() - t0) * 1e3)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(iters):
            start.record()
            call()
            end.record()
            end.synchronize()
            device.append(start.elapsed_time(end))
    return statistics.median(wall), statistics.median(device)


# --- omnirt-run ---------------------------------------------------------------

def omnirt_times(args, path, shape, tier):
    cmd = [args.omnirt_run, path, "--backend", args.backend, "--plugin-dir", args.plugin, "--json",
           "--input", "x".join(map(str, shape)) + ":f32", "--warmup", str(args.warmup), "--iters", str(args.iters)]
    if tier == "eager":
        cmd.append("--no-compile")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                       env={**os.environ, "OMNIRT_PLUGIN_PATH": ""})
    if p.returncode != 0:
        raise RuntimeError(f"omnirt-run exited {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    doc = json.loads(p.stdout)
    selected = doc["report"]["timeline"][0]["selected_tier"]
    if selected != tier:
        raise RuntimeError(f"omnirt-run selected the {selected} tier, not {tier}: {doc['report']['timeline']}")
    device = doc["device_ms"]["median"] if doc["device_ms"] else float("nan")
    return doc["latency_ms"]["median"], device


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--omnirt-run", required=True)
    ap.add_argument("--plugin", required=True, help="libomnirt_backend_cuda.so (the engine beside it)")
    ap.add_argument("--backend", default="cuda", help=argparse.SUPPRESS)  # cpu: to try the script here
    ap.add_argument("--work", default=None, help="where the models are written (default: a temp dir)")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--tolerance", type=float, default=0.05)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("check_run_timing: PyTorch sees no CUDA device")
    print(f"torch {torch.__version__} (CUDA {torch.version.cuda}) on {torch.cuda.get_device_name(0)}; "
          f"warmup {args.warmup}, iters {args.iters}; medians in ms per call")
    work = args.work or tempfile.mkdtemp(prefix="omnirt-timing-")
    os.makedirs(work, exist_ok=True)
    rows, ok = [], True
    for name, make, shape in MODELS:
        path = os.path.join(work, name + ".pt")
        print(f"{name}: {save_torchscript(make, shape, path)}, input {list(shape)} f32")
        for tier in ("eager", "compile"):
            try:
                t_wall, t_dev = torch_times(path, shape, tier, args.warmup, args.iters)
                o_wall, o_dev = omnirt_times(args, path, shape, tier)
            except Exception as e:  # one failing case must not hide the others
                print(f"{name} {tier}: FAILED: {e}")
                ok = False
                continue
            ratio = o_wall / t_wall
            good = abs(ratio - 1) <= args.tolerance
            ok = ok and good
            rows.append((name, tier, o_wall, t_wall, ratio, o_dev, t_dev, o_dev / t_dev, "PASS" if good else "FAIL"))
    print(f"\n{'model':10} {'tier':8} {'omnirt wall':>12} {'torch wall':>11} {'ratio':>7} "
          f"{'omnirt dev':>11} {'torch dev':>10} {'ratio':>7}  within {args.tolerance:.0%}")
    for r in rows:
        print(f"{r[0]:10} {r[1]:8} {r[2]:12.3f} {r[3]:11.3f} {r[4]:7.3f} {r[5]:11.3f} {r[6]:10.3f} {r[7]:7.3f}  {r[8]}")
    print("verdict: " + ("PASS" if ok and rows else "FAIL") +
          f" (wall-time medians agree within {args.tolerance:.0%} in every case)")
    return 0 if ok and rows else 1


if __name__ == "__main__":
    sys.exit(main())
