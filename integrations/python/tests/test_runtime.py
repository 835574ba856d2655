"""Runtime: what was found and loaded, what was rejected and why, backend
selection, device facts and memory."""
import json
import os
import subprocess

import pytest

import omnirt


def test_backends_are_the_probes(rt, paths):
    probe = os.path.join(paths["build_dir"], "bin", "omnirt-probe")
    if not os.path.exists(probe):
        pytest.skip("omnirt-probe is not built")
    env = {k: v for k, v in os.environ.items() if k not in ("OMNIRT_PLUGIN_PATH", "OMNIRT_CONFIG")}
    shown = json.loads(subprocess.run([probe, "--json"], capture_output=True, text=True, env=env,
                                      timeout=60).stdout)
    ours = rt.backends()
    assert [b.name for b in ours] == [b["name"] for b in shown["backends"]]
    for mine, theirs in zip(ours, shown["backends"]):
        assert mine.available == theirs["available"]
        assert mine.reason == theirs["unavailable_reason"]
        assert mine.abi_version == theirs["abi_version"]
        assert mine.plugin_version == theirs["plugin_version"]
        caps = theirs["capabilities"]
        assert (mine.features, mine.dtypes, mine.module_formats, mine.vendor, mine.device_type) == (
            caps["features"], caps["dtypes"], caps["module_formats"], caps["vendor"],
            caps["dl_device_type"])
        assert [list(s) for s in mine.op_sets] == [
            [s["name"], s["version"]] for s in caps["op_sets"]]
        assert [d.name for d in mine.devices] == [d["name"] for d in theirs["devices"]]


def test_cpu_backend_facts(rt):
    cpu = rt.backend("cpu")
    info = cpu.info
    assert info.available and info.reason == "" and info.device_type == "cpu"
    assert {"modules", "compile", "named_ops", "memory_stats", "mem_info"} <= set(info.features)
    assert "f32" in info.dtypes and "torchscript" in info.module_formats
    assert ("omnirt.nn", 1) in info.op_sets
    (device,) = cpu.devices
    assert device.index == 0 and device.total_memory_bytes > 0
    caps = cpu.capabilities
    assert caps.features == info.features and caps.device_count == 1
    assert set(caps.as_dict()) == {"vendor", "device_type", "dl_device_type", "device_count",
                                   "features", "dtypes", "module_formats", "op_sets",
                                   "overridden_ops"}
    # "auto": the first available by priority (all 0 here), then name.
    assert rt.backend("auto") is cpu and rt.backend(None) is cpu


def test_memory(rt, torch):
    cpu = rt.backend("cpu")
    cpu.reset_memory_stats()
    x = torch.randn(1024)
    y = cpu.op("softmax", x)  # allocated on the backend: 4 KiB
    stats = cpu.memory_stats()
    assert stats["allocated_bytes"] >= 4096 and stats["alloc_count"] >= 1
    del y
    assert cpu.memory_stats()["allocated_bytes"] == stats["allocated_bytes"] - 4096
    cpu.reset_memory_stats()
    assert cpu.memory_stats()["alloc_count"] == 0
    free, total = cpu.mem_info()
    assert 0 < free <= total
    cpu.synchronize()
    with pytest.raises(omnirt.OutOfRange):
        cpu.mem_info(device=7)


def test_report(rt, torch):
    cpu = rt.backend("cpu")
    quiet = cpu.wrap_module(torch.nn.Linear(4, 2), tag="quiet")
    recorded = cpu.wrap_module(torch.nn.Linear(4, 2), tag="recorded", record_runs=True)
    assert not quiet.record_runs and recorded.record_runs
    x = torch.ones(1, 4)
    quiet(x)
    recorded(x)
    recorded(x)
    cpu.add_stage("preprocess", 1.25)
    report = cpu.report()
    assert isinstance(report, dict) and report["schema_version"] >= 2
    assert report["backend"]["name"] == "cpu"
    assert [e["tag"] for e in report["timeline"]] == ["quiet", "recorded"]
    assert report["runs"]["count"] == 2  # the recorded module's runs only
    kinds = [(s["kind"], s.get("tag", ""), s["name"]) for s in report["stages"]]
    assert kinds.count(("run", "recorded", "run")) == 2 and ("embedder", "", "preprocess") in kinds
    assert report["outputs"]["tag"] == "recorded"
    assert report["outputs"]["tensors"][0]["shape"] == [1, 2]
    assert json.loads(report.json()) == dict(report)


def test_unknown_backend(rt):
    with pytest.raises(omnirt.NotFound) as caught:
        rt.backend("no_such_backend")
    assert "no_such_backend" in caught.value.message
    assert caught.value.status == 2 and caught.value.status_name == "NOT_FOUND"


def test_unavailable_backend(rt):
    unavailable = [b for b in rt.backends() if not b.available]
    if not unavailable:
        pytest.skip("every in-tree backend is available here")
    info = unavailable[0]
    with pytest.raises(omnirt.Unavailable) as caught:
        rt.backend(info.name)
    assert info.reason in caught.value.message


@pytest.mark.parametrize("variant,error,stage", [
    ("noentry", omnirt.Incompatible, "dlopen"),        # no entry symbol
    ("abinew", omnirt.Incompatible, "entry_symbol"),   # ABI 2.0
    ("createfail", omnirt.Unavailable, "negotiate"),   # its create slot fails
    ("throwentry", omnirt.Internal, "entry_symbol"),   # an exception escapes its entry
])
def test_rejected_plugin(paths, variant, error, stage):
    path = paths["rejected_plugins"].get(variant)
    if path is None:
        pytest.skip("the fake plugin zoo (tests/host) is not built")
    with omnirt.Runtime(plugin_paths=[path], ignore_environment=True, skip_installed=True) as rt:
        assert rt.backends() == []
        (rejected,) = rt.rejected()
        assert rejected.path == path and not rejected.loaded and rejected.source == "api"
        assert rejected.stage == stage
        assert rejected.reason
        with pytest.raises(error) as caught:
            rt.backend(variant)
        assert rejected.reason in caught.value.message
        assert rejected.status == caught.value.status_name


def test_search_path_and_config(tmp_path, paths):
    config = tmp_path / "omnirt.yaml"
    config.write_text(f"plugin_dirs: [{paths['plugin_dir']}]\npriorities: {{cpu: 7}}\n")
    with omnirt.Runtime(config=config, ignore_environment=True, skip_installed=True) as rt:
        cpu = [b for b in rt.backends() if b.name == "cpu"]
        assert cpu and cpu[0].priority == 7
        sources = {d.source: d for d in rt.search_path()}
        assert sources["config"].path == paths["plugin_dir"] and sources["config"].searched
        assert all(c.source == "config" for c in rt.candidates())


def test_bad_config_is_invalid_argument(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("wrap_module:\n  policies:\n    x: [fastest]\n")
    with pytest.raises(omnirt.InvalidArgument, match="unknown tier 'fastest'"):
        omnirt.Runtime(config=config, ignore_environment=True)
    with pytest.raises(omnirt.InvalidArgument, match="outputs must be"):
        omnirt.Runtime(ignore_environment=True, outputs="jax")


def test_single_plugin_path_and_repr(paths):
    with omnirt.Runtime(paths["plugin_dir"], ignore_environment=True, skip_installed=True) as rt:
        assert "cpu" in repr(rt)
        assert repr(rt.backend("cpu")) == "omnirt.Backend('cpu')"


def test_versions():
    assert omnirt.__version__ == omnirt.library_version()
    assert omnirt.abi_version().startswith("1.")
