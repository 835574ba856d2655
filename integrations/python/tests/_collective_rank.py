"""One rank of test_collectives.py's process groups, and the cases' inputs
and exact references, which the test computes in plain Python.

Run as a script, one process per rank:

    _collective_rank.py STORE_DIR RANK NRANKS CONFIG SCENARIO [LIB ...]

``every`` runs every collective with every dtype and reduction of each LIB
(``numpy``, ``torch``) on the cpu backend and prints ``{case: values}`` as
JSON; ``leave`` (2 ranks) has rank 1 leave after joining while rank 0
all-reduces, and rank 0 print the error and async_error() it gets.

Bool tensors cross as bool even where torch 1.13 and numpy 1.24 cannot export
them through DLPack (the package passes their bytes, marked bool).
"""
import json
import sys

OPS = ("sum", "prod", "min", "max", "avg")
BOOL_OPS = ("sum", "prod", "min", "max")  # "or", "and", "and", "or"; no avg
# Every dtype of each library that collectives take.
DTYPES = {
    "numpy": ("float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8",
              "bool"),
    "torch": ("float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64",
              "uint8", "bool"),
}
TIMEOUT_S = 30
# ``leave``'s: a failing rank waits a tenth of it for the others' reports.
LEAVE_TIMEOUT_S = 5


def value(rank, index, dtype):
    """Element ``index`` of rank ``rank``'s input: small integers, so that
    every reduction over 4 ranks is exact in every dtype (uint8: 1..3, else
    -2..2)."""
    if dtype == "uint8":
        return (rank * 3 + index) % 3 + 1
    if dtype == "bool":
        return (rank + index) % 3 != 0
    return (rank * 3 + index) % 5 - 2


def ops(dtype):
    return BOOL_OPS if dtype == "bool" else OPS


def reduce(op, values, dtype):
    """The exact reduction of ``values``; integer averages truncate toward zero;
    bool's sum and max are "or", its prod and min "and"."""
    if dtype == "bool":
        return any(values) if op in ("sum", "max") else all(values)
    if op == "sum":
        return sum(values)
    if op == "prod":
        result = 1
        for v in values:
            result *= v
        return result
    if op == "min":
        return min(values)
    if op == "max":
        return max(values)
    total = sum(values)
    if dtype.startswith(("float", "bfloat")):
        return total / len(values)
    return abs(total) // len(values) * (1 if total >= 0 else -1)


def count(nranks):
    """Elements of the inputs of all_reduce, reduce_scatter, broadcast, send."""
    return 2 * nranks


def expected(nranks, libs):
    """``{case: values}`` every rank's run of ``every`` must print."""
    cases = {}
    n = count(nranks)
    root = nranks - 1
    for lib in libs:
        for dtype in DTYPES[lib]:
            key = f"{lib}/{dtype}"
            inputs = [[value(r, i, dtype) for i in range(n)] for r in range(nranks)]
            for op in ops(dtype):
                reduced = [reduce(op, [inputs[r][i] for r in range(nranks)], dtype)
                           for i in range(n)]
                cases[f"{key}/all_reduce/{op}"] = reduced
                # Rank r's share; each rank checks its own below.
                cases[f"{key}/reduce_scatter/{op}"] = [reduced[r * 2:r * 2 + 2]
                                                       for r in range(nranks)]
            cases[f"{key}/all_reduce_in_place"] = cases[f"{key}/all_reduce/sum"]
            cases[f"{key}/all_gather"] = [v for r in range(nranks) for v in inputs[r][:2]]
            cases[f"{key}/broadcast"] = inputs[root]
            # A ring: each rank receives its left neighbour's input.
            cases[f"{key}/send_recv"] = [inputs[(r - 1) % nranks] for r in range(nranks)]
    return cases


def per_rank(cases, rank):
    """The values rank ``rank`` must print: its own share where ranks differ."""
    own = {}
    for key, values in cases.items():
        differs = key.endswith("send_recv") or "/reduce_scatter/" in key
        own[key] = values[rank] if differs else values
    return own


class _Lib:
    """Makes tensors of one library and reads them back as Python numbers."""

    def __init__(self, name):
        self.name = name
        self.mod = __import__(name)

    def tensor(self, values, dtype, shape):
        if self.name == "numpy":
            return self.mod.array(values, dtype=dtype).reshape(shape)
        return self.mod.tensor(values, dtype=getattr(self.mod, dtype)).reshape(shape)

    def zeros(self, n, dtype):
        if self.name == "numpy":
            return self.mod.zeros(n, dtype=dtype)
        return self.mod.zeros(n, dtype=getattr(self.mod, dtype))

    def values(self, t):
        if self.name == "torch":
            t = t.double() if t.is_floating_point() else t
        return [v for v in t.reshape(-1).tolist()]


def run_every(backend, comm, libs):
    rank, nranks = comm.rank, comm.nranks
    n = count(nranks)
    got = {}
    for lib in map(_Lib, libs):
        for dtype in DTYPES[lib.name]:
            key = f"{lib.name}/{dtype}"
            mine = [value(rank, i, dtype) for i in range(n)]
            for op in ops(dtype):
                send = lib.tensor(mine, dtype, (2, nranks))
                recv = lib.tensor([0] * n, dtype, (nranks, 2))  # only the count must agree
                got[f"{key}/all_reduce/{op}"] = lib.values(comm.all_reduce(send, recv, op=op))
                got[f"{key}/reduce_scatter/{op}"] = lib.values(
                    comm.reduce_scatter(send, lib.zeros(2, dtype), op=op))
            in_place = lib.tensor(mine, dtype, (n,))
            comm.all_reduce(in_place)
            got[f"{key}/all_reduce_in_place"] = lib.values(in_place)
            got[f"{key}/all_gather"] = lib.values(
                comm.all_gather(lib.tensor(mine[:2], dtype, (2,)), lib.zeros(2 * nranks, dtype)))
            got[f"{key}/broadcast"] = lib.values(
                comm.broadcast(lib.tensor(mine, dtype, (n,)), lib.zeros(n, dtype), root=nranks - 1))
            received = lib.zeros(n, dtype)
            with backend.group():  # each rank sends and receives: launched together
                comm.send(lib.tensor(mine, dtype, (n,)), peer=(rank + 1) % nranks)
                comm.recv(received, peer=(rank - 1) % nranks)
            got[f"{key}/send_recv"] = lib.values(received)
    return got


def run_leave(comm):
    """Rank 1 leaves; rank 0's all_reduce fails and breaks the communicator."""
    import numpy as np
    import omnirt
    if comm.rank == 1:
        comm.close()
        return {"left": True}
    try:
        comm.all_reduce(np.ones(4, dtype=np.float32))
    except omnirt.Error as e:
        error = e
    else:
        return {"error": None}
    later = comm.async_error()
    return {"error": type(error).__name__, "message": error.message,
            "async_error": type(later).__name__ if later is not None else None,
            "async_message": later.message if later is not None else None}


def main(store_dir, rank, nranks, config, scenario, *libs):
    import omnirt
    rank, nranks = int(rank), int(nranks)
    with omnirt.Runtime(config=config, ignore_environment=True) as rt, \
            omnirt.FileStore(store_dir) as store:
        backend = rt.backend("cpu")
        timeout = TIMEOUT_S if scenario == "every" else LEAVE_TIMEOUT_S
        with backend.comm(store, rank=rank, nranks=nranks, key_prefix=scenario + "/",
                          timeout=timeout) as comm:
            result = run_every(backend, comm, libs) if scenario == "every" else run_leave(comm)
    print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:])
