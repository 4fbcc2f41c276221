"""What `orkestrel serve` refuses at start, and where it keeps its state by default: a command
line that would be ignored in part, or serve nothing, ends at once with one line and exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support.mcp_client import connect, stdio

ORKESTREL = [sys.executable, "-m", "orkestrel"]


def start(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ORKESTREL, *argv],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        cwd=cwd,
        check=False,
    )


def test_port_without_http_transport_is_refused_at_start() -> None:
    done = start("serve", "--port", "8123")
    assert (done.returncode, done.stderr) == (
        2,
        "orkestrel serve: --port needs --transport http\n",
    )


def test_unreachable_database_dsn_is_refused_at_start() -> None:
    pytest.importorskip("psycopg", reason="the postgres extra is not installed (the 1.x venv)")
    done = start("serve", "--database", "postgresql://someone:s3cret@127.0.0.1:1/app")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("orkestrel serve: --database: cannot reach the PostgreSQL server: ")
    assert "Connection refused" in line
    assert "s3cret" not in line


def test_mistyped_serve_flag_shows_the_serve_usage_and_the_nearest_flag() -> None:
    done = start("serve", "--prot", "8000")
    assert done.returncode == 2
    assert done.stderr.startswith("usage: orkestrel serve ")
    assert done.stderr.splitlines()[-1] == (
        "orkestrel serve: error: unrecognized arguments: --prot (did you mean --port?)"
    )


def test_mistyped_tools_flag_shows_the_subcommand_usage() -> None:
    done = start("tools", "list", "--rot", "secret-value")
    assert done.returncode == 2
    assert done.stderr.startswith("usage: orkestrel tools list ")
    assert "secret-value" not in done.stderr


@pytest.mark.anyio
async def test_registration_example_keeps_data_under_root_not_client_cwd(tmp_path: Path) -> None:
    root, cwd = tmp_path / "project", tmp_path / "client"
    root.mkdir()
    cwd.mkdir()
    parameters = stdio(ORKESTREL[0], [*ORKESTREL[1:], "serve", "--root", str(root)])
    parameters.cwd = str(cwd)
    async with connect(parameters) as client:
        created = await client.call_tool(
            "database", {"operation": "create", "id": "notes", "tables": {"t": {"columns": {}}}}
        )
    assert created.get("isError", False) is False
    assert (root / ".orkestrel" / "databases").is_dir()
    assert list(cwd.iterdir()) == []
