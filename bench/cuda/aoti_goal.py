#!/usr/bin/env python3
"""Goal benchmark of issue 17 on a GPU machine: OmniRT's best tier against
torch.compile(mode="reduce-overhead"), all variants in one process.

Models, fp32: resnet50 at batch 8 (torchvision's when it is installed, else
the same architecture defined here) and a 6-layer transformer encoder
(d_model 1024, 16 heads, ffn 4096, sequence 128, batch 1). Each is exported
here as TorchScript (traced) and as an AOTInductor package
(examples/models/export_aoti.py), then run by:

  pytorch eager          the nn.Module
  torch.compile          torch.compile(mode="reduce-overhead"): Inductor + CUDA graphs
  aoti loader (python)   torch._inductor.aoti_load_package, the package from Python
  omnirt ts compile      OmniRT, the TorchScript file, compile tier (frozen, CUDA graphs)
  omnirt aoti eager      OmniRT, the package, eager tier (the package itself)
  omnirt aoti compile    OmniRT, the package, compile tier (replayed through CUDA graphs)

OmniRT runs through its C API (ctypes, omnirt_ctypes.py) with the cuda
backend, on the default stream. Latency: one run enqueued, then
torch.cuda.synchronize(), timed on the host clock: completed work. The
variants take turns within each round, so that drift hits all alike; the
median over the rounds is reported. Every variant's output is checked
against eager PyTorch on the same input (relative L2 error).

Precision is the same for every variant: they share this process's settings,
PyTorch's defaults, printed at the start (cuDNN may use TF32 for convolutions,
matmuls do not), with cudnn.benchmark on for all. The OmniRT-vs-direct-loader
comparison at 2% is cuda_aoti_bench's (C++ on both sides); the Python loader
row here pays Python's call overhead.

    python3 bench/cuda/aoti_goal.py --omnirt BUILD/lib/libomnirt.so \\
        --plugin BUILD/lib/omnirt/plugins/libomnirt_backend_cuda.so --work DIR [--rounds N]

Exit status 0 when every output matches eager PyTorch, 1 otherwise; the goal
verdicts are printed, not enforced.
"""
import argparse
import os
import pathlib
import statistics
import sys
import time

os.environ.setdefault("AOTI_RUNTIME_CHECK_INPUTS", "1")  # the packages check their inputs

import torch  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "examples" / "models"))
import omnirt_ctypes  # noqa: E402
from export_aoti import export_package, save_torchscript  # noqa: E402

TOLERANCE = 1e-2  # relative L2: fusion order, and TF32 in cuDNN convolutions


def bottleneck_resnet50():
    """ResNet-50 (torchvision's architecture), for machines without torchvision."""
    nn = torch.nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = width * 4
            self.conv1, self.bn1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
            self.conv2, self.bn2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
            self.conv3, self.bn3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            return self.relu(self.bn3(self.conv3(out)) + identity)

    layers, cin = [], 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    return nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                         nn.MaxPool2d(3, 2, 1), *layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000))


def resnet50():
    try:
        import torchvision
        return torchvision.models.resnet50(weights=None), "torchvision resnet50"
    except ImportError:
        return bottleneck_resnet50(), "resnet50 (torchvision's architecture, defined here)"


class EncoderLayer(torch.nn.Module):
    """nn.TransformerEncoderLayer's computation (post-norm, ReLU) in plain ops:
    no fused fast path that one variant would take and another not."""

    def __init__(self, d=1024, heads=16, ffn=4096):
        super().__init__()
        self.heads = heads
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc1, self.fc2 = torch.nn.Linear(d, ffn), torch.nn.Linear(ffn, d)
        self.norm1, self.norm2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, s, d)
        x = self.norm1(x + self.proj(a))
        return self.norm2(x + self.fc2(torch.relu(self.fc1(x))))


def transformer6():
    return torch.nn.Sequential(*[EncoderLayer() for _ in range(6)]), "6-layer transformer encoder (d 1024, 16 heads, ffn 4096)"


MODELS = {
    "resnet50_b8": (resnet50, (8, 3, 224, 224)),
    "transformer6": (transformer6, (1, 128, 1024)),
}


def rel_error(got, want):
    return float((got.float() - want.float()).norm() / want.float().norm())


def time_variants(variants, rounds):
    """Median seconds of one synchronized run of each variant, taking turns."""
    samples = {name: [] for name in variants}
    names = list(variants)
    for r in range(rounds):
        for k in range(len(names)):
            name = names[(r + k) % len(names)]
            run = variants[name]
            start = time.perf_counter()
            run()
            torch.cuda.synchronize()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(s) for name, s in samples.items()}


