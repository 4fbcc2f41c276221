"""`orkestrel infer` run as a real process: layouts, stdin, outputs, errors, exit statuses and
the progress bar."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from orkestrel.contract import infer_json_lines, samples_to_schema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "events.jsonl"
ROWS: list[Any] = [{"id": i, "tag": ["a", "b"][i % 2], "at": "2024-01-02"} for i in range(30)]


def orkestrel(*args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "orkestrel", *map(str, args)],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )


def on_terminal(path: Path) -> tuple[subprocess.CompletedProcess[bytes], bytes]:
    """Runs `orkestrel infer PATH --threads 1` with stderr on a pseudo-terminal; returns the
    process and everything the terminal was shown."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "orkestrel", "infer", str(path), "--threads", "1"],
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=120,
            check=False,
        )
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
    return done, shown


@pytest.fixture
def rows_file(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def test_the_example_file_infers_like_the_library() -> None:
    done = orkestrel("infer", EXAMPLE, "--format", "--enum")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == infer_json_lines(EXAMPLE, format=True, enum=True)
    assert done.stderr == b""


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "orkestrel"
    if not script.exists():
        pytest.skip("no console script next to this interpreter")
    done = subprocess.run([script, "infer", EXAMPLE], capture_output=True, timeout=120, check=False)
    assert done.returncode == 0
    assert json.loads(done.stdout)["type"] == "object"


def test_options_map_to_the_builder(rows_file: Path) -> None:
    done = orkestrel("infer", rows_file, "--format", "--enum", "--open", "--indent", "0")
    assert done.returncode == 0
    assert done.stdout.count(b"\n") == 1
    expected = samples_to_schema(ROWS, format=True, enum=True, closed=False)
    assert json.loads(done.stdout) == expected


def test_json_documents_are_detected(tmp_path: Path) -> None:
    document = {"rows": ROWS[:3], "total": 3}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document, indent=2))
    done = orkestrel("infer", path)
    assert done.returncode == 0
    assert json.loads(done.stdout) == samples_to_schema([document])
    forced = orkestrel("infer", "--jsonl", path)
    assert forced.returncode == 1
    assert b"line 1 column 2" in forced.stderr


def test_stdin_and_many_files_feed_one_schema(rows_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"id": "x"}')
    text = rows_file.read_bytes()
    done = orkestrel("infer", rows_file, "-", other, stdin=text)
    assert done.returncode == 0
    expected = samples_to_schema([*ROWS, *ROWS, {"id": "x"}])
    assert json.loads(done.stdout) == expected
    pretty = json.dumps(ROWS, indent=1).encode()
    assert json.loads(orkestrel("infer", "-", stdin=pretty).stdout) == samples_to_schema([ROWS])


