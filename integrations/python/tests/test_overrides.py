"""Python callables and named ops as the override tier."""
import gc
import weakref

import pytest

torch = pytest.importorskip("torch")
import _models  # noqa: E402
import omnirt  # noqa: E402
from conftest import ForeignTensor, synchronize, torch_device  # noqa: E402

GARBAGE = b"no module: only the override tier can work"


def test_callable_gets_tensors_and_its_result_is_returned(backend):
    calls = []

    def double(x, y):
        calls.append((type(x), x.shape, x.device))
        return x * 2, y + 1

    backend.register_override("pair", double)
    m = backend.wrap_module(GARBAGE, tag="pair")
    x = torch.arange(4.0, device=torch_device(backend))
    a, b = m(x, x)
    synchronize(backend, torch)
    assert calls == [(torch.Tensor, torch.Size([4]), x.device)]
    torch.testing.assert_close(a, x * 2)
    torch.testing.assert_close(b, x + 1)


def test_exception_becomes_the_error_and_its_cause(backend):
    def broken(x):
        raise ValueError("the kernel does not like this shape")

    backend.register_override("broken", broken)
    m = backend.wrap_module(GARBAGE, tag="broken")
    with pytest.raises(omnirt.InvalidArgument) as caught:
        m(torch.zeros(2, device=torch_device(backend)))
    assert "embedder override for tag 'broken' failed with INVALID_ARGUMENT" in caught.value.message
    assert isinstance(caught.value.__cause__, ValueError)
    assert "does not like this shape" in str(caught.value.__cause__)
    # The next run is not blamed on the old exception.
    backend.register_override("fine", lambda x: x)
    fine = backend.wrap_module(GARBAGE, tag="fine")
    assert fine(torch.ones(1, device=torch_device(backend))).item() == 1


@pytest.mark.parametrize("raised,expected", [
    (omnirt.NotSupported("not on this shape"), omnirt.NotSupported),
    (omnirt.OutOfMemory("scratch space"), omnirt.OutOfMemory),
    (TypeError("bad"), omnirt.InvalidArgument),
    (MemoryError(), omnirt.OutOfMemory),
    (NotImplementedError(), omnirt.NotSupported),
    (RuntimeError("boom"), omnirt.Internal),
])
def test_exception_types_map_to_statuses(rt, raised, expected):
    b = rt.backend("cpu")

    def fails(x):
        raise raised

    b.register_override("fails", fails)
    with pytest.raises(expected) as caught:
        b.wrap_module(GARBAGE, tag="fails")(torch.zeros(1))
    assert caught.value.__cause__ is raised


def test_bad_results(rt, np):
    b = rt.backend("cpu")
    b.register_override("not_tensor", lambda x: "text")
    with pytest.raises(omnirt.InvalidArgument) as caught:
        b.wrap_module(GARBAGE, tag="not_tensor")(torch.zeros(1))
    assert "output 0: expected a tensor with __dlpack__" in str(caught.value.__cause__)

    foreign = ForeignTensor(np.zeros(3, dtype=np.float32), device_type=2)  # claims kDLCUDA
    b.register_override("elsewhere", lambda x: foreign)
    with pytest.raises(omnirt.InvalidArgument) as caught:
        b.wrap_module(GARBAGE, tag="elsewhere")(torch.zeros(1))
    assert "returned output 0 in cuda memory; backend 'cpu' keeps tensors in cpu memory" in str(
        caught.value.__cause__)

    b.register_override("too_many", lambda x: tuple(x.clone() for _ in range(65)))
    with pytest.raises(omnirt.OutOfRange):
        b.wrap_module(GARBAGE, tag="too_many")(torch.zeros(1))


def test_registration_errors(rt):
    b = rt.backend("cpu")
    b.register_override("softmax", lambda x: x)
    with pytest.raises(omnirt.AlreadyExists,
                       match="already has an embedder override for tag 'softmax'"):
        b.register_override("softmax", lambda x: x)
    with pytest.raises(omnirt.AlreadyExists, match="has a Python override already"):
        b.register_override("softmax", "softmax")
    with pytest.raises(omnirt.NotFound, match="no embedder override for tag 'never'"):
        b.unregister_override("never")
    with pytest.raises(omnirt.InvalidArgument, match="must be callable"):
        b.register_override("number", 3)
    with pytest.raises(omnirt.NotSupported, match="no_such_op"):
        b.register_override("no_such_op", "no_such_op")
    with pytest.raises(omnirt.InvalidArgument, match="named-op override only"):
        b.register_override("attrs", lambda x: x, eps=1.0)


def test_unregistered_override_stays_with_earlier_modules(rt):
    b = rt.backend("cpu")
    b.register_override("swap", lambda x: x + 1)
    before = b.wrap_module(GARBAGE, tag="swap")
    b.unregister_override("swap")
    with pytest.raises(omnirt.Error, match="failed in every tier"):
        b.wrap_module(GARBAGE, tag="swap")
    b.register_override("swap", lambda x: x + 2)
    after = b.wrap_module(GARBAGE, tag="swap")
    x = torch.zeros(1)
    assert before(x).item() == 1 and after(x).item() == 2


def test_named_op_of_the_tags_name_with_attributes(backend):
    def rms_norm(x, eps):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

    def check(got, want):
        synchronize(backend, torch)
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)

    x = torch.randn(2, 8, device=torch_device(backend))
    w = torch.ones(8, device=torch_device(backend))
    backend.register_override("rms_norm", "rms_norm", eps=0.5)
    m = backend.wrap_module(GARBAGE, tag="rms_norm")
    assert m.selected_tier == "override"
    check(m(x, w), rms_norm(x, 0.5))
    # Explicit attributes win; unregistering drops the kept ones.
    check(backend.wrap_module(GARBAGE, tag="rms_norm", attrs={"eps": 2.0})(x, w), rms_norm(x, 2.0))
    backend.unregister_override("rms_norm")
    check(backend.wrap_module(GARBAGE, tag="rms_norm")(x, w), rms_norm(x, 1e-6))


def test_named_op_for_another_tag(backend):
    backend.register_override("norm_layer", "softmax", dim=0)
    m = backend.wrap_module(GARBAGE, tag="norm_layer")
    x = torch.randn(3, 4, device=torch_device(backend))
    got = m(x)
    synchronize(backend, torch)
    torch.testing.assert_close(got, torch.softmax(x, dim=0), rtol=1e-4, atol=1e-5)


def test_override_referring_to_its_backend_is_collected():
    rt = omnirt.Runtime(ignore_environment=True)
    b = rt.backend("cpu")
    b.register_override("cycle", lambda x: b.op("softmax", x))
    probe = weakref.ref(b)
    del rt, b
    gc.collect()
    assert probe() is None, "a cycle through an override must not keep the backend alive"


def test_override_with_module_wrapped_from_nn_module(rt):
    """The override tier wins over compile when the policy says so; here the
    default policy tries compile first and keeps it."""
    b = rt.backend("cpu")
    b.register_override("mlp", lambda x: torch.zeros(1))
    m = b.wrap_module(_models.make(_models.Mlp), tag="mlp")
    assert m.selected_tier == "compile"
    assert [a.tier for a in m.timeline] == ["compile"]
