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


def watch_for_half_done(work_once, snapshot, half_done, rounds=40):
    """Runs `work_once` again and again in a thread (until seen, at most
    `rounds` times) while this one keeps taking `snapshot`s — each one C call,
    which another thread holding the GIL cannot interleave. Returns whether a
    snapshot showed the work half done: a call holding the GIL could only
    ever be seen before or after."""
    done, seen = threading.Event(), threading.Event()
    errors = []

    def run():
        try:
            for _ in range(rounds):
                if seen.is_set():
                    break
                work_once()
        except Exception as e:  # reported below
            errors.append(e)
        finally:
            done.set()

    t = threading.Thread(target=run)
    t.start()
    deadline = time.monotonic() + BOUND_S
    while not done.is_set() and time.monotonic() < deadline:
        if half_done(snapshot()):
            seen.set()
    t.join(BOUND_S)
    assert not t.is_alive() and not errors, errors
    return seen.is_set()


def test_gil_is_released_while_a_module_runs(rt):
    m = rt.backend("cpu").wrap_module(_models.AddOneInPlace(), tag="add", compile=False)
    x = torch.zeros(2 ** 24)
    m(x)  # the engine loads libtorch on first use
    view, ends = x.numpy(), [0, -1]
    seen = watch_for_half_done(lambda: m(x), lambda: view[ends],
                               lambda first_last: first_last[0] != first_last[1])
    assert x[0].item() == x[-1].item(), "every run wrote the whole input"
    assert seen, "Python never ran while the module was writing its input"


def test_gil_is_released_while_an_op_runs(rt, np):
    b = rt.backend("cpu")
    x = np.random.default_rng(0).standard_normal((8192, 1024), dtype=np.float32)
    outputs = [np.zeros_like(x)]

    def work_once():
        out = np.zeros_like(x)  # calloc'ed: nothing written before the op
        outputs.append(out)
        b.op("softmax", x, out=out)
        outputs.pop(0)

    # Rows are written in order: the first row written, the last not yet.
    seen = watch_for_half_done(work_once, lambda: outputs[-1][[0, -1], 0],
                               lambda first_last: first_last[0] != 0 and first_last[1] == 0)
    assert seen, "Python never ran while the op was writing its output"


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