def test_output_file_is_written_whole(rows_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "schema.json"
    done = orkestrel("infer", rows_file, "-o", out)
    assert (done.returncode, done.stdout) == (0, b"")
    assert json.loads(out.read_text()) == samples_to_schema(ROWS)
    assert [p.name for p in tmp_path.iterdir()] == sorted(["rows.jsonl", "schema.json"])
    missing = orkestrel("infer", rows_file, "-o", tmp_path / "no" / "dir.json")
    assert missing.returncode == 1


def test_bad_input_exits_1_with_the_line(rows_file: Path) -> None:
    with rows_file.open("a") as out:
        out.write('{"id": 1,, "x": 2}\n{"id": 2}\n')
    done = orkestrel("infer", rows_file)
    assert (done.returncode, done.stdout) == (1, b"")
    message = done.stderr.decode()
    assert message == f"orkestrel infer: {rows_file}: line 31 column 10: expected a string key\n"
    skipped = orkestrel("infer", rows_file, "--skip-bad-lines")
    assert skipped.returncode == 0
    assert b"skipped 1 bad line(s) of 32; first at line 31 column 10" in skipped.stderr
    assert json.loads(skipped.stdout) == samples_to_schema([*ROWS, {"id": 2}])
    assert orkestrel("infer", rows_file, "--skip-bad-lines", "-q").stderr == b""
    broken = orkestrel("infer", "-", stdin=b'{"a": [1, 2\n')
    assert broken.returncode == 1
    assert broken.stderr == b"orkestrel infer: -: line 2 column 1: unexpected end of input\n"


def test_missing_files_exit_1(tmp_path: Path) -> None:
    done = orkestrel("infer", tmp_path / "nope.jsonl")
    assert done.returncode == 1
    assert b"nope.jsonl" in done.stderr
    assert b"No such file" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["infer"],
        ["infer", "x", "--jsonl", "--json"],
        ["infer", "x", "--bogus"],
        ["infer", "-", "-"],
        ["infer", "x", "--max-depth", "-3"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    done = orkestrel(*args, stdin=b"")
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr


def test_help_exits_0() -> None:
    done = orkestrel("infer", "--help")
    assert done.returncode == 0
    assert b"--skip-bad-lines" in done.stdout


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    line = json.dumps({"payload": "x" * 1000, "n": 1}).encode() + b"\n"
    big.write_bytes(line * 30_000)
    plain = orkestrel("infer", big)
    assert plain.returncode == 0
    assert plain.stderr == b""
    done, shown = on_terminal(big)
    assert done.returncode == 0
    assert b"B/s" in shown
    assert b"ETA" in shown
    assert b"100.0%" in shown
    assert json.loads(done.stdout)["required"] == ["n", "payload"]


def _default_interrupt() -> None:
    """Gives the child SIGINT's default action, as a terminal does: a job started in the
    background (`cmd &` without job control) passes SIGINT on ignored, and Python then leaves
    it ignored, so the command would read on."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupt_exits_130() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "orkestrel", "infer", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_default_interrupt,
    )
    try:
        # Interrupt only once the command is blocked reading its input (read(2) on fd 0), so a
        # slow start on a loaded machine cannot make the signal land before the handler exists.
        deadline = time.monotonic() + 120
        syscall = Path(f"/proc/{process.pid}/syscall")
        while not syscall.read_text().startswith("0 0x0 ") and time.monotonic() < deadline:
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err.decode(errors="replace")
    assert b"interrupted" in err


def test_process_substitution_reads_the_stream_once(rows_file: Path) -> None:
    command = f'"{sys.executable}" -m orkestrel infer <(cat "{rows_file}")'
    done = subprocess.run(["bash", "-c", command], capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == samples_to_schema(ROWS)


def test_a_fifo_is_read_once_and_does_not_hang(rows_file: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "rows.fifo"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        [sys.executable, "-m", "orkestrel", "infer", str(fifo)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        with fifo.open("wb") as writer:
            writer.write(rows_file.read_bytes())
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert json.loads(out) == samples_to_schema(ROWS)


def test_dev_zero_is_refused_from_a_bounded_peek() -> None:
    done = orkestrel("infer", "/dev/zero")
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr == b"orkestrel infer: /dev/zero: line 1 column 1: unexpected character\n"


def test_a_first_line_longer_than_the_peek_still_reads_as_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "wide.jsonl"
    wide = {"blob": "x" * 2_000_000}
    path.write_text(json.dumps(wide) + "\n" + json.dumps({"blob": "y", "n": 1}) + "\n")
    piped = orkestrel("infer", "-", stdin=path.read_bytes())
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout) == samples_to_schema([wide, {"blob": "y", "n": 1}])


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_input_says_so_and_exits_1(tmp_path: Path, content: bytes) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(content)
    for args, stdin in (([empty], None), (["-"], content)):
        done = orkestrel("infer", *args, stdin=stdin)
        assert (done.returncode, done.stdout) == (1, b"")
        name = str(args[0]).encode()
        assert done.stderr == (
            b"orkestrel infer: "
            + name
            + b": no samples to infer a schema from (the input is empty)\n"
        )


def test_output_into_a_missing_folder_names_the_folder(rows_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "no" / "schema.json"
    done = orkestrel("infer", rows_file, "-o", target)
    assert done.returncode == 1
    assert done.stderr == f"orkestrel infer: {target}: No such file or directory\n".encode()
    assert list(tmp_path.iterdir()) == [rows_file]


def test_an_error_is_printed_on_a_cleared_line_not_glued_to_the_bar(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    line = json.dumps({"payload": "x" * 1000, "n": 1}).encode() + b"\n"
    big.write_bytes(line * 30_000 + b"{broken\n")
    done, shown = on_terminal(big)
    assert done.returncode == 1
    assert b"ETA" in shown
    message = b"orkestrel infer: " + str(big).encode() + b": line 30001 column 2"
    assert b"\r\x1b[K" + message in shown


def test_merge_maps_to_the_merging_mode(tmp_path: Path) -> None:
    path = tmp_path / "nested.jsonl"
    rows = [{"id": i, "items": [{"a": i}, {"b": str(i)}][: i % 3]} for i in range(30)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    want = infer_json_lines(path, merge=True)
    assert want != infer_json_lines(path)
    # `--merge` takes the quick path; the abbreviation `--mer` goes through argparse.
    for flag in ("--merge", "--mer"):
        done = orkestrel("infer", path, flag)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == want
