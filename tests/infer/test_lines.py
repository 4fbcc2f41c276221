"""`infer_json_lines`, `infer_json` and `SchemaBuilder.add_json_lines` over real files, bytes
and streams, with good and bad input."""

from __future__ import annotations

import io
import json
import os
import pickle
import threading
from pathlib import Path
from typing import Any

import pytest

from orkestrel.contract import (
    JSONInputError,
    SchemaBuilder,
    infer_json,
    infer_json_lines,
    samples_to_schema,
)

ROWS: list[Any] = [
    {"id": i, "kind": ["push", "fork", "watch"][i % 3], "at": f"2024-01-{1 + i % 28:02}"}
    for i in range(50)
] + [{"id": 99, "kind": None, "extra": [1, "x", {"deep": True}]}]
TEXT = "".join(json.dumps(row) + "\n" for row in ROWS).encode()
EXPECTED = samples_to_schema(ROWS, format=True, enum=True)


@pytest.fixture
def events(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    path.write_bytes(TEXT)
    return path


def test_every_kind_of_source_gives_the_same_schema(events: Path) -> None:
    sources: list[Any] = [
        events,
        str(events),
        TEXT,
        bytearray(TEXT),
        memoryview(TEXT),
        io.BytesIO(TEXT),
    ]
    for source in sources:
        assert infer_json_lines(source, format=True, enum=True) == EXPECTED
    with events.open("rb") as stream:
        assert infer_json_lines(stream, format=True, enum=True) == EXPECTED
    for threads in (1, 2, 7):
        assert infer_json_lines(events, format=True, enum=True, threads=threads) == EXPECTED


def test_blank_lines_crlf_and_a_byte_order_mark_are_accepted() -> None:
    text = b"\xef\xbb\xbf" + TEXT.replace(b"\n", b"\r\n\n  \t\n")
    assert infer_json_lines(text, format=True, enum=True) == EXPECTED
    assert infer_json_lines(TEXT.rstrip(b"\n"), format=True, enum=True) == EXPECTED
    assert infer_json_lines(b"") == {}
    assert infer_json_lines(b"\n\n") == {}


def test_a_file_larger_than_the_read_block_streams(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    row = {"user": {"id": 1, "email": "a@b.co"}, "tags": ["x", "y"], "n": 1.5, "s": "z" * 200}
    line = (json.dumps(row) + "\n").encode()
    with path.open("wb") as out:
        for i in range(45_000):
            out.write(line if i != 30_000 else b'{"user": null}\n')
    assert path.stat().st_size > 2 * (4 << 20)
    expected = samples_to_schema([row, {"user": None}])
    seen: list[int] = []
    builder = SchemaBuilder()
    report = builder.add_json_lines(path, progress=seen.append)
    assert builder.to_schema() == expected
    assert (report.lines, report.samples, report.skipped) == (45_000, 45_000, 0)
    assert seen
    assert seen == sorted(seen)
    assert seen[-1] == path.stat().st_size
    with path.open("rb") as stream:
        assert infer_json_lines(stream) == expected


def test_a_file_read_in_pieces_by_its_threads_gives_the_schema_of_its_bytes(
    tmp_path: Path,
) -> None:
    rows = [
        json.dumps({"id": i, "tags": ["a"] * (i % 3), "at": f"2024-01-0{1 + i % 9}"})
        for i in range(60_000)
    ]
    long = json.dumps({"id": 0.5, "blob": "y" * (5 << 20)})
    text = "\ufeff" + "\n".join([*rows[:30_000], "", long, "  ", *rows[30_000:]])
    data = text.encode()
    path = tmp_path / "pieces.jsonl"
    path.write_bytes(data)
    expected = infer_json_lines(data, format=True, threads=1)
    assert expected["properties"]["id"] == {"type": "number"}
    for threads in (1, 2, 16):
        builder = SchemaBuilder(format=True)
        report = builder.add_json_lines(path, threads=threads)
        assert builder.to_schema() == expected
        assert (report.lines, report.samples) == (60_003, 60_001)
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(data,))
    writer.start()
    assert infer_json_lines(fifo, format=True, threads=4) == expected
    writer.join()


def test_the_first_bad_line_raises_with_its_position(tmp_path: Path) -> None:
    lines = TEXT.splitlines(keepends=True)
    lines[17] = b'{"id": 1, "kind": tru}\n'
    lines[30] = b"\xff\xfe\n"
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"".join(lines))
    with pytest.raises(JSONInputError) as caught:
        infer_json_lines(path)
    error = caught.value
    assert (error.line, error.column, error.code) == (18, 19, "unexpected")
    assert error.source == str(path)
    assert str(error) == f"{path}: line 18 column 19: unexpected character"
    assert isinstance(error, ValueError)
    again = pickle.loads(pickle.dumps(error))
    assert (again.line, again.column, str(again)) == (18, 19, str(error))


