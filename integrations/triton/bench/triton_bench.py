#!/usr/bin/python3
"""Benchmarks the omnirt Triton backend on resnet18 (cpu backend), in one run:

1. Overhead of the backend: the time inside TRITONBACKEND_ModelInstanceExecute
   per request (Triton's compute_input + compute_infer + compute_output
   statistics, which the backend reports around its work) against the time of
   omnirt_module_run itself, on the same model and batch:
     - in the same Execute calls: compute_infer brackets exactly
       omnirt_module_run and the wait for its outputs;
     - alone: omnirt-run timing omnirt_module_run on the same file, batch and
       backend in its own process, in rounds alternating with the server's
       (idle meanwhile), so that both see the same machine. Triton's
       statistics give means, so omnirt-run's mean is compared; the figure
       is the median over the rounds of each.
2. Throughput of 8 concurrent clients sending one-image requests, with
   Triton's dynamic batching and without, on the same module: requests/s and
   their ratio, measured in alternating slices.

Both the server and omnirt-run run with OMP_WAIT_POLICY=PASSIVE unless it is
set: on a busy machine, libtorch's spinning OpenMP workers otherwise make a
process's timing depend on how it is scheduled, which is not what this
compares (measured on a loaded 2-core machine, same module: omnirt-run's
median 413 ms with spinning workers, 50 ms passive; the server, whose workers
did not spin, used 21 ms of CPU per request).

Nothing is downloaded: resnet18 is made with random weights by
examples/models/make_models.py. Needs the built tree (libtriton_omnirt.so,
omnirt-run, the cpu plugin and its TorchScript engine) and the Triton server.

usage: /usr/bin/python3 integrations/triton/bench/triton_bench.py [--build build/dev] [--triton DIR]
           [--requests 40] [--rounds 3] [--seconds 20] [--slices 4] [--clients 8] [--json]
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[3]
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, str(ROOT / "integrations" / "triton" / "tests"))
from triton_harness import TritonServer, install_backend  # noqa: E402

INPUT_SHAPE = (1, 3, 224, 224)


def model_config(name, dynamic_batching):
    return textwrap.dedent(f"""\
        name: "{name}"
        backend: "omnirt"
        max_batch_size: 8
        input [ {{ name: "INPUT__0" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] }} ]
        output [ {{ name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 1000 ] }} ]
        instance_group [ {{ count: 1 kind: KIND_CPU }} ]
        """) + ("dynamic_batching { max_queue_delay_microseconds: 5000 }\n" if dynamic_batching else "")


def write_repository(work):
    models = work / "made"
    subprocess.run([sys.executable, str(ROOT / "examples" / "models" / "make_models.py"), str(models), "resnet18"],
                   check=True, stdout=subprocess.DEVNULL)
    repository = work / "models"
    for name, dynamic in (("resnet18", False), ("resnet18_dynamic", True)):
        (repository / name / "1").mkdir(parents=True)
        shutil.copy(models / "resnet18.pt", repository / name / "1" / "model.pt")
        (repository / name / "config.pbtxt").write_text(model_config(name, dynamic))
    return repository, models / "resnet18.pt"


def module_run_alone_ms(omnirt_run, model, iterations, env):
    """Mean ms of omnirt_module_run on `model`, batch 1, cpu backend, in omnirt-run."""
    out = subprocess.run([omnirt_run, str(model), "--backend", "cpu", "--input", "x".join(map(str, INPUT_SHAPE)) + ":f32",
                          "--warmup", "5", "--iters", str(iterations), "--json"],
                         check=True, capture_output=True, text=True, timeout=600, env=env)
    return json.loads(out.stdout)["latency_ms"]["mean"]


def stage_ns(stats, stage):
    return stats["inference_stats"][stage]["ns"], stats["inference_stats"][stage]["count"]


def execute_breakdown(client, model, requests, payload):
    """Per-request means (ms) of Triton's execute stages over `requests`
    sequential one-image requests."""
    before = client.stats(model)
    for _ in range(requests):
        reply, _ = client.infer(model, [("INPUT__0", payload)], binary=True)
        assert reply.status == 200, reply.error()
    deadline = time.monotonic() + 10  # statistics follow the last response by a moment
    while True:
        after = client.stats(model)
        done = after["inference_stats"]["success"]["count"] - before["inference_stats"]["success"]["count"]
        if done >= requests or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    means = {}
    for stage in ("compute_input", "compute_infer", "compute_output"):
        ns_after, count_after = stage_ns(after, stage)
        ns_before, count_before = stage_ns(before, stage)
        assert count_after - count_before == requests, (stage, count_after - count_before)
        means[stage] = (ns_after - ns_before) / requests / 1e6
    means["execute"] = means["compute_input"] + means["compute_infer"] + means["compute_output"]
    return means


def throughput(server, model, clients, seconds, payload):
    """(requests, seconds, rows, executions) of `clients` threads sending
    one-image requests for `seconds`."""
    stop = threading.Event()
    counts = [0] * clients

    def run(c):
        client = server.client()
        try:
            while not stop.is_set():
                reply, _ = client.infer(model, [("INPUT__0", payload)], binary=True)
                assert reply.status == 200, reply.error()
                counts[c] += 1
        finally:
            client.close()

    before = server.client().stats(model)
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        start = time.monotonic()
        futures = [pool.submit(run, c) for c in range(clients)]
        time.sleep(seconds)
        stop.set()
        for future in futures:
            future.result(timeout=120)
        elapsed = time.monotonic() - start
    after = server.client().stats(model)
    return (sum(counts), elapsed, after["inference_count"] - before["inference_count"],
            after["execution_count"] - before["execution_count"])


def compare_throughput(server, clients, seconds, slices, payload):
    """Requests/s and mean batch without and with dynamic batching, measured in
    alternating slices so that both see the same machine."""
    totals = {"resnet18": [0, 0.0, 0, 0], "resnet18_dynamic": [0, 0.0, 0, 0]}
    for _ in range(slices):
        for model, total in totals.items():
            for i, value in enumerate(throughput(server, model, clients, seconds / slices, payload)):
                total[i] += value
    return {model: (requests / elapsed, rows / executions)
            for model, (requests, elapsed, rows, executions) in totals.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=pathlib.Path, default=ROOT / "build" / "dev")
    parser.add_argument("--triton", type=pathlib.Path, default=ROOT.parent / "shared" / "triton")
    parser.add_argument("--requests", type=int, default=40, help="sequential requests per overhead round")
    parser.add_argument("--rounds", type=int, default=3, help="overhead rounds (omnirt-run, then the server)")
    parser.add_argument("--seconds", type=float, default=20, help="throughput measuring time per mode")
    parser.add_argument("--slices", type=int, default=4, help="alternating slices the time is cut into")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    library = args.build / "lib" / "libtriton_omnirt.so"
    omnirt_run = args.build / "bin" / "omnirt-run"
    for path in (library, omnirt_run, args.triton / "bin" / "tritonserver"):
        if not path.exists():
            parser.error(f"{path} not found (build the tree; --triton names the Triton server)")

    work = pathlib.Path(tempfile.mkdtemp(prefix="omnirt_triton_bench_"))
    try:
        repository, model_file = write_repository(work)
        install_backend(library, work / "backends")
        payload = np.random.default_rng(0).standard_normal(INPUT_SHAPE, dtype=np.float32)
        env = dict(os.environ, OMNIRT_PLUGIN_PATH="", OMNIRT_CONFIG="")
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        alone, inside = [], []
        with TritonServer(str(args.triton), str(repository), str(work / "backends"), env=env,
                          log_path=str(work / "server.log"), args=["--model-control-mode=explicit"]) as server:
            client = server.client()
            for name in ("resnet18", "resnet18_dynamic"):
                reply = client.load(name)
                assert reply.status == 200, reply.error()
                for _ in range(5):  # warm up: libtorch's first runs profile and allocate
                    client.infer(name, [("INPUT__0", payload)], binary=True)
            for _ in range(args.rounds):
                alone.append(module_run_alone_ms(str(omnirt_run), model_file, args.requests, env))
                inside.append(execute_breakdown(client, "resnet18", args.requests, payload))
            client.close()
            rates = compare_throughput(server, args.clients, args.seconds, args.slices, payload)
            (plain, plain_batch), (dynamic, dynamic_batch) = rates["resnet18"], rates["resnet18_dynamic"]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    alone_ms = statistics.median(alone)
    stages = {stage: statistics.median(r[stage] for r in inside) for stage in inside[0]}
    # The overhead in the same Execute calls: every round's time outside
    # omnirt_module_run over the time inside it.
    outside = sum(r["compute_input"] + r["compute_output"] for r in inside)
    figures = {
        "execute_ms": stages["execute"],
        "compute_input_ms": stages["compute_input"],
        "compute_infer_ms": stages["compute_infer"],
        "compute_output_ms": stages["compute_output"],
        "execute_rounds_ms": [r["execute"] for r in inside],
        "overhead_vs_run_in_execute": outside / sum(r["compute_infer"] for r in inside),
        "module_run_alone_ms": alone_ms,
        "module_run_alone_rounds_ms": alone,
        "execute_vs_module_run_alone": stages["execute"] / alone_ms - 1,
        # Each round against the omnirt-run just before it, which saw the most similar machine.
        "execute_vs_module_run_alone_paired": statistics.median(
            r["execute"] / a - 1 for r, a in zip(inside, alone)),
        "throughput_without_batching_rps": plain,
        "throughput_dynamic_batching_rps": dynamic,
        "omp_wait_policy": env["OMP_WAIT_POLICY"],
        "mean_batch_without": plain_batch,
        "mean_batch_dynamic": dynamic_batch,
        "dynamic_over_without": dynamic / plain,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    rounds = lambda values: ", ".join(f"{v:.2f}" for v in values)  # noqa: E731
    print(f"resnet18, batch 1, cpu backend ({args.rounds} rounds of {args.requests} sequential requests; "
          f"OMP_WAIT_POLICY={figures['omp_wait_policy']})")
    print(f"  inside Execute:            {stages['execute']:8.3f} ms  (input {stages['compute_input']:.3f}, "
          f"omnirt_module_run {stages['compute_infer']:.3f}, output {stages['compute_output']:.3f}; "
          f"rounds {rounds(figures['execute_rounds_ms'])})")
    print(f"  backend overhead:          {100 * figures['overhead_vs_run_in_execute']:+8.2f} %  "
          "(Execute vs its own omnirt_module_run)")
    print(f"  omnirt_module_run alone:   {alone_ms:8.3f} ms  (omnirt-run means: {rounds(alone)})")
    print(f"  Execute vs run alone:      {100 * figures['execute_vs_module_run_alone']:+8.2f} %  "
          f"(median of per-round pairs: {100 * figures['execute_vs_module_run_alone_paired']:+.2f} %)")
    print(f"throughput, {args.clients} clients, one image per request, {args.seconds:.0f} s each "
          f"in {args.slices} alternating slices")
    print(f"  without dynamic batching:  {plain:8.2f} req/s  (mean batch {plain_batch:.2f})")
    print(f"  with dynamic batching:     {dynamic:8.2f} req/s  (mean batch {dynamic_batch:.2f})")
    print(f"  ratio:                     {figures['dynamic_over_without']:8.2f} x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
