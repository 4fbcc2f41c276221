"""`orkestrel tools ...` and `orkestrel serve` errors as real processes: JSON through a pipe,
text on a terminal, exit statuses, and state shared with the server."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
from pathlib import Path

ORKESTREL = [sys.executable, "-m", "orkestrel"]
SHOP = {"products": {"columns": {"name": "string"}}}


def orkestrel(*argv: str, data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ORKESTREL, *argv, "--data", str(data), "--root", str(data)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def call(data: Path, arguments: dict[str, object]) -> subprocess.CompletedProcess[str]:
    return orkestrel("tools", "call", "database", "--args", json.dumps(arguments), data=data)


def test_tools_work_on_the_served_state_through_a_pipe(tmp_path: Path) -> None:
    listed = orkestrel("tools", "list", "--tools", "database", data=tmp_path)
    assert (listed.returncode, listed.stderr) == (0, "")
    assert [item["name"] for item in json.loads(listed.stdout)] == ["database"]
    described = orkestrel("tools", "describe", "database", data=tmp_path)
    assert json.loads(described.stdout)["description"].startswith("Work with databases")
    made = call(tmp_path, {"operation": "create", "id": "notes", "tables": SHOP})
    assert (made.returncode, json.loads(made.stdout)["value"]) == (
        0,
        {"id": "notes", "tables": ["products"]},
    )
    row = {"id": "n1", "name": "first"}
    assert (
        call(
            tmp_path, {"operation": "add", "id": "notes", "table": "products", "row": row}
        ).returncode
        == 0
    )
    got = call(tmp_path, {"operation": "get", "id": "notes", "table": "products", "key": "n1"})
    assert json.loads(got.stdout)["value"] == {"row": row}
    bad = call(tmp_path, {"operation": "get", "id": "notes"})
    assert bad.returncode == 1
    assert bad.stderr.startswith("malformed database call: ")
    assert bad.stderr.count("\n") == 1
    assert json.loads(bad.stdout)["success"] is False


def test_listing_touches_no_disk(tmp_path: Path) -> None:
    listed = subprocess.run(
        [*ORKESTREL, "tools", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert listed.returncode == 0
    assert [item["name"] for item in json.loads(listed.stdout)] == [
        "infer",
        "describe",
        "database",
        "workspace",
    ]
    assert os.listdir(tmp_path) == []


def test_tools_list_is_text_on_a_terminal(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [*ORKESTREL, "tools", "list", "--tools", "database", "--data", str(tmp_path)],
            stdout=follower,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    text = b"".join(chunks).decode()
    assert done.returncode == 0
    assert text.startswith("database  Small databases. See describe('database').")
    assert not text.lstrip().startswith("[")


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    unknown = orkestrel("serve", "--tools", "nope", data=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr == (
        "orkestrel serve: unknown tool: nope (available: infer, describe, database, workspace)\n"
    )
    args = orkestrel("tools", "call", "database", "--args", "{oops", data=tmp_path)
    assert (args.returncode, args.stdout) == (2, "")
    assert args.stderr.startswith("orkestrel tools call: --args is not valid JSON")
    bad_port = orkestrel("serve", "--port", "eighty", data=tmp_path)
    assert bad_port.returncode == 2


def test_a_taken_port_exits_1(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = orkestrel("serve", "--transport", "http", "--port", port, data=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("orkestrel serve: ")
    assert "in use" in done.stderr


def test_serve_on_a_terminal_says_what_it_does_and_stops_at_end_of_input(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [*ORKESTREL, "serve"],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
        os.close(follower)
        follower = -1
        assert process.stderr is not None
        hint = process.stderr.readline().decode()
        os.write(leader, b"\x04")
        out, err = process.communicate(timeout=60)
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert hint == (
        "orkestrel: serving 4 tools over stdio to the MCP client that runs this command; "
        "press Ctrl-D to stop\n"
    )
    assert (process.returncode, out, err) == (0, b"", b"")
    assert os.listdir(tmp_path) == []
