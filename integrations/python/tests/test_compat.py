"""omnirt.compat.BackendRuntime against the seed's documented contract
(../shared/seeds/000_*: Backend Onboarding; 003_*: wrap_module in pipelines)."""
import pytest

torch = pytest.importorskip("torch")
import _models  # noqa: E402
import omnirt  # noqa: E402
from omnirt.compat import (BackendAttempt, BackendRuntime, Capabilities,  # noqa: E402
                           resolve_backend)

LEVELS = ["compile", "kernel_override", "eager"]
STAT_KEYS = {"peak_bytes", "allocated_bytes", "reserved_bytes", "alloc_count", "free_count"}


@pytest.fixture
def cpu():
    return BackendRuntime("cpu", ignore_environment=True)


@pytest.fixture
def no_compile(tmp_path):
    config = tmp_path / "omnirt.yaml"
    config.write_text("wrap_module:\n  compile: false\n")
    return BackendRuntime("cpu", config=config, ignore_environment=True)


def levels(entry):
    return [a.level for a in entry.attempts]


def test_is_available_never_raises():
    """Checklist: is_available() returns False (does not raise) where the backend cannot run."""
    missing = BackendRuntime("no_such_backend", ignore_environment=True)
    assert missing.is_available() is False
    assert "no_such_backend" in missing.unavailable_reason
    with pytest.raises(omnirt.Unavailable):
        missing.capabilities()
    rt = omnirt.Runtime(ignore_environment=True)
    for info in rt.backends():
        assert BackendRuntime(info.name, runtime=rt).is_available() is info.available


def test_vendor_backend_on_its_simulated_runtime(paths, tmp_path):
    library = paths["simulated_runtimes"].get("ascend")
    if library is None:
        pytest.skip("the simulated vendor runtimes (tests/vendors) are not built")
    config = tmp_path / "omnirt.yaml"
    config.write_text(f"backends:\n  ascend:\n    options: {{library: \"{library}\"}}\n")
    ascend = BackendRuntime("ascend", config=config, ignore_environment=True)
    assert ascend.is_available(), ascend.unavailable_reason
    assert ascend.device_name == "npu"  # torch_npu's name for its memory (DLPack: kDLExtDev)
    caps = ascend.capabilities()
    assert caps.device == "npu" and caps.device_count >= 1 and caps.compile_available is False
    assert set(ascend.memory_stats()) <= STAT_KEYS
    assert ascend.available_memory_gb() > 0
    ascend.synchronize()


def test_capabilities_cover_the_dtypes(cpu):
    caps = cpu.capabilities()
    assert isinstance(caps, Capabilities)
    assert {"fp32", "fp16", "bf16"} <= set(caps.dtype_options)
    assert caps.compile_available is True and caps.device == "cpu" and caps.device_count == 1
    assert caps.supports_graph_mode is True  # the cpu backend captures stream work


def test_compile_selected_timeline(cpu):
    model = _models.make(_models.Mlp)
    wrapped = cpu.wrap_module(model, "mlp")
    (entry,) = cpu.backend_timeline
    assert entry.module == "mlp" and levels(entry) == LEVELS
    assert [(a.ok, a.selected) for a in entry.attempts] == [
        (True, True), (False, False), (False, False)]
    assert entry.attempts[0].reason is None
    assert entry.attempts[1].reason == entry.attempts[2].reason == "skipped: compile selected"
    x = torch.randn(3, 32)
    with torch.no_grad():
        torch.testing.assert_close(wrapped(x), model(x), rtol=1e-4, atol=1e-4)


def test_failing_compile_shows_in_the_timeline_and_override_is_used(no_compile):
    """Checklist: failing compile paths show up in backend_timeline; the
    override is the compile fallback."""
    no_compile.register_override("mlp", lambda x: torch.full((x.shape[0], 8), 5.0))
    assert no_compile.get_override("mlp") is not None
    wrapped = no_compile.wrap_module(_models.make(_models.Mlp), "mlp")
    (entry,) = no_compile.backend_timeline
    compile_attempt, override, eager = entry.attempts
    assert levels(entry) == LEVELS
    assert not compile_attempt.ok and "compile disabled by configuration" in compile_attempt.reason
    assert override.ok and override.selected
    assert not eager.ok and eager.reason == "skipped: kernel_override selected"
    assert torch.equal(wrapped(torch.zeros(2, 32)), torch.full((2, 8), 5.0))


def test_eager_when_nothing_else(no_compile):
    model = _models.make(_models.Mlp)
    wrapped = no_compile.wrap_module(model, "plain")
    attempts = no_compile.backend_timeline[-1].attempts
    assert [(a.level, a.ok, a.selected) for a in attempts] == [
        ("compile", False, False), ("kernel_override", False, False), ("eager", True, True)]
    assert "no embedder override for tag 'plain'" in attempts[1].reason
    assert isinstance(wrapped, omnirt.Module)


def test_not_torchscript_runs_in_python_as_eager(cpu):
    """The seed's eager level is the module itself: a module the host cannot
    take still wraps, and the timeline says why."""
    module = _models.NotScriptable()
    wrapped = cpu.wrap_module(module, "python_only")
    assert wrapped is module
    compile_attempt, override, eager = cpu.backend_timeline[-1].attempts
    assert "not scriptable" in compile_attempt.reason
    assert eager.ok and eager.selected and "running the module itself in Python" in eager.reason
    assert not override.ok and override.reason == "no override registered"


def test_override_for_a_module_the_host_cannot_take(cpu):
    cpu.register_override("python_only", lambda x: x * 10)
    wrapped = cpu.wrap_module(_models.NotScriptable(), "python_only")
    assert wrapped(torch.ones(1)).item() == 10
    assert [a.selected for a in cpu.backend_timeline[-1].attempts] == [False, True, False]


def test_memory_and_synchronize(cpu):
    cpu.reset_memory_stats()
    stats = cpu.memory_stats()
    assert {"peak_bytes", "allocated_bytes"} <= set(stats) <= STAT_KEYS
    assert all(isinstance(v, int) for v in stats.values())
    gb = cpu.available_memory_gb()
    assert isinstance(gb, float) and gb > 0
    cpu.synchronize()


def test_to_device(cpu):
    x = torch.zeros(2)
    assert cpu.to_device(x, dtype="fp16").dtype == torch.float16
    assert cpu.to_device(x, dtype=torch.float64).dtype == torch.float64
    assert cpu.to_device(x).device.type == "cpu"
    layer = cpu.to_device(torch.nn.Linear(2, 2), dtype="bf16")
    assert layer.weight.dtype == torch.bfloat16
    not_movable = object()
    assert cpu.to_device(not_movable) is not_movable


def test_compile_hook_and_prepare_pipeline(cpu):
    with pytest.raises(NotImplementedError, match="runs inside wrap_module"):
        cpu._compile(torch.nn.Linear(2, 2), "x")
    pipeline = object()
    assert cpu.prepare_pipeline(pipeline, model_spec=None, config={}) is pipeline


def test_resolve_backend():
    assert resolve_backend("cpu-stub", ignore_environment=True).name == "cpu"
    assert resolve_backend("auto", ignore_environment=True).is_available()
    with pytest.raises(omnirt.Unavailable, match="no_such_backend"):
        resolve_backend("no_such_backend", ignore_environment=True)


def test_attempt_records():
    assert BackendAttempt("eager", True) == BackendAttempt(level="eager", ok=True, reason=None,
                                                           selected=False)
    with pytest.raises(TypeError, match="needs ok"):
        BackendAttempt("eager")
