"""Tensors cross without copies, both ways: the module sees the caller's
memory, and the caller gets the memory the backend produced."""
import pytest

torch = pytest.importorskip("torch")
import numpy as np  # noqa: E402 (Debian's python3-torch depends on it)

import _models  # noqa: E402
import omnirt  # noqa: E402
from conftest import synchronize, torch_device  # noqa: E402


def test_numpy_input_is_the_modules_memory(rt):
    m = rt.backend("cpu").wrap_module(_models.AddOneInPlace(), tag="inplace", compile=False)
    x = np.zeros((2, 3), dtype=np.float32)
    y = m(x)
    assert np.all(x == 1.0), "the module's write into its input must be seen by the caller"
    assert torch.equal(y, torch.full((2, 3), 2.0))


def test_torch_input_is_the_modules_memory(backend):
    m = backend.wrap_module(_models.AddOneInPlace(), tag="inplace", compile=False)
    x = torch.zeros(5, device=torch_device(backend))
    m(x)
    synchronize(backend, torch)
    assert torch.equal(x.cpu(), torch.ones(5))


def test_override_sees_the_callers_memory_and_returns_its_own(backend):
    """An override's input views point at the caller's tensors; the tensor it
    returns is the one the caller gets, both for data_ptr and for writes."""
    seen = {}
    kept = torch.arange(6, dtype=torch.float32, device=torch_device(backend))

    def override(x):
        seen["input_ptr"] = x.data_ptr()
        return kept

    backend.register_override("zero_copy", override)
    m = backend.wrap_module(b"unused: the override tier is chosen first", tag="zero_copy")
    assert m.selected_tier == "override"
    x = torch.ones(4, device=torch_device(backend))
    y = m(x)
    assert seen["input_ptr"] == x.data_ptr()
    assert y.data_ptr() == kept.data_ptr()
    kept[0] = 42.0
    synchronize(backend, torch)
    assert y[0].item() == 42.0
    y[1] = -1.0
    synchronize(backend, torch)
    assert kept[1].item() == -1.0


def test_numpy_in_numpy_out_shares_memory(rt):
    """outputs='dlpack': an omnirt.Tensor that numpy reads in place."""
    kept = np.arange(4, dtype=np.float32)
    with omnirt.Runtime(ignore_environment=True, outputs="dlpack") as own:
        b = own.backend("cpu")
        b.register_override("np", lambda x: kept)
        out = b.wrap_module(b"unused", tag="np")(np.zeros(3, dtype=np.float32))
    assert isinstance(out, omnirt.Tensor)
    assert out.data_ptr == kept.__array_interface__["data"][0]
    view = np.from_dlpack(out)
    assert view.__array_interface__["data"][0] == kept.__array_interface__["data"][0]
    kept[2] = 7.0
    assert view[2] == 7.0
    as_torch = torch.from_dlpack(out)
    assert as_torch.data_ptr() == kept.__array_interface__["data"][0]
    as_torch[3] = -3.0
    assert kept[3] == -3.0


def test_engine_output_reaches_torch_and_numpy_without_copy(rt):
    """A module's own output, as omnirt.Tensor, then viewed by numpy and torch."""
    with omnirt.Runtime(ignore_environment=True, outputs="dlpack") as own:
        m = own.backend("cpu").wrap_module(_models.make(_models.Mlp), tag="mlp")
    out = m(np.ones((2, 32), dtype=np.float32))
    a = np.from_dlpack(out)
    t = torch.from_dlpack(out)
    assert a.__array_interface__["data"][0] == out.data_ptr == t.data_ptr()
    t.zero_()
    assert not a.any()


def test_op_in_place_output(backend):
    x = torch.randn(4, 8, device=torch_device(backend))
    w = torch.ones(8, device=torch_device(backend))
    out = torch.empty_like(x)
    got = backend.op("rms_norm", x, w, out=out)
    assert got is out
    synchronize(backend, torch)
    expected = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("side_stream", [False, True], ids=["default_stream", "side_stream"])
def test_cuda_tensors_cross_in_stream_order(backend, side_stream):
    """On torch's default stream tensors cross without the DLPack stream
    handshake (OmniRT runs on that stream too); on a side stream the handshake
    orders the side stream's work before the module and the module before
    what the side stream does with the result."""
    if backend.name != "cuda":
        pytest.skip("streams order CUDA work only")
    m = backend.wrap_module(_models.AddOneInPlace(), tag="stream_order", compile=False)
    stream = torch.cuda.Stream() if side_stream else torch.cuda.default_stream()
    with torch.cuda.stream(stream):
        x = torch.zeros(1 << 20, device="cuda:0")
        torch.cuda._sleep(1_000_000)  # the side stream is busy when the module is called
        x.fill_(41.0)
        y = m(x)  # x + 1, in place, then times 2
        right = bool((y == 84.0).all() & (x == 42.0).all())
    assert right, "the module ran out of order with the caller's stream"
