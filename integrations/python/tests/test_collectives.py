"""Collectives from Python (ABI 1.1) on the cpu backend: gloo over the
loopback between processes that meet through a FileStore, local
communicators in one process, bad arguments, a missing gloo library, a rank
that never comes, and the example docs/collectives.md shows."""
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

import pytest

import omnirt

import _collective_rank as ranks
from conftest import ForeignTensor

HERE = os.path.dirname(os.path.abspath(__file__))
PROCESS_TIMEOUT_S = 120  # a bound on a rank process; each takes about a second


@pytest.fixture
def config(tmp_path):
    """gloo on the loopback, whatever this machine's hostname resolves to."""
    path = tmp_path / "collectives.yaml"
    path.write_text('backends:\n  cpu:\n    options:\n      gloo_hostname: "127.0.0.1"\n')
    return path


@pytest.fixture
def cpu(config):
    """The cpu backend with its gloo library, skipped (saying why) without it."""
    with omnirt.Runtime(config=config, ignore_environment=True) as rt:
        b = rt.backend("cpu")
        try:
            b.collectives_library()
        except (omnirt.Unavailable, omnirt.NotSupported) as e:
            pytest.skip(f"the cpu backend has no collectives here: {e}")
        yield b


@pytest.fixture
def store(tmp_path):
    with omnirt.FileStore(tmp_path / "store") as s:
        yield s


