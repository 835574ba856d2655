"""The omnirt Triton backend in a real Triton server, over KServe v2 HTTP.

Writes a model repository (TorchScript models made here with libtorch, random
weights), installs libtorch_omnirt.so as <tmp>/backends/omnirt/, starts
tritonserver on a free loopback port in explicit model-control mode and checks
outputs against libtorch, batching, statistics, errors, load failures and
load/unload leaks. The server is stopped and the temp folder removed at the
end, also on failure.

Run by CTest (test triton.server) with:
  OMNIRT_TRITON_ROOT       the Triton build (bin/tritonserver)
  OMNIRT_TRITON_BACKEND    the built libtriton_omnirt.so
  OMNIRT_PROBE             omnirt-probe of the same build (for the reasons it reports)
  OMNIRT_FAKE_DEVICE_PLUGIN  the wrap tests' "wrapdev" fake backend: device memory
                           (kDLExtDev) on any machine, modules of format "fake"
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
import time

import numpy as np
import pytest
import torch

from triton_harness import TritonServer, install_backend

TRITON_ROOT = os.environ.get("OMNIRT_TRITON_ROOT", "")
BACKEND_LIB = os.environ.get("OMNIRT_TRITON_BACKEND", "")
PROBE = os.environ.get("OMNIRT_PROBE", "")
FAKE_DEVICE_PLUGIN = os.environ.get("OMNIRT_FAKE_DEVICE_PLUGIN", "")

if not os.access(os.path.join(TRITON_ROOT, "bin", "tritonserver"), os.X_OK):
    pytest.skip(f"Triton Inference Server not found at '{TRITON_ROOT}' (bin/tritonserver): put the "
                "Triton 2.60 build at ../shared/triton or configure with -DOMNIRT_TRITON_ROOT=DIR, and "
                "install its runtime packages (tools/dev/install-deps.sh)", allow_module_level=True)

torch.manual_seed(0)


# ---------------------------------------------------------------------------
# Models, each with its config.pbtxt.
# ---------------------------------------------------------------------------

class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))

    def forward(self, x):
        return self.net(x)


class ResidualBlock(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(channels)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(channels)
        for bn in (self.bn1, self.bn2):  # non-trivial statistics, so folding them matters
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class ConvNet(torch.nn.Module):
    """resnet-style: stem, one residual block, pooling, classifier."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                                        torch.nn.ReLU())
        self.block = ResidualBlock(8)
        self.head = torch.nn.Linear(8, 10)

    def forward(self, x):
        x = self.block(self.stem(x))
        return self.head(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(x, 1), 1))


class TwoInputs(torch.nn.Module):
    def forward(self, lhs, rhs):
        return lhs * rhs.to(torch.float32) + 1.0, rhs + 1


class Difference(torch.nn.Module):
    """Argument order matters: served from a PyTorch-backend repository."""

    def forward(self, x, y):
        return x - y, x * y


class Dtypes(torch.nn.Module):
    def forward(self, f16, bf16, f64, i8, i16, i32, u8):
        return f16 * 2, bf16 * 2, f64 * 2, i8 + 1, i16 + 1, i32 + 1, u8 + 1


def tensor(name, datatype, dims):
    return f'{{ name: "{name}" data_type: TYPE_{datatype} dims: [ {", ".join(map(str, dims))} ] }}'


def config(name, inputs, outputs, max_batch_size=0, extra="", backend="omnirt"):
    return textwrap.dedent(f"""\
        name: "{name}"
        backend: "{backend}"
        max_batch_size: {max_batch_size}
        input [ {", ".join(tensor(*i) for i in inputs)} ]
        output [ {", ".join(tensor(*o) for o in outputs)} ]
        """) + extra


def parameters(**values):
    return "".join(f'parameters {{ key: "{k}" value: {{ string_value: "{v}" }} }}\n' for k, v in values.items())


DTYPE_NAMES = [("f16", "FP16"), ("bf16", "BF16"), ("f64", "FP64"), ("i8", "INT8"), ("i16", "INT16"),
               ("i32", "INT32"), ("u8", "UINT8")]

