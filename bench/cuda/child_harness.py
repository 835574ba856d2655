"""Runs benchmark work in child processes so that a crash (a segfault in a
compiler or a loader) is reported and the rest still runs. No torch here.

A child names what it is doing by appending lines to a stage file
(`Stages.mark`); when it dies, the last line says which variant it was in.
`run_variants` runs a set of variants in one child, and after a crash runs
the others again without the one the child died in, until a child finishes
or nothing is left.
"""
import json
import os
import signal
import subprocess
import sys

RESULT_PREFIX = "RESULT "
TAIL_LINES = 25


class Stages:
    """The child's side: where it is, written through (unbuffered) so that it
    survives a crash."""

    def __init__(self, path):
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if path else None

    def mark(self, variant, phase):
        if self._fd is not None:
            os.write(self._fd, f"{variant}\t{phase}\n".encode())


def last_stage(path):
    """(variant, phase) of the stage file's last line, or (None, None)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f if line.strip()]
    except OSError:
        return None, None
    if not lines:
        return None, None
    variant, _, phase = lines[-1].partition("\t")
    return variant, phase


def describe_exit(rc):
    if rc is None:
        return "timed out"
    if rc < 0:
        try:
            return f"killed by signal {-rc} ({signal.Signals(-rc).name})"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


def tail(text, lines=TAIL_LINES):
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run_child(argv, timeout, env=None):
    """Runs argv with Python's fault handler on (a crash prints the Python
    stack to stderr). Returns (returncode or None on timeout, stdout, stderr);
    the child's stdout is echoed as it finishes."""
    child_env = dict(os.environ if env is None else env)
    child_env["PYTHONFAULTHANDLER"] = "1"
    child_env["PYTHONUNBUFFERED"] = "1"
    try:
        done = subprocess.run(argv, env=child_env, capture_output=True, text=True, timeout=timeout)
        rc, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as e:
        rc = None
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    sys.stdout.write("".join(line + "\n" for line in out.splitlines() if not line.startswith(RESULT_PREFIX)))
    sys.stdout.flush()
    return rc, out, err


def parse_result(stdout):
    """The JSON object of the child's last RESULT line, or None."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX):])
    return None


def run_variants(make_argv, variants, stage_path, timeout):
    """Runs `variants` (names) in one child, make_argv(variants) its command
    line; a child that dies is reported and the variant it died in dropped
    from the next try. Returns (result of the child that finished or None,
    {variant: why it was dropped})."""
    left, crashed = list(variants), {}
    while left:
        if os.path.exists(stage_path):
            os.remove(stage_path)
        rc, out, err = run_child(make_argv(left), timeout)
        result = parse_result(out)
        if rc == 0 and result is not None:
            return result, crashed
        variant, phase = last_stage(stage_path)
        why = f"{describe_exit(rc)} in {phase or 'an unknown stage'}"
        print(f"  child {describe_exit(rc)}; last stage: {variant or '-'} {phase or '-'}; its stderr ends:")
        print("    " + tail(err).replace("\n", "\n    "), flush=True)
        if variant not in left:
            # Not inside any one variant (setup, or the timing of all): nothing to drop.
            for v in left:
                crashed[v] = f"{why} (child of all of {', '.join(left)})"
            return None, crashed
        crashed[variant] = why
        left.remove(variant)
    return None, crashed
