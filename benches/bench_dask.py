"""Distributed inference on one machine: a 2-process Dask cluster against the local 2-core reader.

Not a test: run it by hand with a release build, after `python benches/generate.py`:

    python benches/bench_dask.py [--rounds 3] [--blocksize 64MiB]

On one machine a cluster can only add overhead (task scheduling, pickled builders, each worker
reading its own blocks), so the ratio says what the cluster costs, not what it gains. The script
also measures what bounds the design at scale: the merge cost per partition and the size of the
state a partition sends back.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import time
from pathlib import Path

from distributed import Client, LocalCluster

from orkestrel.contract import SchemaBuilder, infer_json_lines
from orkestrel.contract.dask import reduce_dask

HERE = Path(__file__).resolve().parent
BIG = HERE / "data" / "events-1g.jsonl"


def _local(path: Path) -> float:
    started = time.perf_counter()
    infer_json_lines(path, threads=2)
    return time.perf_counter() - started


def _cluster(path: Path, client: Client, blocksize: str) -> tuple[float, int]:
    started = time.perf_counter()
    result = reduce_dask(str(path), client=client, blocksize=blocksize)
    return time.perf_counter() - started, result.partitions


def _merge_cost(path: Path, parts: int) -> tuple[float, int]:
    lines = path.open("rb").readlines()[: parts * 500]
    builders = []
    for index in range(parts):
        builder = SchemaBuilder()
        builder.add_json_lines(b"".join(lines[index * 500 : (index + 1) * 500]))
        builders.append(builder)
    size = max(len(pickle.dumps(builder)) for builder in builders)
    started = time.perf_counter()
    merged = pickle.loads(pickle.dumps(builders[0]))
    for builder in builders[1:]:
        merged.merge(pickle.loads(pickle.dumps(builder)))
    return (time.perf_counter() - started) / (parts - 1), size


def main() -> None:
    """Prints interleaved timings of both readers and the per-partition merge figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--blocksize", default="64MiB")
    args = parser.parse_args()
    size = BIG.stat().st_size
    local_times, cluster_times = [], []
    partitions = 0
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        _cluster(BIG, client, args.blocksize)  # warm the workers' imports
        for _ in range(args.rounds):
            local_times.append(_local(BIG))
            seconds, partitions = _cluster(BIG, client, args.blocksize)
            cluster_times.append(seconds)
    local, remote = statistics.median(local_times), statistics.median(cluster_times)
    print(f"input: {size / 1e9:.2f} GB, {partitions} partitions of {args.blocksize}")
    print(f"local reader, 2 threads: {local:.2f} s ({size / local / 1e6:.0f} MB/s)")
    print(f"dask, 2 worker processes: {remote:.2f} s ({size / remote / 1e6:.0f} MB/s)")
    print(f"ratio (dask / local): {remote / local:.2f}")
    merge, state = _merge_cost(BIG, 64)
    print(f"merge cost per partition (pickle round trip + merge): {merge * 1e6:.0f} µs")
    print(f"largest partition state (pickled builder): {state} bytes")


if __name__ == "__main__":
    main()