# A config written for Triton's own PyTorch backend, unchanged but for the
# backend line: INPUT__<i>/OUTPUT__<i> naming (listed out of order here),
# the PyTorch backend's parameters, two CPU instances, dynamic batching.
PYTORCH_STYLE = textwrap.dedent("""\
    name: "pytorch_style"
    backend: "pytorch"
    max_batch_size: 4
    default_model_filename: "model.pt"
    input [
      { name: "INPUT__1" data_type: TYPE_FP32 dims: [ 5 ] },
      { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 5 ] }
    ]
    output [
      { name: "OUTPUT__1" data_type: TYPE_FP32 dims: [ 5 ] },
      { name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 5 ] }
    ]
    instance_group [ { count: 2 kind: KIND_CPU } ]
    dynamic_batching { }
    parameters { key: "INFERENCE_MODE" value: { string_value: "true" } }
    parameters { key: "DISABLE_OPTIMIZED_EXECUTION" value: { string_value: "true" } }
    """)


def probe_backends():
    """The backends omnirt-probe finds with this build's plugins (as the server's host does)."""
    env = dict(os.environ, OMNIRT_PLUGIN_PATH="", OMNIRT_CONFIG="")
    report = json.loads(subprocess.run([PROBE, "--json"], capture_output=True, text=True, env=env,
                                       timeout=60).stdout)
    return report["backends"]


def unavailable_backend(backends):
    """(name, reason) of a backend found but unavailable here, cuda first
    (no GPU), or None."""
    unavailable = sorted((b["name"] != "cuda", b["name"], b["unavailable_reason"])
                         for b in backends if not b["available"])
    return unavailable[0][1:] if unavailable else None


def device_backend(backends):
    """Name of an available backend with its own device memory that runs
    modules (cuda on a GPU machine), or None."""
    for b in backends:
        caps = b["capabilities"]
        if b["available"] and caps["dl_device_type"] not in ("cpu", "cuda_host") and "modules" in caps["features"]:
            return b["name"]
    return None


def write_repository(root):
    """Writes every model; returns {name: scripted module} for the references."""
    models = {
        "mlp": (Mlp(), config("mlp", [("x", "FP32", [-1, -1])], [("y", "FP32", [-1, 8])],
                              extra=parameters(compile="false", omnirt_backend="cpu"))),
        "convnet": (ConvNet(), config("convnet", [("INPUT__0", "FP32", [3, 16, 16])],
                                      [("OUTPUT__0", "FP32", [10])], max_batch_size=4,
                                      extra="instance_group [ { count: 2 kind: KIND_CPU } ]\n")),
        "two_inputs": (TwoInputs(), config("two_inputs", [("lhs", "FP32", [4]), ("rhs", "INT64", [4])],
                                           [("product", "FP32", [4]), ("next", "INT64", [4])],
                                           max_batch_size=8, extra=parameters(tag="pairs"))),
        "dtypes": (Dtypes(), config("dtypes", [(n, t, [3]) for n, t in DTYPE_NAMES],
                                    [(n + "_out", t, [3]) for n, t in DTYPE_NAMES])),
        "pytorch_style": (Difference(), PYTORCH_STYLE.replace('backend: "pytorch"', 'backend: "omnirt"')),
        "batched": (Mlp(), config("batched", [("INPUT__0", "FP32", [16])], [("OUTPUT__0", "FP32", [8])],
                                  max_batch_size=16,
                                  extra="dynamic_batching { max_queue_delay_microseconds: 20000 }\n")),
        # 4 MiB of weights: what a module leaked by unload would leave behind.
        "wide": (torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 8)),
                 config("wide", [("INPUT__0", "FP32", [1024])], [("OUTPUT__0", "FP32", [8])], max_batch_size=4)),
    }
    scripted = {}
    for name, (module, text) in models.items():
        scripted[name] = torch.jit.script(module.eval())
        os.makedirs(os.path.join(root, name, "1"))
        scripted[name].save(os.path.join(root, name, "1", "model.pt"))
        with open(os.path.join(root, name, "config.pbtxt"), "w") as f:
            f.write(text)
    # On the fake device backend (its modules double one float32 tensor).
    os.makedirs(os.path.join(root, "fake_device", "1"))
    with open(os.path.join(root, "fake_device", "1", "model.pt"), "w") as f:
        f.write("fake: compile=ok")
    with open(os.path.join(root, "fake_device", "config.pbtxt"), "w") as f:
        f.write(config("fake_device", [("INPUT__0", "FP32", [3])], [("OUTPUT__0", "FP32", [3])], max_batch_size=4,
                       extra=parameters(omnirt_backend="wrapdev", module_format="fake") +
                       "instance_group [ { kind: KIND_MODEL } ]\n"))
    # Every tier fails: the model file is not TorchScript.
    os.makedirs(os.path.join(root, "broken", "1"))
    with open(os.path.join(root, "broken", "1", "model.pt"), "wb") as f:
        f.write(b"this is not a TorchScript archive")
    with open(os.path.join(root, "broken", "config.pbtxt"), "w") as f:
        f.write(config("broken", [("INPUT__0", "FP32", [4])], [("OUTPUT__0", "FP32", [4])]))
    return scripted


