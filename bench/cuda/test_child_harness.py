"""child_harness: a child that crashes in one variant is reported, that
variant dropped, and the others run again in a fresh child.

    /usr/bin/python3 -m pytest -q bench/cuda/test_child_harness.py
"""
import contextlib
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import child_harness  # noqa: E402

# A stand-in for aoti_goal.py's run child: marks each variant's stage, dies
# of SIGSEGV in the one named "crash", else prints a RESULT line.
FAKE_CHILD = """
import json, os, signal, sys
sys.path.insert(0, {here!r})
import child_harness
stages = child_harness.Stages(sys.argv[1])
for v in sys.argv[2].split(","):
    stages.mark(v, "setup")
    if v == "crash":
        print("about to crash", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGSEGV)
print(child_harness.RESULT_PREFIX + json.dumps({{"ran": sys.argv[2].split(",")}}))
"""


@contextlib.contextmanager
def temp_dir():
    with tempfile.TemporaryDirectory(prefix="omnirt-child-harness-") as d:
        yield pathlib.Path(d)


def fake_argv(tmp_path, stage_path):
    script = tmp_path / "fake_child.py"
    script.write_text(FAKE_CHILD.format(here=str(pathlib.Path(__file__).resolve().parent)))
    return lambda left: [sys.executable, str(script), stage_path, ",".join(left)]


def test_a_crashing_variant_is_dropped_and_the_rest_run(capsys):
    with temp_dir() as tmp_path:
        a_crashing_variant_is_dropped(tmp_path, capsys)


def a_crashing_variant_is_dropped(tmp_path, capsys):
    stage_path = str(tmp_path / "stages")
    result, crashed = child_harness.run_variants(fake_argv(tmp_path, stage_path), ["a", "crash", "b"],
                                                 stage_path, timeout=60)
    assert result == {"ran": ["a", "b"]}
    assert list(crashed) == ["crash"]
    assert "SIGSEGV" in crashed["crash"] and "setup" in crashed["crash"]
    out = capsys.readouterr().out
    assert "about to crash" in out  # the stderr tail is reported
    assert "Fatal Python error" in out  # PYTHONFAULTHANDLER=1 printed the stack


def test_no_crash_runs_once():
    with temp_dir() as tmp_path:
        no_crash_runs_once(tmp_path)


def no_crash_runs_once(tmp_path):
    stage_path = str(tmp_path / "stages")
    result, crashed = child_harness.run_variants(fake_argv(tmp_path, stage_path), ["a", "b"], stage_path,
                                                 timeout=60)
    assert result == {"ran": ["a", "b"]} and crashed == {}


def test_only_crashing_variants_leave_nothing():
    with temp_dir() as tmp_path:
        only_crashing_variants_leave_nothing(tmp_path)


def only_crashing_variants_leave_nothing(tmp_path):
    stage_path = str(tmp_path / "stages")
    result, crashed = child_harness.run_variants(fake_argv(tmp_path, stage_path), ["crash"], stage_path,
                                                 timeout=60)
    assert result is None and list(crashed) == ["crash"]


def test_describe_exit():
    assert child_harness.describe_exit(-11) == "killed by signal 11 (SIGSEGV)"
    assert child_harness.describe_exit(None) == "timed out"
    assert child_harness.describe_exit(3) == "exit status 3"
