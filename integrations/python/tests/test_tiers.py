"""Every combination of tier policy (YAML wrap_module.policies), compile on or
off (OMNIRT_WRAP_DISABLE_COMPILE through compile=), override (none, a Python
callable, the named op of the tag's name) and module (loadable or not) gives
the timeline the host's rules say, the same in Module.timeline and in the
run report, and the selected tier computes the right thing."""
import itertools

import pytest

torch = pytest.importorskip("torch")
import _models  # noqa: E402
import omnirt  # noqa: E402
from conftest import synchronize, torch_device  # noqa: E402

TIERS = ("compile", "override", "eager")
# Every non-empty ordered choice of tiers: 3 + 6 + 6 policies.
POLICIES = [list(p) for n in (1, 2, 3) for p in itertools.permutations(TIERS, n)]
OVERRIDES = ("none", "callable", "named_op")


def expected_attempts(policy, compile, override, loadable):
    """(tier, ok, status) of each attempt, by the host's rules (host.h)."""
    attempts = []
    for tier in policy:
        if tier == "compile":
            ok = compile and loadable
            status = "OK" if ok else ("UNAVAILABLE" if not compile else "INVALID_ARGUMENT")
        elif tier == "override":
            ok = override != "none"
            status = "OK" if ok else "NOT_FOUND"
        else:
            ok = loadable
            status = "OK" if ok else "INVALID_ARGUMENT"
        attempts.append((tier, ok, status))
        if ok:
            break
    return attempts


@pytest.fixture(scope="module")
def scripted():
    return torch.jit.script(_models.RmsNorm()).save_to_buffer()


def write_policy(tmp_path, policy):
    config = tmp_path / "omnirt.yaml"
    tiers = ", ".join(policy)
    config.write_text(f"wrap_module:\n  policies:\n    rms_norm: [{tiers}]\n    layer: [{tiers}]\n")
    return config


@pytest.mark.parametrize("loadable", [True, False], ids=["module", "garbage"])
@pytest.mark.parametrize("override", OVERRIDES)
@pytest.mark.parametrize("compile", [True, False], ids=["compile_on", "compile_off"])
@pytest.mark.parametrize("policy", POLICIES, ids=["-".join(p) for p in POLICIES])
@pytest.mark.parametrize("backend_name", ["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def test_timeline(tmp_path, scripted, backend_name, policy, compile, override, loadable):
    with omnirt.Runtime(config=write_policy(tmp_path, policy), ignore_environment=True) as rt:
        info = {b.name: b for b in rt.backends()}.get(backend_name)
        if info is None or not info.available:
            pytest.skip(f"backend '{backend_name}' is not available here")
        b = rt.backend(backend_name)
        device = torch_device(b)
        # The named op serves a tag of its own name; "layer" names no op.
        tag = "rms_norm" if override == "named_op" else "layer"
        if override == "callable":
            b.register_override(tag, lambda x, w: _models.RmsNorm()(x, w))
        if override == "named_op":
            b.register_override(tag, "rms_norm", eps=1e-6)
        want = expected_attempts(policy, compile, override, loadable)
        source = scripted if loadable else b"not a TorchScript module"
        if not want[-1][1]:
            with pytest.raises(omnirt.Error) as failed:
                b.wrap_module(source, tag=tag, compile=compile)
            assert failed.value.status_name == want[-1][2]
            assert "failed in every tier" in failed.value.message
            entry = b.report()["timeline"][-1]
            assert entry["selected_tier"] is None
            assert [(a["tier"], a["ok"], a["status"]) for a in entry["attempts"]] == want
            return

        m = b.wrap_module(source, tag=tag, compile=compile)
        got = [(a.tier, a.ok, a.status) for a in m.timeline]
        assert got == want
        assert m.selected_tier == want[-1][0]
        assert [a.selected for a in m.timeline] == [False] * (len(want) - 1) + [True]
        if not compile and "compile" in policy[:len(want)]:
            reason = m.timeline[[a.tier for a in m.timeline].index("compile")].reason
            assert reason == "compile disabled by OMNIRT_WRAP_DISABLE_COMPILE"
        assert all(a.reason for a in m.timeline if not a.ok)
        assert all(a.reason == "" and a.elapsed_ms >= 0 for a in m.timeline if a.ok)

        # The run report has the same entry.
        entry = b.report()["timeline"][-1]
        assert entry["tag"] == tag and entry["selected_tier"] == m.selected_tier
        assert [(a["tier"], a["ok"], a["selected"], a["status"], a["reason"])
                for a in entry["attempts"]] == [
                    (a.tier, a.ok, a.selected, a.status, a.reason) for a in m.timeline]
        if m.selected_tier == "override":
            detail = entry["attempts"][-1]["detail"]
            if override == "callable":
                assert detail == "embedder override"
            else:
                assert "op 'rms_norm'" in detail

        # Whatever tier runs, it computes rms_norm.
        torch.manual_seed(0)
        x = torch.randn(3, 16, device=device)
        w = torch.rand(16, device=device) + 0.5
        y = m(x, w)
        synchronize(b, torch)
        torch.testing.assert_close(y, _models.RmsNorm()(x, w), rtol=1e-4, atol=1e-5)
