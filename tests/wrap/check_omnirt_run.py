#!/usr/bin/python3
"""End-to-end checks of omnirt-run on the cpu backend with the wrap test
models: exit codes, the --json document, and saved outputs equal to
libtorch's own (same tolerance as wrap_cpu_test).

usage: check_omnirt_run.py OMNIRT_RUN CPU_PLUGIN MODELS_DIR WORK_DIR
Exits 77 (skipped) when python3-torch could not make the models.
"""
import json
import os
import subprocess
import sys

import numpy as np

run, plugin, models, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
SKIP = 77
if os.path.exists(os.path.join(models, "unavailable.txt")):
    print(open(os.path.join(models, "unavailable.txt")).read())
    sys.exit(SKIP)

failures = []


def omnirt_run(*args):
    cmd = [run, "--backend", "cpu", "--plugin-dir", plugin, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "OMNIRT_PLUGIN_PATH": ""})
    return p


def expect(cond, what, p=None):
    if not cond:
        failures.append(what + ("" if p is None else f"\n  stdout: {p.stdout[-2000:]}\n  stderr: {p.stderr[-2000:]}"))


mlp = os.path.join(models, "mlp.pt")
out_dir = os.path.join(work, "outputs")

# A good run from the model's own input file: JSON, timeline, saved outputs.
p = omnirt_run(mlp, "--input-file", os.path.join(models, "mlp.input0.npy"), "--iters", "3",
               "--warmup", "1", "--json", "--save-outputs", out_dir)
expect(p.returncode == 0, f"good run exited {p.returncode}", p)
if p.returncode == 0:
    doc = json.loads(p.stdout)
    lat, dev = doc["latency_ms"], doc["device_ms"]
    expect(lat["iterations"] == 3 and lat["median"] > 0 and lat["p90"] >= lat["median"], f"latency {lat}")
    # The cpu backend times events on its default stream: runs there are
    # synchronous, so device time is the run itself, within its wall time.
    expect(dev is not None and dev["iterations"] == 3 and 0 < dev["median"], f"device time {dev}")
    r = doc["report"]
    expect(r["schema_version"] == 2 and r["ok"] is True, "report not ok", p)
    expect(r["timeline"][0]["selected_tier"] == "compile", f"selected {r['timeline'][0]['selected_tier']}")
    expect(r["runs"]["count"] == 4, f"runs {r['runs']}")
    expect(r["outputs"]["tensors"][0]["shape"] == [2, 8], f"outputs {r['outputs']}")
    got = np.load(os.path.join(out_dir, "output_0.npy"))
    want = np.load(os.path.join(models, "mlp.expected.npy"))
    expect(np.allclose(got, want, rtol=1e-4, atol=1e-5), "saved output differs from libtorch's")

# --no-compile: compile skipped with its reason, eager selected; the summary prints.
p = omnirt_run(mlp, "--input", "2x16:f32", "--iters", "2", "--no-compile")
expect(p.returncode == 0, f"--no-compile exited {p.returncode}", p)
expect("compile disabled by OMNIRT_WRAP_DISABLE_COMPILE" in p.stdout, "no compile-disabled reason", p)
expect("-> eager tier" in p.stdout and "latency" in p.stdout, "summary lacks eager/latency", p)

# Exit codes.
p = omnirt_run(mlp, "--input", "2x16:q7")
expect(p.returncode == 2, f"bad dtype exited {p.returncode}, wanted 2", p)
p = omnirt_run(mlp, "--input", "2x16", "--backend", "no_such_backend")
expect(p.returncode == 3, f"unknown backend exited {p.returncode}, wanted 3", p)
p = omnirt_run(mlp, "--input-file", os.path.join(models, "mlp.pt"))
expect(p.returncode == 4, f"non-npy input exited {p.returncode}, wanted 4", p)
truncated = os.path.join(work, "truncated.pt")
with open(mlp, "rb") as f, open(truncated, "wb") as g:
    g.write(f.read()[:1000])
p = omnirt_run(truncated, "--input", "2x16", "--json")
expect(p.returncode == 1, f"truncated model exited {p.returncode}, wanted 1", p)
if p.returncode == 1:
    r = json.loads(p.stdout)["report"]
    expect(not r["ok"] and r["errors"] and r["timeline"][0]["selected_tier"] is None, "failure report", p)
p = omnirt_run(mlp, "--input", "2x15")  # wrong feature count: the run fails
expect(p.returncode == 1, f"wrong input shape exited {p.returncode}, wanted 1", p)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