def write_pinned_model(root, name, backend, instances=""):
    """A working model pinned to OmniRT backend `backend`."""
    os.makedirs(os.path.join(root, name, "1"))
    torch.jit.script(Mlp().eval()).save(os.path.join(root, name, "1", "model.pt"))
    with open(os.path.join(root, name, "config.pbtxt"), "w") as f:
        f.write(config(name, [("INPUT__0", "FP32", [16])], [("OUTPUT__0", "FP32", [8])],
                       max_batch_size=4, extra=parameters(omnirt_backend=backend) + instances))


# ---------------------------------------------------------------------------
# The server, shared by the tests of this file.
# ---------------------------------------------------------------------------

SERVED = ["mlp", "convnet", "two_inputs", "dtypes", "pytorch_style", "batched", "wide", "fake_device"]


class Deployment:
    def __init__(self, server, scripted, loads, unavailable, device):
        self.server = server
        self.scripted = scripted
        self.loads = loads  # model name -> Response of its load call
        self.unavailable = unavailable  # (backend, reason) the "pinned" model asks for
        self.device = device  # device backend the "on_device" model runs on
        self.client = server.client()

    def reference(self, model, *inputs):
        with torch.no_grad():
            result = self.scripted[model](*[torch.from_numpy(np.ascontiguousarray(x)) for x in inputs])
        return [t.numpy() for t in (result if isinstance(result, tuple) else (result,))]


@pytest.fixture(scope="module")
def deployment():
    work = tempfile.mkdtemp(prefix="omnirt_triton_")
    try:
        repository = os.path.join(work, "models")
        backends = os.path.join(work, "backends")
        os.makedirs(repository)
        install_backend(BACKEND_LIB, backends)
        scripted = write_repository(repository)
        found = probe_backends()
        unavailable, device = unavailable_backend(found), device_backend(found)
        extra = []
        if unavailable:
            write_pinned_model(repository, "pinned", unavailable[0])
            extra.append("pinned")
        if device:  # KIND_MODEL: device 0 of the backend (this Triton build has no GPU support)
            write_pinned_model(repository, "on_device", device, "instance_group [ { kind: KIND_MODEL } ]\n")
            extra.append("on_device")
        plugin_dir = os.path.join(os.path.dirname(os.path.realpath(BACKEND_LIB)), "omnirt", "plugins")
        # A fixed mmap threshold returns freed weights to the system at once,
        # so that RSS tells a leak from glibc's caching (the load/unload test).
        env = dict(os.environ, OMNIRT_PLUGIN_PATH="", OMNIRT_CONFIG="", MALLOC_MMAP_THRESHOLD_="131072")
        with TritonServer(TRITON_ROOT, repository, backends, env=env, log_path=os.path.join(work, "server.log"),
                          args=["--model-control-mode=explicit",
                                f"--backend-config=omnirt,plugin-dirs={plugin_dir}:{FAKE_DEVICE_PLUGIN}",
                                "--backend-config=omnirt,ignore-environment=true"]) as server:
            client = server.client()
            loads = {name: client.load(name) for name in SERVED + ["broken"] + extra}
            client.close()
            yield Deployment(server, scripted, loads, unavailable, device)
            print(server.log_tail(60))  # shown by pytest when a test failed
    finally:
        shutil.rmtree(work, ignore_errors=True)


def stats_after(client, model, before, requests, timeout=10):
    """The model's statistics once `requests` more have succeeded than in
    `before`: a backend reports a request's statistics after sending its
    response, so the last ones may lag the client by a moment."""
    deadline = time.monotonic() + timeout
    while True:
        stats = client.stats(model)
        done = stats["inference_stats"]["success"]["count"] - before["inference_stats"]["success"]["count"]
        if done >= requests or time.monotonic() > deadline:
            return stats
        time.sleep(0.05)


def assert_close(actual, expected, what):
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5, err_msg=what)


# ---------------------------------------------------------------------------
# Serving.
# ---------------------------------------------------------------------------

