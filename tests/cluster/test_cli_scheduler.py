"""`orkestrel infer --scheduler`: a real scheduler and worker processes, started from the shell."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client

from orkestrel.contract import infer_json_lines, samples_to_schema

from .conftest import write_files

QUIET = ("--no-dashboard", "--host", "127.0.0.1")


def orkestrel(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "orkestrel", *map(str, args)],
        capture_output=True,
        timeout=300,
        check=False,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    base = [sys.executable, "-m", "dask"]
    processes = [
        subprocess.Popen(
            [*base, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        processes.append(
            subprocess.Popen(
                [*base, "worker", address, "--nworkers", "2", "--nthreads", "1", *QUIET],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        deadline = time.monotonic() + 90
        while True:
            try:
                with Client(address, timeout=5) as client:
                    client.wait_for_workers(2, timeout=max(1, deadline - time.monotonic()))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            process.wait(timeout=60)


def test_a_running_cluster_infers_what_the_local_reader_infers(
    scheduler: str, tmp_path: Path
) -> None:
    paths, records = write_files(tmp_path, files=3, rows=400)
    done = orkestrel("infer", "--scheduler", scheduler, "--enum", *paths)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == samples_to_schema(records, enum=True)
    local = orkestrel("infer", "--enum", *paths)
    assert json.loads(local.stdout) == json.loads(done.stdout)
    merged = orkestrel("infer", "--scheduler", scheduler, "--merge", *paths)
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout) == samples_to_schema(records, merge=True)


def test_local_workers_and_json_documents_and_globs(tmp_path: Path) -> None:
    _, records = write_files(tmp_path, files=2, rows=50)
    (tmp_path / "one.json").write_text(json.dumps(records[0], indent=2))
    done = orkestrel(
        "infer", "--scheduler", "local[2]", tmp_path / "*.jsonl", tmp_path / "one.json"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == samples_to_schema(records)


def test_bad_lines_fail_or_are_skipped_with_file_and_line(scheduler: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 1}\n{"a": \n{"a": 2}\n')
    failed = orkestrel("infer", "--scheduler", scheduler, path)
    assert failed.returncode == 1
    assert failed.stderr.decode().startswith(f"orkestrel infer: {path}: line 2 column ")
    local = orkestrel("infer", path)
    assert failed.stderr == local.stderr
    skipped = orkestrel("infer", "--scheduler", scheduler, "--skip-bad-lines", path)
    assert skipped.returncode == 0
    assert json.loads(skipped.stdout) == infer_json_lines(path, errors="skip")
    assert f"skipped 1 bad line(s) of 3; first at {path} line 2" in skipped.stderr.decode()


def test_stdin_and_a_bad_scheduler_are_usage_errors(tmp_path: Path) -> None:
    done = orkestrel("infer", "--scheduler", "local[2]", "-")
    assert done.returncode == 2
    assert "stdin" in done.stderr.decode()
    done = orkestrel("infer", "--scheduler", "nowhere", tmp_path / "x.jsonl")
    assert done.returncode == 2
    assert "tcp://HOST:PORT or local[N]" in done.stderr.decode()
    missing = orkestrel("infer", "--scheduler", "local[1]", tmp_path / "missing.jsonl")
    assert missing.returncode == 1
    assert "missing.jsonl" in missing.stderr.decode()
