"""Named ops match torch.nn.functional; failures name backend and op."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import omnirt  # noqa: E402
from conftest import synchronize, torch_device  # noqa: E402


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


CASES = {
    # name: (inputs (shapes), attrs, reference)
    "rms_norm": ([(3, 7, 64), (64,)], {"eps": 1e-5}, lambda x, w: rms_norm(x, w, 1e-5)),
    "layer_norm": ([(5, 96), (96,), (96,)], {"eps": 1e-5},
                   lambda x, w, b: F.layer_norm(x, (96,), w, b, eps=1e-5)),
    "softmax": ([(4, 33)], {"dim": 1}, lambda x: F.softmax(x, dim=1)),
    "geglu": ([(6, 40), (6, 40)], {}, lambda a, b: F.gelu(a) * b),
}


@pytest.mark.parametrize("name", list(CASES))
def test_named_ops_match_functional(backend, name):
    shapes, attrs, reference = CASES[name]
    torch.manual_seed(0)
    inputs = [torch.randn(*s, device=torch_device(backend)) for s in shapes]
    out = backend.op(name, *inputs, **attrs)
    synchronize(backend, torch)
    assert isinstance(out, torch.Tensor) and out.shape == inputs[0].shape
    assert out.device == inputs[0].device
    torch.testing.assert_close(out, reference(*inputs), rtol=1e-4, atol=1e-5)


def test_default_attribute(backend):
    x = torch.randn(2, 16, device=torch_device(backend))
    w = torch.randn(16, device=torch_device(backend))
    out = backend.op("rms_norm", x, w)
    synchronize(backend, torch)
    torch.testing.assert_close(out, rms_norm(x, w, 1e-6), rtol=1e-4, atol=1e-5)


def test_strided_inputs(backend):
    x = torch.randn(16, 4, device=torch_device(backend)).t()
    if backend.name == "cuda":
        # The cuda kernels take contiguous rows only (plugins/cuda/README.md):
        # the tensor is passed as it is, and refused naming its stride.
        with pytest.raises(omnirt.InvalidArgument, match="must be contiguous"):
            backend.op("softmax", x, dim=-1)
        x = x.contiguous()
    out = backend.op("softmax", x, dim=-1)
    synchronize(backend, torch)
    torch.testing.assert_close(out, F.softmax(x, dim=-1), rtol=1e-4, atol=1e-5)


def test_numpy_inputs_on_cpu(rt, np):
    x = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)
    out = rt.backend("cpu").op("softmax", x)
    torch.testing.assert_close(out, F.softmax(torch.from_numpy(x), dim=-1), rtol=1e-5, atol=1e-5)


def test_implementer_and_missing_op(backend):
    assert backend.implementer("rms_norm") in (backend.name, "cpu")
    with pytest.raises(omnirt.NotSupported) as caught:
        backend.op("no_such_op", torch.zeros(2, device=torch_device(backend)))
    assert "no_such_op" in caught.value.message and backend.name in caught.value.message
    with pytest.raises(omnirt.NotSupported, match="no_such_op"):
        backend.implementer("no_such_op")


def test_bad_op_calls(rt):
    b = rt.backend("cpu")
    with pytest.raises(omnirt.InvalidArgument, match="float"):
        b.op("softmax", torch.zeros(3, dtype=torch.float64))
    with pytest.raises(omnirt.InvalidArgument, match="unknown attribute 'bogus'"):
        b.op("softmax", torch.zeros(3), bogus=1)
    with pytest.raises(omnirt.InvalidArgument, match="attribute 'dim' must be a number"):
        b.op("softmax", torch.zeros(3), dim="last")
    with pytest.raises(omnirt.InvalidArgument, match="no inputs"):
        b.op("softmax")
    with pytest.raises(omnirt.InvalidArgument, match="takes 2 inputs"):
        b.op("rms_norm", torch.zeros(3))
