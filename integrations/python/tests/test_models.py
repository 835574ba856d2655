"""Modules scripted here and run through the host match PyTorch, whatever
form they are given in; bad inputs are specific errors."""
import io

import pytest

torch = pytest.importorskip("torch")
import _models  # noqa: E402 (needs torch)
import omnirt  # noqa: E402
from conftest import ForeignTensor, synchronize, torch_device  # noqa: E402

MODELS = {
    "resnet": (_models.TinyResNet, lambda: [torch.randn(2, 3, 16, 16)]),
    "mlp": (_models.Mlp, lambda: [torch.randn(4, 32)]),
    "two_in_two_out": (_models.TwoInTwoOut, lambda: [torch.randn(3, 16), torch.randn(3, 16)]),
}


def expected(model, inputs):
    with torch.no_grad():
        out = model(*inputs)
    return out if isinstance(out, tuple) else (out,)


def as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("compile", [True, False], ids=["compile", "eager"])
@pytest.mark.parametrize("name", list(MODELS))
def test_outputs_match_pytorch(backend, name, compile):
    cls, make_inputs = MODELS[name]
    model = _models.make(cls)
    torch.manual_seed(1)
    inputs = make_inputs()
    want = expected(model, inputs)
    device = torch_device(backend)
    m = backend.wrap_module(model, tag=name, compile=compile)
    assert m.selected_tier == ("compile" if compile else "eager")
    got = as_tuple(m(*[x.to(device) for x in inputs]))
    synchronize(backend, torch)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, torch.Tensor)
        assert g.device == torch.device(device)
        torch.testing.assert_close(g.cpu(), w, rtol=1e-4, atol=1e-4)


def test_dict_outputs_come_back_as_a_dict(backend):
    if "output_names" not in backend.capabilities.features:
        pytest.skip(f"gap (issue 15): backend '{backend.name}' does not name its outputs "
                    "(OMNIRT_FEATURE_OUTPUT_NAMES), so a dict output cannot come back as one")
    x = torch.arange(3.0, device=torch_device(backend))
    got = backend.wrap_module(_models.Named(), tag="named")(x)
    synchronize(backend, torch)
    assert isinstance(got, dict) and list(got) == ["plus_one", "twice"]
    torch.testing.assert_close(got["plus_one"], x + 1)
    torch.testing.assert_close(got["twice"], x * 2)


def test_bool_outputs(backend):
    x = torch.tensor([-1.0, 2.0], device=torch_device(backend))
    got = backend.wrap_module(_models.Positive(), tag="positive")(x)
    synchronize(backend, torch)
    assert got.dtype == torch.bool and got.tolist() == [False, True]


def test_bool_inputs(backend):
    x = torch.tensor([1.0, 2.0, 3.0], device=torch_device(backend))
    mask = torch.tensor([True, False, True], device=torch_device(backend))
    got = backend.wrap_module(_models.Masked(), tag="masked")(x, mask)
    synchronize(backend, torch)
    assert got.cpu().tolist() == [0.0, 2.0, 0.0]


def test_every_form_of_module(backend, tmp_path):
    model = _models.make(_models.Mlp)
    scripted = torch.jit.script(model)
    path = tmp_path / "mlp.pt"
    scripted.save(str(path))
    buffer = io.BytesIO()
    torch.jit.save(scripted, buffer)
    x = torch.randn(2, 32)
    want = expected(model, [x])[0]
    forms = {"nn.Module": model, "ScriptModule": scripted, "str": str(path), "PathLike": path,
             "bytes": buffer.getvalue(), "bytearray": bytearray(buffer.getvalue())}
    for form, obj in forms.items():
        m = backend.wrap_module(obj, tag=form)
        got = m(x.to(torch_device(backend)))
        synchronize(backend, torch)
        torch.testing.assert_close(got.cpu(), want, rtol=1e-4, atol=1e-4, msg=form)


def test_not_scriptable_module_says_how_to_fix(backend):
    with pytest.raises(omnirt.InvalidArgument) as caught:
        backend.wrap_module(_models.NotScriptable(), tag="bad")
    message = str(caught.value)
    assert "NotScriptable is not scriptable" in message
    assert "torch.jit.trace" in message
    assert caught.value.__cause__ is not None  # TorchScript's own error


