"""`infer_dask` on a real two-process Dask cluster gives the single-process schema exactly."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import cloudpickle
import dask
import dask.bag as db
import fsspec
import pytest
from distributed import Client

from orkestrel.contract import (
    JSONInputError,
    SchemaBuilder,
    infer_json_lines,
    samples_to_schema,
)
from orkestrel.contract.dask import infer_dask, reduce_dask

from .conftest import event, write_files

# Worker processes cannot import this test module; ship its functions by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def test_eight_files_in_64_partitions_on_two_worker_processes_match_one_process(
    client: Client, tmp_path: Path
) -> None:
    paths, records = write_files(tmp_path, files=8, rows=1_500)
    blocksize = paths[0].stat().st_size // 8  # dask cuts a file into size // blocksize parts
    result = reduce_dask(
        [str(path) for path in paths], client=client, format=True, enum=True, blocksize=blocksize
    )
    assert result.partitions == 64
    assert result.samples == result.lines == len(records)
    expected = samples_to_schema(records, format=True, enum=True)
    assert result.schema == expected
    assert json.dumps(result.schema) == json.dumps(expected)
    assert len(client.scheduler_info()["workers"]) == 2


def test_a_glob_reads_every_matching_file(client: Client, tmp_path: Path) -> None:
    _, records = write_files(tmp_path, files=3, rows=200)
    schema = infer_dask(str(tmp_path / "part-*.jsonl"), client=client, blocksize=4096)
    assert schema == samples_to_schema(records)


def slow_record(index: int) -> dict[str, Any]:
    time.sleep(0.01)
    return {"id": index, "even": index % 2 == 0, "name": f"n{index % 7}"}


def test_a_worker_killed_in_the_middle_of_the_job_still_gives_the_same_schema(
    client: Client,
) -> None:
    indices = list(range(640))
    bag = db.from_sequence(indices, npartitions=64).map(slow_record)
    pids = client.run(os.getpid)
    started = time.monotonic()
    done: list[Any] = []

    def run() -> None:
        done.append(reduce_dask(bag, client=client))

    worker = threading.Thread(target=run)
    worker.start()
    while time.monotonic() - started < 60:
        processing = client.processing()
        stored = sum(len(keys) for keys in client.has_what().values())
        if stored >= 4 and any(processing.values()):
            break
        time.sleep(0.01)
    victim = next(iter(pids.values()))
    os.kill(victim, signal.SIGKILL)
    worker.join(timeout=120)
    assert not worker.is_alive()
    assert done[0].schema == samples_to_schema([slow_record(i) for i in indices])
    assert done[0].samples == len(indices)
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.run(os.getpid).values()


def bad_file(path: Path, bad: set[int], rows: int) -> Path:
    lines = [json.dumps({"n": i}) if i not in bad else '{"n": ' for i in range(rows)]
    lines[rows // 2] = ""  # a blank line is read but is no sample
    path.write_text("\n".join(lines) + "\n")
    return path


def local_report(paths: list[Path]) -> tuple[int, int, int, list[tuple[Any, ...]]]:
    lines = samples = skipped = 0
    errors: list[tuple[Any, ...]] = []
    for path in paths:
        report = SchemaBuilder().add_json_lines(path, errors="skip")
        lines, samples, skipped = (
            lines + report.lines,
            samples + report.samples,
            skipped + report.skipped,
        )
        errors += [(e.source, e.line, e.column, e.reason, e.code) for e in report.errors]
    return lines, samples, skipped, errors[:10]


def test_bad_lines_are_reported_with_file_line_and_column_as_the_local_reader_does(
    client: Client, tmp_path: Path
) -> None:
    paths = [
        bad_file(tmp_path / "a.jsonl", {3, 700, 701, 1999}, 2_000),
        bad_file(tmp_path / "b.jsonl", set(range(100, 2_000, 150)), 2_000),
    ]
    result = reduce_dask([str(p) for p in paths], client=client, errors="skip", blocksize=1_000)
    assert result.partitions > 20
    lines, samples, skipped, errors = local_report(paths)
    assert (result.lines, result.samples, result.skipped) == (lines, samples, skipped)
    assert [(e.source, e.line, e.column, e.reason, e.code) for e in result.errors] == errors
    with pytest.raises(JSONInputError) as raised:
        reduce_dask([str(p) for p in paths], client=client, blocksize=1_000)
    with pytest.raises(JSONInputError) as local:
        infer_json_lines(paths[0])
    assert (raised.value.source, raised.value.line, raised.value.column) == (
        str(paths[0]),
        local.value.line,
        local.value.column,
    )
    assert str(raised.value) == str(local.value)


def test_memory_urls_go_through_fsspec() -> None:
    records = [{"id": i, "tag": "x" if i % 3 else None} for i in range(500)]
    memory = fsspec.filesystem("memory")
    memory.pipe("/orkestrel-dask/a.jsonl", "".join(json.dumps(r) + "\n" for r in records).encode())
    # memory:// lives in this process, so the graph runs here, not on the cluster's workers.
    with dask.config.set(scheduler="sync"):
        schema = infer_dask("memory://orkestrel-dask/a.jsonl", blocksize=2_000)
    assert schema == samples_to_schema(records)


def test_a_bag_of_records_and_json_documents(client: Client, tmp_path: Path) -> None:
    records = [event(__import__("random").Random(3), i) for i in range(300)]
    assert infer_dask(db.from_sequence(records, npartitions=7), client=client) == (
        samples_to_schema(records)
    )
    for index, record in enumerate(records[:5]):
        (tmp_path / f"doc-{index}.json").write_text(json.dumps(record, indent=2))
    docs = sorted(str(p) for p in tmp_path.glob("doc-*.json"))
    assert infer_dask(docs, client=client, layout="json") == samples_to_schema(records[:5])


def test_bad_options_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="limit must be an int"):
        reduce_dask(str(tmp_path / "none.jsonl"), max_depth="deep")  # type: ignore[arg-type]
    for options in ({"errors": "ignore"}, {"layout": "csv"}, {"split_every": 1}):
        with pytest.raises(ValueError, match=next(iter(options))):
            reduce_dask(str(tmp_path / "none.jsonl"), **options)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        reduce_dask(str(tmp_path / "missing.jsonl"))


def test_no_input_gives_the_empty_schema() -> None:
    result = reduce_dask([])
    assert (result.partitions, result.lines, result.samples) == (0, 0, 0)
    assert result.schema == SchemaBuilder().to_schema()


def test_the_merging_mode_gives_the_single_process_schema(client: Client, tmp_path: Path) -> None:
    rng = __import__("random").Random(11)
    records = [
        {"id": i, "items": [{k: i for k in rng.sample("abc", 2)} for _ in range(rng.randint(0, 3))]}
        for i in range(600)
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    want = samples_to_schema(records, merge=True)
    assert want["properties"]["items"]["items"]["type"] == "object"
    assert infer_dask(str(path), client=client, merge=True, blocksize=2_000) == want
    bag = db.from_sequence(records, npartitions=5)
    assert infer_dask(bag, client=client, merge=True) == want
    assert infer_dask(str(path), client=client, blocksize=2_000) != want