def bench_model(name, work, host, rounds, failures):
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model, what = make()
    model = model.eval().cuda()
    x = torch.randn(shape, device="cuda")
    print(f"\n## {name}: {what}, input {'x'.join(map(str, shape))} f32", flush=True)
    with torch.no_grad():
        want = model(x).clone()

    start = time.perf_counter()
    ts_path, pt2_path = work / f"{name}.pt", work / f"{name}.pt2"
    save_torchscript(model, [x], ts_path)
    export_package(model, [x], pt2_path)
    print(f"exported {ts_path.name} and {pt2_path.name} in {time.perf_counter() - start:.1f} s", flush=True)

    start = time.perf_counter()
    compiled = torch.compile(model, mode="reduce-overhead")
    aoti = torch._inductor.aoti_load_package(str(pt2_path))
    modules = {
        "omnirt ts compile": host.wrap("cuda", ts_path, "torchscript", name, True),
        "omnirt aoti eager": host.wrap("cuda", pt2_path, "aoti", name, False),
        "omnirt aoti compile": host.wrap("cuda", pt2_path, "aoti", name, True),
    }
    for m in modules.values():
        m.bind(x)

    def torch_compile():
        torch.compiler.cudagraph_mark_step_begin()
        return compiled(x)

    outputs = {
        "pytorch eager": lambda: model(x),
        "torch.compile": torch_compile,
        "aoti loader (python)": lambda: aoti(x),
    }
    variants = dict(outputs)
    for label, m in modules.items():
        outputs[label] = m.run_to_tensor
        variants[label] = m.run
    with torch.no_grad():
        for label, run in outputs.items():  # warm-up (compiles, captures) and the check
            out = None
            for _ in range(4):
                out = None  # no output held across runs: a compile tier replays one graph
                out = run()
            torch.cuda.synchronize()
            err = rel_error(out, want)
            del out
            if not err < TOLERANCE:
                failures.append(f"{name} {label}: relative error {err:.2e} against eager PyTorch")
            print(f"  {label:22s} output vs eager: relative L2 error {err:.2e}"
                  f"{'' if err < TOLERANCE else '  MISMATCH'}", flush=True)
        print(f"warm-up and checks in {time.perf_counter() - start:.1f} s", flush=True)
        medians = time_variants(variants, rounds)
    for m in modules.values():
        m.close()

    base = medians["torch.compile"]
    print(f"  {'variant':22s} {'median ms':>10s} {'/ torch.compile':>16s}")
    for label, seconds in medians.items():
        print(f"  {label:22s} {seconds * 1e3:10.3f} {seconds / base:16.3f}")
    best = min((s, label) for label, s in medians.items() if label.startswith("omnirt"))
    verdict = "met" if best[0] <= base else "NOT met"
    print(f"  goal (best OmniRT tier <= torch.compile reduce-overhead): {verdict}: "
          f"{best[1]} {best[0] * 1e3:.3f} ms vs {base * 1e3:.3f} ms")
    print(f"  omnirt aoti eager vs aoti loader (python): "
          f"{(medians['omnirt aoti eager'] / medians['aoti loader (python)'] - 1) * 100:+.1f}%")
    return verdict == "met"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--omnirt", required=True, help="libomnirt.so")
    parser.add_argument("--plugin", required=True, help="libomnirt_backend_cuda.so (its engine beside it)")
    parser.add_argument("--work", required=True, type=pathlib.Path, help="folder for the exported models")
    parser.add_argument("--rounds", type=int, default=200, help="timed runs of each variant")
    parser.add_argument("--models", default=",".join(MODELS), help=f"comma-separated, of {', '.join(MODELS)}")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), {torch.cuda.get_device_name()}")
    print(f"settings for every variant: cudnn.benchmark={torch.backends.cudnn.benchmark}, "
          f"cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}, "
          f"cuda.matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32}, "
          f"float32_matmul_precision={torch.get_float32_matmul_precision()}")
    host = omnirt_ctypes.Host(args.omnirt, [args.plugin])
    failures, met = [], []
    for name in args.models.split(","):
        met.append(bench_model(name, args.work, host, args.rounds, failures))
    host.close()
    print(f"\n# goal met for {sum(met)} of {len(met)} models; {len(failures)} outputs not matching eager PyTorch")
    for f in failures:
        print("MISMATCH:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
