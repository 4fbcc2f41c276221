"""Schema inference throughput against what Python users do today (genson) and against the
physical-limit proxies: one native pass over the objects (`orjson.dumps`) and parsing the JSON
Lines into Python objects (`orjson.loads` line by line). The merging mode (`merge=True`) runs
next to the default, and polars-genson (genson's way, in Rust) on the same bytes.

Data comes from `benches/generate.py` (written on first use to `benches/data/`, not tracked).
Run with a release build: `maturin develop --release && pytest benches/bench_infer.py -c
benches/pytest.ini`. genson takes seconds per round, so every case runs a fixed small number of
rounds (`pedantic`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from genson import SchemaBuilder as GensonBuilder

from orkestrel.contract import SchemaBuilder, infer_json_lines, samples_to_schema

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
FILES = {"events": DATA / "events.jsonl", "logs": DATA / "logs.jsonl"}
ROUNDS = 3
CORES = os.cpu_count() or 1


def _ensure_data() -> None:
    if not all(path.exists() for path in FILES.values()):
        subprocess.run([sys.executable, str(HERE / "generate.py"), "--big", "0"], check=True)


@pytest.fixture(scope="module", params=list(FILES))
def dataset(request: pytest.FixtureRequest) -> tuple[str, bytes, list[Any]]:
    _ensure_data()
    name: str = request.param
    data = FILES[name].read_bytes()
    records = [orjson.loads(line) for line in data.splitlines()]
    return name, data, records


def _run(benchmark: Any, group: str, func: Callable[[], Any], rounds: int = ROUNDS) -> Any:
    benchmark.group = group
    return benchmark.pedantic(func, rounds=rounds, iterations=1, warmup_rounds=0)


def _genson(records: list[Any]) -> dict[str, Any]:
    builder = GensonBuilder()
    for record in records:
        builder.add_object(record)
    schema: dict[str, Any] = builder.to_schema()
    return schema


def bench_objects_genson(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, _, records = dataset
    _run(benchmark, f"objects-{name}", lambda: _genson(records))


def bench_objects_orjson_dumps(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, _, records = dataset
    _run(benchmark, f"objects-{name}", lambda: orjson.dumps(records))


def bench_objects_samples_to_schema(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, _, records = dataset
    schema = _run(benchmark, f"objects-{name}", lambda: samples_to_schema(records))
    benchmark.extra_info["correct"] = schema == infer_json_lines(FILES[name])


def bench_objects_samples_to_schema_merge(
    benchmark: Any, dataset: tuple[str, bytes, list[Any]]
) -> None:
    name, _, records = dataset
    schema = _run(benchmark, f"objects-{name}", lambda: samples_to_schema(records, merge=True))
    benchmark.extra_info["correct"] = schema == infer_json_lines(FILES[name], merge=True)


def bench_objects_builder_add(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, _, records = dataset

    def build() -> dict[str, Any]:
        builder = SchemaBuilder()
        for record in records:
            builder.add(record)
        return builder.to_schema()

    _run(benchmark, f"objects-{name}", build)


def bench_bytes_one_core(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, data, _ = dataset
    _run(benchmark, f"bytes-{name}", lambda: infer_json_lines(data, threads=1))
    benchmark.extra_info["mb"] = len(data) / 1e6


def bench_bytes_one_core_merge(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, data, _ = dataset
    _run(benchmark, f"bytes-{name}", lambda: infer_json_lines(data, threads=1, merge=True))
    benchmark.extra_info["mb"] = len(data) / 1e6


def bench_bytes_polars_genson(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    polars = pytest.importorskip("polars")
    pytest.importorskip("polars_genson")  # registers the `genson` namespace
    name, data, _ = dataset
    column = polars.DataFrame({"line": data.decode().splitlines()})
    _run(benchmark, f"bytes-{name}", lambda: column.genson.infer_json_schema("line"))


def bench_bytes_all_cores(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, data, _ = dataset
    _run(benchmark, f"bytes-{name}", lambda: infer_json_lines(data, threads=CORES))
    benchmark.extra_info["cores"] = CORES


def bench_bytes_file_stream(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, _, _ = dataset
    _run(benchmark, f"bytes-{name}", lambda: infer_json_lines(FILES[name]))


def bench_bytes_orjson_loads(benchmark: Any, dataset: tuple[str, bytes, list[Any]]) -> None:
    name, data, _ = dataset
    _run(benchmark, f"bytes-{name}", lambda: [orjson.loads(line) for line in data.splitlines()])


def bench_bytes_orjson_loads_then_infer(
    benchmark: Any, dataset: tuple[str, bytes, list[Any]]
) -> None:
    name, data, _ = dataset

    def both() -> dict[str, Any]:
        return samples_to_schema([orjson.loads(line) for line in data.splitlines()])

    _run(benchmark, f"bytes-{name}", both)
