"""A real Dask cluster for the distributed-inference tests: two worker processes on loopback."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster

WIDTH = 240


def event(rng: random.Random, index: int) -> dict[str, Any]:
    """One record as user code builds it: a dict literal with a few optional and mixed fields."""
    record: dict[str, Any] = {
        "id": index,
        "kind": rng.choice(["click", "view", "buy"]),
        "at": f"2024-01-{rng.randint(1, 28):02d}T10:00:00Z",
        "user": {"name": rng.choice(["ada", "bob"]), "tags": rng.sample(["a", "b", "c"], 2)},
    }
    if index % 5 == 0:
        record["price"] = rng.choice([1, 2.5, "3"])
    if index % 11 == 0:
        record["note"] = None
    return record


def write_files(folder: Path, files: int, rows: int, seed: int = 7) -> tuple[list[Path], list[Any]]:
    """Writes `files` JSON Lines files of `rows` records each, every line padded with spaces to
    one width so the files have one size; returns them and every record."""
    rng = random.Random(seed)
    paths, records = [], []
    for number in range(files):
        rows_of_file = [event(rng, number * rows + i) for i in range(rows)]
        path = folder / f"part-{number}.jsonl"
        path.write_text("".join(json.dumps(row).ljust(WIDTH) + "\n" for row in rows_of_file))
        paths.append(path)
        records.extend(rows_of_file)
    return paths, records


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local


@pytest.fixture(scope="module")
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster) as connected:
        yield connected
