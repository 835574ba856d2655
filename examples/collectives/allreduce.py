"""Two processes all-reduce a tensor through OmniRT from Python: the omnirt
package's twin of main.cpp (docs/collectives.md). Each rank joins a
communicator of the cpu backend, meeting the other through the host's file
store, and sums its numpy array with the other's in place.

    allreduce.py STORE_DIR                      runs both ranks (starts itself twice)
    allreduce.py STORE_DIR --rank R --nranks N  runs rank R of N

Rank r's tensor is 2x3 of (r + 1) * (1, 2, 3, 4, 5, 6); the sum over two
ranks is 3 * (1, ..., 6). Needs PYTHONPATH to reach the omnirt package
where it is not installed.
"""
import argparse
import subprocess
import sys

import numpy as np

import omnirt


def run_rank(store_dir, rank, nranks):
    with omnirt.Runtime() as rt, omnirt.FileStore(store_dir) as store:
        b = rt.backend("cpu")
        with b.comm(store, rank=rank, nranks=nranks, key_prefix="example/", timeout=30) as comm:
            tensor = (rank + 1) * np.arange(1, 7, dtype=np.float32).reshape(2, 3)
            comm.all_reduce(tensor)                  # in place, op="sum"; numpy or torch
            line = f"rank {rank} of {nranks} ({b.collectives_library()}): sum = {tensor.tolist()}\n"
            sys.stdout.write(line)  # one write: the ranks share the terminal


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store_dir")
    parser.add_argument("--rank", type=int)
    parser.add_argument("--nranks", type=int, default=2)
    args = parser.parse_args()
    if args.rank is not None:
        return run_rank(args.store_dir, args.rank, args.nranks)
    ranks = [subprocess.Popen([sys.executable, __file__, args.store_dir, "--rank", str(r),
                               "--nranks", str(args.nranks)]) for r in range(args.nranks)]
    return 1 if any(p.wait(timeout=120) != 0 for p in ranks) else 0


if __name__ == "__main__":
    sys.exit(main())
