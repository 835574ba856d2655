"""Threads on one module, the GIL released while it runs, and lifetimes:
whatever Python frees first, nothing that is still held breaks."""
import gc
import threading
import time

import pytest

torch = pytest.importorskip("torch")
import _models  # noqa: E402
import omnirt  # noqa: E402
from conftest import synchronize, torch_device  # noqa: E402

BOUND_S = 60  # every wait here is bounded


def test_two_threads_run_one_module(backend):
    model = _models.make(_models.Mlp)
    m = backend.wrap_module(model, tag="mlp")
    device = torch_device(backend)
    inputs = [torch.randn(4, 32, generator=torch.Generator().manual_seed(i)) for i in range(2)]
    with torch.no_grad():
        expected = [model(x) for x in inputs]
    failures = []

    def work(i):
        try:
            x = inputs[i].to(device)
            for _ in range(200):
                y = m(x)
                if device != "cpu":
                    torch.cuda.synchronize()
                torch.testing.assert_close(y.cpu(), expected[i], rtol=1e-4, atol=1e-4)
        except Exception as e:  # reported below, with the thread that saw it
            failures.append((i, e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(BOUND_S)
        assert not t.is_alive()
    assert not failures


def test_gil_is_released_while_a_module_runs(rt):
    """Python keeps running in this thread while the module computes in another."""
    class Slow(torch.nn.Module):
        def forward(self, x):
            for _ in range(12):
                x = torch.tanh(x @ x)
            return x

    m = rt.backend("cpu").wrap_module(Slow(), tag="slow", compile=False)
    x = torch.randn(384, 384) / 20
    m(x)  # warm up: the engine loads libtorch on first use
    window = {}

    def run():
        window["start"] = time.monotonic()
        m(x)
        window["end"] = time.monotonic()

    t = threading.Thread(target=run)
    ticks = []
    t.start()
    deadline = time.monotonic() + BOUND_S
    while t.is_alive() and time.monotonic() < deadline:
        ticks.append(time.monotonic())
    t.join(BOUND_S)
    start, end = window["start"], window["end"]
    assert end - start > 0.05, "the module ran too briefly to tell"
    inside = [s for s in ticks if start + 0.01 < s < end - 0.01]
    # Holding the GIL, the call would let this loop run not once in its middle.
    assert len(inside) > 100, f"{len(inside)} ticks while the module ran for {end - start:.3f} s"


def test_outputs_outlive_runtime_backend_and_module(backend):
    name = backend.name
    device = torch_device(backend)
    with omnirt.Runtime(ignore_environment=True) as rt:
        b = rt.backend(name)
        m = b.wrap_module(_models.make(_models.Mlp), tag="mlp")
        b.register_override("kept", lambda x: x * 3)
        o = b.wrap_module(b"unused", tag="kept")
        y = m(torch.ones(2, 32, device=device))
        z = o(torch.ones(2, device=device))
        expected = y.clone()
    del rt, b, m, o
    gc.collect()
    synchronize_all(device)
    torch.testing.assert_close(y, expected)
    torch.testing.assert_close(z.cpu(), torch.full((2,), 3.0))
    y.add_(1)  # still writable memory
    del y, z
    gc.collect()


def test_module_outlives_runtime(backend):
    device = torch_device(backend)
    m = omnirt.Runtime(ignore_environment=True).backend(backend.name).wrap_module(
        _models.make(_models.Mlp), tag="mlp")
    gc.collect()
    y = m(torch.ones(1, 32, device=device))
    synchronize_all(device)
    assert y.shape == (1, 8)


def test_dlpack_tensor_outlives_runtime(np):
    with omnirt.Runtime(ignore_environment=True, outputs="dlpack") as rt:
        t = rt.backend("cpu").op("softmax", np.zeros((2, 4), dtype=np.float32))
    del rt
    gc.collect()
    a = np.from_dlpack(t)
    del t
    gc.collect()
    assert np.allclose(a, 0.25)  # numpy's view keeps the memory (and the plugin) alive


def test_closed_runtime(rt):
    b = rt.backend("cpu")
    rt.close()
    rt.close()
    with pytest.raises(omnirt.InvalidArgument, match="closed"):
        rt.backend("cpu")
    assert b.op("softmax", torch.zeros(2)).tolist() == [0.5, 0.5]
    assert repr(rt) == "omnirt.Runtime(closed)"


def synchronize_all(device):
    if device != "cpu":
        torch.cuda.synchronize()