def test_models_load_and_the_timeline_is_logged(deployment):
    for name in SERVED:
        reply = deployment.loads[name]
        assert reply.status == 200, f"{name}: {reply.error()}\n{deployment.server.log_tail()}"
    log = deployment.server.log()
    assert re.search(r"omnirt: backend cpu \S+ \(.*\): available", log)
    # mlp has compile off: the timeline says so and eager is selected.
    assert re.search(r"model 'mlp' instance '\w+' runs on OmniRT cpu:0 \(torchscript, tag '', compile off\); "
                     r"wrap timeline: "
                     r"compile: \w+, [\d.]+ ms, compile disabled by OMNIRT_WRAP_DISABLE_COMPILE.*eager: ok, selected",
                     log), log
    assert re.search(r"model 'convnet' instance .* compile: ok, selected", log)
    assert len(re.findall(r"model 'convnet' instance '\w+' runs on", log)) == 2  # one module per instance
    assert re.search(r"model 'two_inputs' instance .*\(torchscript, tag 'pairs', compile on\)", log)


def test_mlp_json_variable_shape(deployment):
    for rows in (1, 3):
        x = np.random.randn(rows, 16).astype(np.float32)
        reply, out = deployment.client.infer("mlp", [("x", x)])
        assert reply.status == 200, reply.error()
        assert out["y"].shape == (rows, 8)
        assert_close(out["y"], deployment.reference("mlp", x)[0], "mlp")


def test_convnet_batch_binary(deployment):
    x = np.random.randn(3, 3, 16, 16).astype(np.float32)
    reply, out = deployment.client.infer("convnet", [("INPUT__0", x)], binary=True)
    assert reply.status == 200, reply.error()
    assert_close(out["OUTPUT__0"], deployment.reference("convnet", x)[0], "convnet")


def test_two_inputs_and_requested_output(deployment):
    lhs = np.random.randn(2, 4).astype(np.float32)
    rhs = np.arange(8, dtype=np.int64).reshape(2, 4)
    expected = deployment.reference("two_inputs", lhs, rhs)
    reply, out = deployment.client.infer("two_inputs", [("lhs", lhs), ("rhs", rhs)])
    assert reply.status == 200, reply.error()
    assert_close(out["product"], expected[0], "product")
    np.testing.assert_array_equal(out["next"], expected[1])
    reply, out = deployment.client.infer("two_inputs", [("rhs", rhs), ("lhs", lhs)], outputs=["next"])
    assert reply.status == 200, reply.error()
    assert list(out) == ["next"]
    np.testing.assert_array_equal(out["next"], expected[1])


def test_every_engine_dtype(deployment):
    arrays = {
        "f16": np.array([0.5, -1.25, 3.0], np.float16),
        "bf16": torch.tensor([0.5, -1.25, 3.0], dtype=torch.bfloat16).view(torch.int16).numpy().view(np.uint16),
        "f64": np.array([0.1, -2.5, 1e10]),
        "i8": np.array([-128, 0, 126], np.int8),
        "i16": np.array([-30000, 0, 30000], np.int16),
        "i32": np.array([-7, 0, 2**30], np.int32),
        "u8": np.array([0, 100, 254], np.uint8),
    }
    inputs = [(n, arrays[n], t) for n, t in DTYPE_NAMES]
    reply, out = deployment.client.infer("dtypes", inputs, binary=True)
    assert reply.status == 200, reply.error()
    bf16 = torch.from_numpy(arrays["bf16"].view(np.int16)).view(torch.bfloat16)
    expected = deployment.reference("dtypes", arrays["f16"], np.zeros(3), arrays["f64"], arrays["i8"],
                                    arrays["i16"], arrays["i32"], arrays["u8"])
    expected[1] = (bf16 * 2).view(torch.int16).numpy().view(np.uint16)
    for (name, datatype), want in zip(DTYPE_NAMES, expected):
        got = out[name + "_out"]
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=f"{name} ({datatype})")


def test_pytorch_backend_repository_serves_unchanged(deployment):
    x = np.random.randn(2, 5).astype(np.float32)
    y = np.random.randn(2, 5).astype(np.float32)
    reply, out = deployment.client.infer("pytorch_style", [("INPUT__1", y), ("INPUT__0", x)])
    assert reply.status == 200, reply.error()
    assert_close(out["OUTPUT__0"], x - y, "OUTPUT__0 is forward's first output, x - y")
    assert_close(out["OUTPUT__1"], x * y, "OUTPUT__1")
    log = deployment.server.log()
    assert "model 'pytorch_style': parameters not used by the omnirt backend: " in log
    assert len(re.findall(r"model 'pytorch_style' instance '\w+' runs on", log)) == 2