def run_ranks(tmp_path, config, nranks, scenario, *libs):
    """Runs ranks 0..nranks-1 as processes; returns what each printed."""
    store_dir = tmp_path / f"store-{scenario}-{nranks}"
    procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "_collective_rank.py"),
                               str(store_dir), str(r), str(nranks), str(config), scenario, *libs],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in range(nranks)]
    outputs = []
    try:
        deadline = time.monotonic() + PROCESS_TIMEOUT_S
        for rank, p in enumerate(procs):
            out, err = p.communicate(timeout=max(1, deadline - time.monotonic()))
            assert p.returncode == 0, f"rank {rank} of {nranks} failed:\n{err}"
            outputs.append(json.loads(out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return outputs


def test_names_gloo(cpu):
    assert cpu.collectives_library().startswith("gloo ")
    assert "collectives" in cpu.capabilities.features


@pytest.mark.parametrize("nranks, libs", [(2, ("numpy", "torch")), (4, ("numpy",))],
                         ids=["2-ranks-numpy-torch", "4-ranks-numpy"])
def test_processes_run_every_collective_exactly(cpu, tmp_path, config, nranks, libs):
    if "torch" in libs:
        pytest.importorskip("torch")
    pytest.importorskip("numpy")
    outputs = run_ranks(tmp_path, config, nranks, "every", *libs)
    cases = ranks.expected(nranks, libs)
    for rank, got in enumerate(outputs):
        assert got == ranks.per_rank(cases, rank), f"rank {rank}"


def test_a_peer_that_leaves_breaks_the_communicator(cpu, tmp_path, config):
    pytest.importorskip("numpy")
    rank0, rank1 = run_ranks(tmp_path, config, 2, "leave")
    assert rank1 == {"left": True}
    assert rank0["error"] == "Timeout", rank0
    assert "rank 1 of 2 did not join it" in rank0["message"]
    assert rank0["async_error"] == rank0["error"]  # the failure that broke it, kept
    assert rank0["async_message"] == rank0["message"]


def test_local_comms_in_one_group(cpu, np):
    comms = cpu.local_comms([0, 0])  # the cpu backend's ranks all live on device 0
    try:
        assert [(c.rank, c.nranks, c.device) for c in comms] == [(0, 2, 0), (1, 2, 0)]
        data = [np.arange(4, dtype=np.float32) + 10 * r for r in range(2)]
        gathered = [np.zeros(8, dtype=np.float32) for _ in comms]
        shares = [np.zeros(2, dtype=np.float32) for _ in comms]
        received = [np.zeros(4, dtype=np.float32) for _ in comms]
        maxima = [np.zeros(4, dtype=np.float32) for _ in comms]
        with cpu.group():  # one thread drives both ranks: issued here, run at the end
            for c, d, g, s, m in zip(comms, data, gathered, shares, maxima):
                c.all_gather(d, g)
                c.reduce_scatter(d, s)
                c.all_reduce(d, m, op="max")
                c.send(d, peer=1 - c.rank)
            for c, r in zip(comms, received):
                c.recv(r, peer=1 - c.rank)
        assert all(g.tolist() == [0, 1, 2, 3, 10, 11, 12, 13] for g in gathered)
        assert [s.tolist() for s in shares] == [[10, 12], [14, 16]]
        assert all(m.tolist() == [10, 11, 12, 13] for m in maxima)
        assert [r.tolist() for r in received] == [data[1].tolist(), data[0].tolist()]
        assert [c.async_error() for c in comms] == [None, None]
    finally:
        for c in comms:
            c.close()
    assert all(c.closed for c in comms)


def test_local_comms_from_threads_release_the_gil(cpu, np):
    comms = cpu.local_comms([0, 0])
    data = [np.full(5, r + 1, dtype=np.int64) for r in range(2)]
    # Each rank blocks until the other joins: only a released GIL lets both in.
    threads = [threading.Thread(target=c.all_reduce, args=(d,)) for c, d in zip(comms, data)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=PROCESS_TIMEOUT_S)
    for c in comms:
        c.close()
    assert not any(t.is_alive() for t in threads)
    assert [d.tolist() for d in data] == [[3] * 5, [3] * 5]


def test_local_comms_take_torch_in_place(cpu, torch):
    comms = cpu.local_comms([0, 0])
    tensors = [torch.full((2, 3), float(r + 1)) for r in range(2)]
    with cpu.group():
        results = [c.all_reduce(t, op="avg") for c, t in zip(comms, tensors)]
        roots = [c.broadcast(torch.full((3,), 7.0 * (c.rank + 1)), root=1) for c in comms]
    for c in comms:
        c.close()
    assert all(r is t for r, t in zip(results, tensors))  # in place: send comes back
    assert all(t.eq(1.5).all() for t in tensors)
    assert all(r.tolist() == [14.0, 14.0, 14.0] for r in roots)


def test_a_rank_that_never_comes_times_out_naming_it(cpu, store):
    start = time.monotonic()
    with pytest.raises(omnirt.Timeout, match=r"rank 1 of 2 did not arrive within 300 ms"):
        cpu.comm(store, rank=0, nranks=2, key_prefix="alone/", timeout=0.3)
    assert time.monotonic() - start < 5


@pytest.fixture
def pair(cpu):
    comms = cpu.local_comms([0, 0])
    yield comms
    for c in comms:
        c.close()


def test_bad_tensors_are_named(pair, np, torch):
    c = pair[0]
    f32 = np.zeros(4, dtype=np.float32)
    bad = [
        (lambda: c.all_reduce([1.0, 2.0]), r"send: expected a tensor with __dlpack__.*list"),
        (lambda: c.all_reduce(f32, np.zeros(4, dtype=np.complex64)),
         r"all_reduce: recv has dtype complex64, which collectives do not take"),
        (lambda: c.all_reduce(f32, np.zeros(4, dtype=np.float64)),
         r"all_reduce: recv has dtype float64, send float32; they must match"),
        (lambda: c.all_reduce(f32, np.zeros(5, dtype=np.float32)),
         r"all_reduce: recv has 5 elements; it needs 4, as many as send"),
        (lambda: c.all_reduce(np.zeros((4, 3), dtype=np.float32).T),
         r"all_reduce: send is not contiguous"),
        (lambda: c.all_reduce(torch.zeros(4, 4)[:, 1]), r"all_reduce: send is not contiguous"),
        (lambda: c.all_reduce(ForeignTensor(f32, device_type=2)),
         r"all_reduce: send is on cuda:0, the communicator's device is cpu:0"),
        (lambda: c.all_reduce(f32, op="mean"), r"op must be 'sum', 'prod', 'min', 'max' or 'avg'"),
        (lambda: c.all_gather(f32, np.zeros(4, dtype=np.float32)),
         r"all_gather: recv has 4 elements; it needs 8, nranks \(2\) times send's"),
        (lambda: c.all_gather(f32, None), r"all_gather: recv is required"),
        (lambda: c.reduce_scatter(np.zeros(3, dtype=np.float32), np.zeros(1, dtype=np.float32)),
         r"reduce_scatter: send has 3 elements, not a multiple of nranks \(2\)"),
        (lambda: c.reduce_scatter(f32, np.zeros(4, dtype=np.float32)),
         r"reduce_scatter: recv has 4 elements; it needs 2"),
        (lambda: c.send(np.zeros(2, dtype=np.complex128), peer=1),
         r"send: tensor has dtype complex128"),
        (lambda: c.broadcast(f32, root=2), r"root"),
        (lambda: c.send(f32, peer=5), r"peer"),
    ]
    for call, message in bad:
        with pytest.raises(omnirt.InvalidArgument, match=message):
            call()
    assert [x.async_error() for x in pair] == [None, None]  # refused before the library


def test_bad_creation_arguments(cpu, store, tmp_path):
    with pytest.raises(omnirt.InvalidArgument, match=r"store must be an omnirt.FileStore, got str"):
        cpu.comm(str(tmp_path), rank=0, nranks=1)
    with pytest.raises(omnirt.InvalidArgument, match=r"rank"):
        cpu.comm(store, rank=2, nranks=2)
    with pytest.raises(omnirt.InvalidArgument, match=r"timeout must be"):
        cpu.comm(store, rank=0, nranks=1, timeout=0)
    with pytest.raises(omnirt.OutOfRange, match=r"device 3 is out of range"):
        cpu.comm(store, rank=0, nranks=1, device=3)
    with pytest.raises(omnirt.OutOfRange, match=r"device 7 is out of range"):
        cpu.local_comms([0, 7])
    os.chmod(tmp_path, 0o777)  # a directory anyone may write is refused
    try:
        with pytest.raises(omnirt.InvalidArgument, match=r"world-writable"):
            omnirt.FileStore(tmp_path)
    finally:
        os.chmod(tmp_path, 0o700)


def test_closing_in_any_order_is_safe(config, tmp_path, np):
    rt = omnirt.Runtime(config=config, ignore_environment=True)
    b = rt.backend("cpu")
    try:
        b.collectives_library()
    except (omnirt.Unavailable, omnirt.NotSupported) as e:
        pytest.skip(f"the cpu backend has no collectives here: {e}")
    store = omnirt.FileStore(tmp_path / "store")
    comm = b.comm(store, rank=0, nranks=1, key_prefix="order/")
    store.close()  # the communicator keeps the store it met through
    rt.close()  # and the host
    x = np.arange(3, dtype=np.int32)
    assert comm.all_reduce(x, op="prod") is x and x.tolist() == [0, 1, 2]
    assert comm.backend == "cpu" and repr(comm) == "omnirt.Communicator(rank=0, nranks=1, device=0)"
    comm.close()
    comm.close()  # idempotent
    with pytest.raises(omnirt.InvalidArgument, match=r"this Communicator is closed"):
        comm.all_reduce(x)
    with pytest.raises(omnirt.InvalidArgument, match=r"this FileStore is closed"):
        b.comm(store, rank=0, nranks=1)


def test_a_failing_group_block_keeps_its_exception(cpu, np):
    with pytest.raises(KeyError, match="mine"):
        with cpu.group():
            raise KeyError("mine")
    with cpu.local_comms([0])[0] as c:  # the group was ended: this runs now, not deferred
        gathered = c.all_gather(np.ones(2, dtype=np.int64), np.zeros(2, dtype=np.int64))
        assert gathered.tolist() == [1, 1]


@pytest.mark.parametrize("companion", ["missing", "broken"])
def test_without_gloo_the_backend_says_why(paths, tmp_path, store, companion):
    plugin = os.path.join(paths["plugin_dir"], "libomnirt_backend_cpu.so")
    if not os.path.exists(plugin):
        pytest.skip("the cpu backend is not built")
    alone = tmp_path / "plugins"
    alone.mkdir()
    shutil.copy(plugin, alone)  # without the gloo library beside it
    if companion == "broken":
        # The file is there, so the bit is set (discovery loads nothing); using it says why not.
        (alone / "libomnirt_cpu_gloo.so").write_text("not a library")
        error, reason, advertised = omnirt.Unavailable, r"cannot load the gloo collectives", True
    else:
        error, reason, advertised = omnirt.NotSupported, r"cpu_gloo.so is not installed", False
    with omnirt.Runtime(alone, ignore_environment=True, skip_installed=True) as rt:
        b = rt.backend("cpu")
        assert ("collectives" in b.capabilities.features) == advertised
        with pytest.raises(error, match=reason) as raised:
            b.collectives_library()
        assert raised.value.backend == "cpu"
        with pytest.raises(error, match=reason):
            b.comm(store, rank=0, nranks=1)
        with pytest.raises(error, match=reason):
            b.local_comms([0, 0])


def test_the_documented_example_runs(cpu, paths, tmp_path, config):
    pytest.importorskip("numpy")
    example = os.path.join(paths["source_dir"], "examples", "collectives", "allreduce.py")
    env = dict(os.environ, OMNIRT_CONFIG=str(config), OMNIRT_PLUGIN_PATH="")
    out = subprocess.run([sys.executable, example, str(tmp_path / "store")], env=env,
                         capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S)
    assert out.returncode == 0, out.stderr
    sums = re.findall(r"rank ([01]) of 2 \(gloo [^\n]*\): sum = (.*)", out.stdout)
    assert sorted(sums) == [(r, "[[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]]") for r in "01"], out.stdout
    # docs/collectives.md shows the example's own lines.
    with open(os.path.join(paths["source_dir"], "docs", "collectives.md")) as f:
        shown = re.search(r"```python\n(.*?)```", f.read(), re.S).group(1)
    with open(example) as f:
        source = f.read()
    assert shown.strip() and all(line.strip() in source for line in shown.splitlines())
