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
    # libtorch's load is its own stage, not the compile tier's.
    load = r["timeline"][0]["engine_load"]
    expect(load is not None and load["ok"] and load["engine"].startswith("libtorch "), f"engine_load {load}")
    expect([s["name"] for s in r["stages"][:3]] == ["prepare_inputs", "engine_load", "wrap_module"],
           f"stages {r['stages']}")
    expect(r["runs"]["count"] == 4, f"runs {r['runs']}")
    expect(r["outputs"]["tensors"][0]["shape"] == [2, 8], f"outputs {r['outputs']}")
    got = np.load(os.path.join(out_dir, "output_0.npy"))
    want = np.load(os.path.join(models, "mlp.expected.npy"))
    expect(np.allclose(got, want, rtol=1e-4, atol=1e-5), "saved output differs from libtorch's")

# --no-compile: compile skipped with its reason, eager selected; the summary prints.
p = omnirt_run(mlp, "--input", "2x16:f32", "--iters", "2", "--no-compile")
expect(p.returncode == 0, f"--no-compile exited {p.returncode}", p)
expect("compile  UNAVAILABLE" in p.stdout and "skipped (--no-compile)" in p.stdout,
       "no compile-skipped reason in omnirt-run's words", p)
expect("OMNIRT_WRAP_DISABLE_COMPILE" not in p.stdout, "the summary names the API flag, not --no-compile", p)
expect("-> eager tier" in p.stdout and "latency" in p.stdout, "summary lacks eager/latency", p)

def run_model(name, *args):
    """Runs models/NAME.pt on its own input files, saving outputs; the JSON report."""
    inputs = sorted(f for f in os.listdir(models) if f.startswith(name + ".input"))
    saved = os.path.join(work, name + "_outputs")
    cmd = [os.path.join(models, name + ".pt")]
    for f in inputs:
        cmd += ["--input-file", os.path.join(models, f)]
    p = omnirt_run(*cmd, "--iters", "1", "--warmup", "0", "--json", "--save-outputs", saved, *args)
    expect(p.returncode == 0, f"{name} exited {p.returncode}", p)
    return (json.loads(p.stdout)["report"] if p.returncode == 0 else None), saved


def same(saved_file, expected_file, what):
    got = np.load(saved_file)
    want = np.load(os.path.join(models, expected_file))
    expect(got.dtype == want.dtype and got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-5),
           f"{what}: saved {got.dtype}{got.shape} differs from libtorch's {want.dtype}{want.shape}")


# bool in (numpy's b1) and out, saved as b1.
r, saved = run_model("mask")
if r:
    expect([t["dtype"] for t in r["outputs"]["tensors"]] == ["float32", "bool"], f"mask outputs {r['outputs']}")
    same(os.path.join(saved, "output_0.npy"), "mask.expected0.npy", "mask filled")
    same(os.path.join(saved, "output_1.npy"), "mask.expected1.npy", "mask negated (bool)")
p = omnirt_run(os.path.join(models, "mask.pt"), "--input", "2x3:f32", "--input", "2x3:bool", "--iters", "1")
expect(p.returncode == 0 and "output   2x3 bool on kDLCPU:0" in p.stdout, "random bool input", p)

# A dict: outputs in key order, named in the report and the summary, saved by key.
r, saved = run_model("heads")
if r:
    names = [t["name"] for t in r["outputs"]["tensors"]]
    expect(names == ["aux", "boxes", "logits"], f"heads names {names}")
    for key in names:
        same(os.path.join(saved, f"output_{key}.npy"), f"heads.expected.{key}.npy", f"heads {key}")
p = omnirt_run(os.path.join(models, "heads.pt"), "--input", "3:f32", "--iters", "1")
expect("output   'boxes' 3 float32" in p.stdout, "the summary names dict outputs", p)

# int, float and bool arguments from 0-d .npy inputs.
r, saved = run_model("scale")
if r:
    same(os.path.join(saved, "output_0.npy"), "scale.expected.npy", "scale")

# A strided output (a transpose) is saved as a compact copy.
r, saved = run_model("transposed")
if r:
    same(os.path.join(saved, "output_0.npy"), "transposed.expected.npy", "transposed")

# A model libtorch warns about on every run: the warning is in the report
# once, with its count, and not on stderr once per run.
p = omnirt_run(os.path.join(models, "warns.pt"), "--input", "3:f32", "--iters", "5", "--warmup", "0",
               "--no-compile")
expect(p.returncode == 0 and "was resized" not in p.stderr, "libtorch's warning flooded stderr", p)
expect("note     [cpu] libtorch: An output with one or more elements was resized" in p.stdout
       and "(5 times)" in p.stdout, "the summary shows the warning once, counted", p)

# Counts read as English.
p = omnirt_run(mlp, "--input", "2x16:f32", "--iters", "1", "--warmup", "0")
expect(p.returncode == 0 and "latency  1 iteration: median" in p.stdout, "'1 iteration'", p)

# Exit codes.
p = omnirt_run(mlp, "--input", "2x16:q7")
expect(p.returncode == 2, f"bad dtype exited {p.returncode}, wanted 2", p)
p = omnirt_run(mlp, "--input", "100000000000x100000:f32")
expect(p.returncode == 2 and "needs 40000000000000000 bytes" in p.stderr
       and "more than this machine's memory" in p.stderr, "a huge shape says how much it needs", p)
p = omnirt_run(mlp, "--input", "999999999999x999999999999x999999999999:f32")
expect(p.returncode == 2 and "does not fit in 64 bits" in p.stderr, "an overflowing shape says so", p)
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

# Inputs keep the command line's order, whichever option gives each.
matmul = os.path.join(models, "matmul.pt")
p = omnirt_run(matmul, "--input-file", os.path.join(models, "matmul.input0.npy"), "--input", "3x4:f32",
               "--iters", "1", "--warmup", "0", "--json")
expect(p.returncode == 0, f"--input-file before --input exited {p.returncode}", p)
if p.returncode == 0:
    shape = json.loads(p.stdout)["report"]["outputs"]["tensors"][0]["shape"]
    expect(shape == [2, 4], f"(2x3 file) @ (3x4 random) gave shape {shape}")

# An AOTInductor package (format told from its entries): the cpu backend
# cannot load it here and the report says why.
import zipfile
package = os.path.join(work, "stub.pt2")
with zipfile.ZipFile(package, "w") as z:
    z.writestr("stub/archive_format", "pt2")
    z.writestr("stub/data/aotinductor/model/stub.cpp", "")
p = omnirt_run(package, "--input", "2x16", "--json")
expect(p.returncode == 1, f"AOTInductor package on cpu exited {p.returncode}, wanted 1", p)
if p.returncode == 1:
    errors = " ".join(e["message"] for e in json.loads(p.stdout)["report"]["errors"])
    expect("cannot load module format 'aoti' here" in errors and "AOTInductor" in errors,
           f"no reason for aoti on cpu: {errors}", p)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