def test_device_memory_backend_gets_inputs_and_gives_outputs_through_copies(deployment):
    x = np.random.randn(3, 3).astype(np.float32)
    reply, out = deployment.client.infer("fake_device", [("INPUT__0", x)], binary=True)
    assert reply.status == 200, reply.error()
    np.testing.assert_array_equal(out["OUTPUT__0"], 2 * x)
    assert re.search(r"model 'fake_device' instance '\w+' runs on OmniRT wrapdev:0 \(fake, ", deployment.server.log())


def test_device_backend_stages_through_host_memory(deployment):
    if deployment.device is None:
        pytest.skip("no available OmniRT backend with its own device memory here (cuda needs a GPU)")
    reply = deployment.loads["on_device"]
    assert reply.status == 200, reply.error()
    assert re.search(rf"model 'on_device' instance '\w+' runs on OmniRT {deployment.device}:0", deployment.server.log())
    reference = torch.jit.load(os.path.join(deployment.server.repository, "on_device", "1", "model.pt"))
    for rows in (1, 4):
        x = np.random.randn(rows, 16).astype(np.float32)
        reply, out = deployment.client.infer("on_device", [("INPUT__0", x)], binary=True)
        assert reply.status == 200, reply.error()
        with torch.no_grad():
            assert_close(out["OUTPUT__0"], reference(torch.from_numpy(x)).numpy(), f"on {deployment.device}")


# ---------------------------------------------------------------------------
# Batching and statistics.
# ---------------------------------------------------------------------------

def test_concurrent_clients_with_dynamic_batching(deployment):
    clients, per_client = 8, 200
    inputs = np.random.randn(clients, per_client, 1, 16).astype(np.float32)
    expected = deployment.reference("batched", inputs.reshape(-1, 16))[0].reshape(clients, per_client, 1, 8)
    before = deployment.client.stats("batched")

    def run(c):
        client = deployment.server.client()
        try:
            for i in range(per_client):
                reply, out = client.infer("batched", [("INPUT__0", inputs[c, i])], binary=(i % 2 == 0))
                assert reply.status == 200, reply.error()
                assert_close(out["OUTPUT__0"], expected[c, i], f"client {c} request {i}")
        finally:
            client.close()

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(run, c) for c in range(clients)]:
            future.result(timeout=300)
    requests = clients * per_client
    after = stats_after(deployment.client, "batched", before, requests)
    assert after["inference_count"] - before["inference_count"] == requests
    assert after["inference_stats"]["success"]["count"] - before["inference_stats"]["success"]["count"] == requests
    executions = after["execution_count"] - before["execution_count"]
    assert executions < requests, "no request was batched with another"
    batched = {b["batch_size"]: b["compute_infer"]["count"] for b in after["batch_stats"]}
    assert any(size > 1 and count > 0 for size, count in batched.items()), batched
    assert sum(size * count for size, count in batched.items()) >= requests


def test_statistics_count_requests_and_rows(deployment):
    before = deployment.client.stats("convnet")
    for rows in (1, 2, 4):
        reply, _ = deployment.client.infer("convnet", [("INPUT__0", np.zeros((rows, 3, 16, 16), np.float32))],
                                           binary=True)
        assert reply.status == 200, reply.error()
    after = stats_after(deployment.client, "convnet", before, 3)
    assert after["inference_count"] - before["inference_count"] == 7  # rows
    assert after["execution_count"] - before["execution_count"] == 3
    for stage in ("success", "compute_input", "compute_infer", "compute_output"):
        assert after["inference_stats"][stage]["count"] - before["inference_stats"][stage]["count"] == 3, stage
    assert after["inference_stats"]["compute_infer"]["ns"] > before["inference_stats"]["compute_infer"]["ns"]
    sizes = {b["batch_size"] for b in after["batch_stats"]}
    assert {1, 2, 4} <= sizes


# ---------------------------------------------------------------------------
# Bad requests and models that cannot load.
# ---------------------------------------------------------------------------