def test_traced_module_works_where_scripting_does_not(backend):
    model = _models.NotScriptable()
    x = torch.randn(3)
    m = backend.wrap_module(torch.jit.trace(model, (x,)), tag="traced")
    got = m(x.to(torch_device(backend)))
    synchronize(backend, torch)
    torch.testing.assert_close(got.cpu(), 2 * x)


def test_not_a_module(backend):
    with pytest.raises(omnirt.InvalidArgument, match="wrap_module takes .* got builtins.int"):
        backend.wrap_module(42)


def test_missing_file_and_garbage_bytes(backend, tmp_path):
    with pytest.raises(omnirt.Error) as missing:
        backend.wrap_module(str(tmp_path / "absent.pt"), tag="absent")
    assert "failed in every tier" in missing.value.message
    assert "absent.pt" in missing.value.message
    with pytest.raises(omnirt.InvalidArgument, match="failed in every tier"):
        backend.wrap_module(b"not a module", tag="garbage")


def test_non_contiguous_inputs_pass_their_strides(backend):
    model = _models.make(_models.Mlp)
    m = backend.wrap_module(model, tag="mlp")
    base = torch.randn(32, 4).to(torch_device(backend))
    x = base.t()  # 4x32 with strides (1, 4)
    assert not x.is_contiguous()
    got = m(x)
    synchronize(backend, torch)
    torch.testing.assert_close(got.cpu(), expected(model, [x.cpu().contiguous()])[0],
                               rtol=1e-4, atol=1e-4)


def test_negative_strides_are_a_clear_error(rt, np):
    b = rt.backend("cpu")
    m = b.wrap_module(_models.make(_models.Mlp), tag="mlp")
    x = np.arange(4 * 32, dtype=np.float32).reshape(4, 32)[::-1]
    with pytest.raises(omnirt.InvalidArgument, match="strides.*must be >= 0"):
        m(x)


def test_wrong_dtype_shape_and_count(backend):
    m = backend.wrap_module(_models.make(_models.Mlp), tag="mlp")
    device = torch_device(backend)
    with pytest.raises(omnirt.InvalidArgument) as dtype:
        m(torch.zeros(4, 32, dtype=torch.int64, device=device))
    assert dtype.value.backend == backend.name
    with pytest.raises(omnirt.InvalidArgument, match="mat1 and mat2|shape|size"):
        m(torch.zeros(4, 31, device=device))
    with pytest.raises(omnirt.InvalidArgument, match="takes 1 input, got 2"):
        m(torch.zeros(4, 32, device=device), torch.zeros(4, 32, device=device))


def test_wrong_device_is_named(rt, np):
    b = rt.backend("cpu")
    m = b.wrap_module(_models.make(_models.Mlp), tag="mlp")
    foreign = ForeignTensor(np.zeros((4, 32), dtype=np.float32), device_type=2)  # kDLCUDA
    with pytest.raises(omnirt.InvalidArgument, match="expected device kDLCPU:0, got kDLCUDA:0"):
        m(foreign)


def test_cpu_tensor_on_a_cuda_backend(backend):
    if backend.capabilities.device_type != "cuda":
        pytest.skip("needs a backend whose memory is not host memory")
    m = backend.wrap_module(_models.make(_models.Mlp), tag="mlp")
    with pytest.raises(omnirt.InvalidArgument, match="expected device kDLCUDA:0, got kDLCPU:0"):
        m(torch.zeros(4, 32))


def test_objects_that_are_not_tensors(backend):
    m = backend.wrap_module(_models.make(_models.Mlp), tag="mlp")
    with pytest.raises(omnirt.InvalidArgument,
                       match="input 0: expected a tensor with __dlpack__.*list"):
        m([[0.0] * 32])


def test_producer_errors_pass_through(rt, np):
    m = rt.backend("cpu").wrap_module(_models.make(_models.Mlp), tag="mlp")
    frozen = np.zeros((4, 32), dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(BufferError):  # numpy cannot export read-only arrays through DLPack
        m(frozen)


def test_unknown_format(backend):
    with pytest.raises(omnirt.NotSupported, match="does not accept module format 'onnx'"):
        backend.wrap_module(b"\x08\x01", tag="onnx", format="onnx")