def test_skip_mode_counts_bad_lines_and_keeps_the_good_ones() -> None:
    bad = [b'{"id": 1,', b'{"id": "\x00"}', b"[1, 2", b'"\xc3\x28"', b"{} {}"]
    text = TEXT + b"\n".join(bad) + b"\n"
    builder = SchemaBuilder(format=True, enum=True)
    report = builder.add_json_lines(text, errors="skip")
    assert builder.to_schema() == EXPECTED
    assert (report.lines, report.samples, report.skipped) == (len(ROWS) + 5, len(ROWS), 5)
    codes = [(e.line, e.code) for e in report.errors]
    start = len(ROWS) + 1
    assert codes == [
        (start, "truncated"),
        (start + 1, "control"),
        (start + 2, "truncated"),
        (start + 3, "utf8"),
        (start + 4, "trailing"),
    ]
    assert "skipped=5" in repr(report)
    with pytest.raises(ValueError, match="errors must be"):
        builder.add_json_lines(text, errors="ignore")  # type: ignore[arg-type]


def test_hostile_lines_never_crash() -> None:
    deep = b"[" * 10_000 + b"]" * 10_000
    token = b'"' + b"a" * (1 << 20) + b'"'
    number = b"1" * (1 << 20)
    text = b"\n".join([deep, token, number, b"\x00" * 100, deep[:15_000], b'{"a": "\xed\xa0\x80"}'])
    builder = SchemaBuilder()
    report = builder.add_json_lines(text, errors="skip")
    assert (report.samples, report.skipped) == (3, 3)
    assert builder.to_schema()["anyOf"]


def test_infer_json_reads_one_document() -> None:
    document = {"rows": ROWS, "count": len(ROWS)}
    text = json.dumps(document, indent=2)
    expected = samples_to_schema([document])
    assert infer_json(text) == infer_json(text.encode()) == expected
    assert infer_json(b"\xef\xbb\xbf[1, 2.5]") == {"type": "array", "items": {"type": "number"}}
    builder = SchemaBuilder()
    builder.add_json(text)
    builder.add_json("null")
    assert builder.to_schema() == samples_to_schema([document, None])
    with pytest.raises(JSONInputError) as caught:
        infer_json('{\n  "a": 1,\n  "b": [1, 2,,]\n}')
    assert (caught.value.line, caught.value.column) == (3, 14)
    with pytest.raises(JSONInputError, match="content after the value"):
        infer_json("1 2")
    with pytest.raises(TypeError):
        infer_json(5)  # type: ignore[arg-type]


def test_input_problems_raise_the_usual_python_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        infer_json_lines(tmp_path / "missing.jsonl")
    assert caught.value.filename == str(tmp_path / "missing.jsonl")
    with pytest.raises(IsADirectoryError):
        infer_json_lines(tmp_path)
    with pytest.raises(TypeError, match="binary"):
        infer_json_lines(io.StringIO('{"a": 1}\n'))
    with pytest.raises(TypeError):
        infer_json_lines(12)  # type: ignore[arg-type]


def test_errors_from_callbacks_and_readers_propagate() -> None:
    class Broken(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            raise OSError("disk on fire")

    with pytest.raises(OSError, match="disk on fire"):
        infer_json_lines(Broken())

    def stop(done: int) -> None:
        raise KeyboardInterrupt

    big = TEXT * 2000
    with pytest.raises(KeyboardInterrupt):
        infer_json_lines(io.BytesIO(big), progress=stop)
    with pytest.raises(KeyboardInterrupt):
        infer_json_lines(big, progress=stop, threads=2)


def test_threads_infer_in_parallel_without_the_gil() -> None:
    big = TEXT * 400
    results: list[Any] = [None] * 4

    def work(i: int) -> None:
        builder = SchemaBuilder(format=True, enum=True)
        builder.add_json_lines(big, threads=1)
        results[i] = builder.to_schema()

    workers = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert results == [EXPECTED] * 4
    shared = SchemaBuilder()
    shared.add_json_lines(big)
    before = shared.to_schema()
    # Re-entering the builder from the progress callback is refused, and nothing is half-added.
    with pytest.raises(RuntimeError):
        shared.add_json_lines(big, progress=lambda _: shared.add(1))
    assert shared.samples == len(ROWS) * 400
    assert shared.to_schema() == before
