#!/usr/bin/python3
"""What the Python package adds, measured against baselines in the same run.

usage: PYTHONPATH=<build>/python bench_overhead.py [--quick] [--device cpu|cuda] [--threads N]

1. ``import omnirt`` + ``Runtime()`` over every in-tree plugin, in fresh
   interpreters (median of 7): milliseconds, and whether libtorch got mapped
   or torch imported (it must not). Target: <= 50 ms, no libtorch.
2. A tiny model (Linear 8x8, batch 1) called through a wrapped module vs the
   same TorchScript module called from Python directly: microseconds extra
   per call. Target: <= 3 us.
3. resnet18 (torchvision, random weights, 1x3x224x224): percent extra.
   Target: <= 1% (CPU).

Each comparison pairs the tier with the module it runs: the eager tier
against the scripted module, the compile tier against libtorch's own
freeze + optimize_for_inference of it; the direct calls run inside
torch.inference_mode(), as the engine runs modules. Rounds alternate baseline and
OmniRT so that drift hits both; figures are medians over rounds.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

def import_and_runtime(runs):
    """import_cost.py in fresh interpreters: the median and fastest ms, and
    whether any run loaded torch or libtorch."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "import_cost.py")
    results = [json.loads(subprocess.run([sys.executable, script], capture_output=True, text=True,
                                         check=True).stdout) for _ in range(runs)]
    ms = [r["elapsed_ms"] for r in results]
    return (statistics.median(ms), min(ms), any(r["libtorch_mapped"] for r in results),
            any(r["torch_imported"] for r in results), ",".join(results[0]["backends"]))


def per_call_us(fn, x, calls, sync):
    """(wall, process CPU) microseconds per call. CPU time, which preemption
    by other processes does not inflate, is the steadier figure on a shared
    machine (and complete where the model runs on this process's threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        fn(x)
    sync()
    return ((time.perf_counter() - wall) / calls * 1e6, (time.process_time() - cpu) / calls * 1e6)


def compare(torch, baseline, wrapped, x, calls, rounds, sync):
    """Median per-call microseconds of both over alternating rounds. The
    baseline's rounds run inside torch.inference_mode() (entered once per
    round, as a server would), as the engine runs its modules."""
    with torch.inference_mode():
        for _ in range(max(3, calls // 10)):
            baseline(x)
    for _ in range(max(3, calls // 10)):
        wrapped(x)
    sync()
    base, ours = [], []
    for r in range(rounds):
        for turn in ((0, 1) if r % 2 == 0 else (1, 0)):  # alternate which goes first
            if turn == 0:
                with torch.inference_mode():
                    base.append(per_call_us(baseline, x, calls, sync))
            else:
                ours.append(per_call_us(wrapped, x, calls, sync))
    return ([statistics.median(t[i] for t in base) for i in (0, 1)],
            [statistics.median(t[i] for t in ours) for i in (0, 1)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=0,
                        help="libtorch intra-op threads for both sides (default: as configured)")
    args = parser.parse_args()

    ms, fastest, libtorch, torch_imported, backends = import_and_runtime(3 if args.quick else 7)
    met = ms <= 50 and not libtorch and not torch_imported
    print(f"import omnirt + Runtime() [{backends}]: {ms:.1f} ms median (min {fastest:.1f}); "
          f"libtorch mapped: {libtorch}; torch imported: {torch_imported}  "
          f"target <= 50 ms, none: {'OK' if met else 'MISSED'}")

    import torch
    import torchvision
    import omnirt

    torch.set_grad_enabled(False)
    rt = omnirt.Runtime(ignore_environment=True)
    backend = rt.backend(args.device)
    device = "cpu" if args.device == "cpu" else "cuda:0"
    sync = (lambda: None) if device == "cpu" else torch.cuda.synchronize
    # The engine sets libtorch's threads when it loads: load it first, then
    # set them for both sides (they share one libtorch).
    backend.wrap_module(torch.jit.script(torch.nn.Identity()), compile=False)
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"backend {backend.name}, torch {torch.__version__}, {torch.get_num_threads()} threads")

    torch.manual_seed(0)
    cases = [("tiny Linear(8, 8)", torch.nn.Linear(8, 8).eval(), torch.randn(1, 8), 500, 31),
             ("resnet18", torchvision.models.resnet18(weights=None).eval(),
              torch.randn(1, 3, 224, 224), 3, 15)]
    if args.quick:
        cases = [(n, m, x, calls, 3) for n, m, x, calls, _ in cases]
    for name, model, x, calls, rounds in cases:
        model = model.to(device)
        x = x.to(device)
        scripted = torch.jit.script(model)
        frozen = torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(model).eval()))
        for tier, reference in (("eager", scripted), ("compile", frozen)):
            m = backend.wrap_module(scripted, tag=name.split()[0], compile=(tier == "compile"))
            assert m.selected_tier == tier, m.timeline
            with torch.inference_mode():
                torch.testing.assert_close(m(x), reference(x), rtol=1e-3, atol=1e-3)
            base, ours = compare(torch, reference, m, x, calls, rounds, sync)
            report(name, tier, base, ours)


def report(name, tier, base, ours):
    """One line per clock: wall and CPU time per call, and what OmniRT adds."""
    for clock, b, o in (("wall", base[0], ours[0]), ("cpu", base[1], ours[1])):
        extra = o - b
        if name.startswith("tiny"):
            verdict = "OK" if extra <= 3 else "MISSED"
            print(f"{name:18} {tier:8} {clock:4} direct {b:9.2f} us  omnirt {o:9.2f} us  "
                  f"extra {extra:+7.2f} us/call  target <= 3 us: {verdict}")
        else:
            pct = extra / b * 100
            verdict = "OK" if pct <= 1 else "MISSED"
            print(f"{name:18} {tier:8} {clock:4} direct {b / 1e3:9.2f} ms  "
                  f"omnirt {o / 1e3:9.2f} ms  extra {pct:+6.2f}%  target <= 1%: {verdict}")

if __name__ == "__main__":
    main()
