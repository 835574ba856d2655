#!/usr/bin/python3
"""omnirt-run reports completed work: on the `late` fakes (fake_plugin.c,
FAKE_MODULES), whose runs return at once and complete RUN_MS later on their
stream, every timed figure is at least RUN_MS. With ABI 1.1's default stream the
device time is RUN_MS (events around the run); the fake built against the
frozen 1.0 headers has no handle for NULL, so omnirt-run still waits (with
device_synchronize) but reports no device time.

usage: check_run_timing.py OMNIRT_RUN LATE_PLUGIN V1_0_LATE_PLUGIN
"""
import json
import os
import subprocess
import sys
import tempfile
import time

run, late, late_v1_0 = sys.argv[1:4]
RUN_MS = 40
SLACK_MS = 50  # host time between the start event and the run, on a loaded machine
ITERS, WARMUP = 4, 1
failures = []


def expect(cond, what, p=None):
    if not cond:
        failures.append(what + ("" if p is None else f"\n  stdout: {p.stdout[-3000:]}\n  stderr: {p.stderr[-2000:]}"))


def omnirt_run(plugin, model, *extra):
    cmd = [run, model, "--format", "fake", "--backend", "late", "--plugin-dir", plugin, "--input", "2x3:f32",
           "--warmup", str(WARMUP), "--iters", str(ITERS), *extra]
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
                       env={**os.environ, "OMNIRT_PLUGIN_PATH": ""})
    return p, (time.monotonic() - start) * 1e3


with tempfile.TemporaryDirectory() as work:
    model = os.path.join(work, "late.fake")
    with open(model, "w") as f:
        f.write(f"run_ms={RUN_MS}")

    for plugin, abi in ((late, "1.1"), (late_v1_0, "1.0")):
        p, took_ms = omnirt_run(plugin, model, "--json")
        expect(p.returncode == 0, f"ABI {abi}: omnirt-run exited {p.returncode}", p)
        if p.returncode != 0:
            continue
        doc = json.loads(p.stdout)
        lat, dev, report = doc["latency_ms"], doc["device_ms"], doc["report"]
        expect(took_ms >= (ITERS + WARMUP) * RUN_MS, f"ABI {abi}: the whole process took {took_ms:.1f} ms")
        expect(lat["iterations"] == ITERS and lat["min"] >= RUN_MS,
               f"ABI {abi}: wall time {lat} is not the completed runs' (>= {RUN_MS} ms)")
        expect(report["schema_version"] == 2 and report["runs"]["count"] == ITERS + WARMUP,
               f"ABI {abi}: report {report['schema_version']} {report['runs']}")
        if abi == "1.1":
            expect(dev is not None and dev["iterations"] == ITERS and
                   RUN_MS <= dev["min"] and dev["max"] < RUN_MS + SLACK_MS,
                   f"ABI 1.1: device time {dev} is not ~{RUN_MS} ms")
        else:
            expect(dev is None, f"ABI 1.0: device time {dev} without a default-stream handle")

    # The summary table carries both figures.
    p, _ = omnirt_run(late, model)
    expect(p.returncode == 0 and "wall time to completion" in p.stdout and "between events" in p.stdout,
           "the summary lacks wall or device time", p)
    p, _ = omnirt_run(late_v1_0, model)
    expect(p.returncode == 0 and "device   not timed" in p.stdout, "the 1.0 summary does not say device time is missing", p)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