def test_bad_requests_get_4xx_naming_the_problem(deployment):
    client = deployment.client
    x = np.zeros((1, 16), np.float32)
    cases = [
        ("wrong shape", "batched", [("INPUT__0", np.zeros((1, 15), np.float32))], "INPUT__0"),
        ("wrong dtype", "batched", [("INPUT__0", x.astype(np.float64))], "INPUT__0"),
        ("missing input", "two_inputs", [("lhs", np.zeros((1, 4), np.float32))], "rhs"),
        ("unknown input", "batched", [("INPUT__0", x), ("extra", x)], "extra"),
        ("unknown model", "no_such_model", [("INPUT__0", x)], "no_such_model"),
        # dims [-1, -1] let Triton pass it; the module itself refuses 15 features.
        ("shape the module refuses", "mlp", [("x", np.zeros((2, 15), np.float32))], "mlp"),
    ]
    for what, model, inputs, named in cases:
        reply, _ = client.infer(model, inputs)
        assert 400 <= reply.status < 500, f"{what}: HTTP {reply.status} {reply.error()}"
        assert named in reply.error(), f"{what}: {reply.error()}"
    reply, _ = client.infer("batched", [("INPUT__0", x)], outputs=["NOPE"])
    assert 400 <= reply.status < 500 and "NOPE" in reply.error(), reply.error()
    # The server is still up and serving.
    reply, out = client.infer("batched", [("INPUT__0", x)])
    assert reply.status == 200, reply.error()
    assert_close(out["OUTPUT__0"], deployment.reference("batched", x)[0], "after bad requests")


def test_model_whose_every_tier_fails_does_not_load(deployment):
    reply = deployment.loads["broken"]
    assert 400 <= reply.status < 500
    reason = deployment.client.index()["broken"]
    assert reason["state"] == "UNAVAILABLE"
    for text in (reply.error(), reason["reason"], deployment.server.log()):
        assert "OmniRT could not wrap" in text and "not a loadable TorchScript module" in text, text


def test_model_on_an_unavailable_backend_does_not_load_and_says_why(deployment):
    if deployment.unavailable is None:
        pytest.skip("omnirt-probe reports every backend available here")
    name, why = deployment.unavailable
    reply = deployment.loads["pinned"]
    assert 400 <= reply.status < 500
    entry = deployment.client.index()["pinned"]
    assert entry["state"] == "UNAVAILABLE"
    for text in (reply.error(), entry["reason"], deployment.server.log()):
        assert f"OmniRT backend '{name}' cannot be used: UNAVAILABLE" in text, text
        assert why in text, f"omnirt-probe's reason '{why}' not in: {text}"
    assert deployment.client.index()["mlp"]["state"] == "READY"  # the others serve


# ---------------------------------------------------------------------------
# Explicit load, unload and reload (last: it reloads models).
# ---------------------------------------------------------------------------

def test_load_unload_reload_leaks_nothing(deployment):
    server, client = deployment.server, deployment.client
    x = np.random.randn(1, 1024).astype(np.float32)
    expected = deployment.reference("wide", x)[0]

    def cycle():
        assert client.unload("wide").status == 200
        assert client.load("wide").status == 200
        reply, out = client.infer("wide", [("INPUT__0", x)], binary=True)
        assert reply.status == 200, reply.error()
        assert_close(out["OUTPUT__0"], expected, "after reload")

    for _ in range(3):  # settle allocator pools and libtorch's caches
        cycle()
    fds, rss_kb = server.open_fds(), server.status("VmRSS")
    cycles = 12
    for _ in range(cycles):
        cycle()
    grown_kb = server.status("VmRSS") - rss_kb
    assert server.open_fds() <= fds, "file descriptors leaked by load/unload"
    # A module left behind keeps its 4 MiB of weights, twice (frozen and not):
    # 8.5 MB a cycle, against ~10 kB without a leak.
    assert grown_kb < cycles * 1024, f"RSS grew by {grown_kb} kB over {cycles} load/unload cycles"

    # Reload in place; unload and load again with nothing else loaded.
    assert client.load("wide").status == 200
    for name in SERVED:
        assert client.unload(name).status == 200
    assert client.load("mlp").status == 200
    y = np.random.randn(2, 16).astype(np.float32)
    reply, out = client.infer("mlp", [("x", y)])
    assert reply.status == 200, reply.error()
    assert_close(out["y"], deployment.reference("mlp", y)[0], "after unloading everything")
    # One OmniRT host per server process (Triton keeps a backend loaded).
    assert len(re.findall(r"omnirt: OmniRT \S+ host with", server.log())) == 1
