"""`orkestrel serve --transport http --ask` as a real process against slowloris: many
connections on loopback that never finish their headers. They are closed after
`--header-timeout`, at most `--max-connections` are held, and `/healthz`, `/mcp` and the
answering page keep answering meanwhile."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from support.serve_http import served

PARTIAL = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
"""A request whose headers never end."""


def half_open(url: str, count: int) -> list[socket.socket]:
    """Opens up to `count` connections that send the start of a request and nothing more;
    stops at the first that cannot connect within 2 s."""
    parts = urlsplit(url)
    held: list[socket.socket] = []
    for _ in range(count):
        try:
            connection = socket.create_connection((parts.hostname, parts.port), timeout=2)
        except OSError:
            break
        held.append(connection)
        with contextlib.suppress(OSError):
            connection.sendall(PARTIAL)
    return held


def closed_by_server(connection: socket.socket, deadline: float) -> bool:
    """Whether the server closes `connection` before `deadline` (a `time.monotonic` time)."""
    connection.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        while connection.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


def probes_answer(url: str) -> list[int]:
    """The statuses of `/healthz`, the answering page and an unauthenticated-looking `/mcp`
    GET, each on a fresh connection."""
    with httpx.Client(timeout=5) as client:
        return [
            client.get(f"{url}/healthz").status_code,
            client.get(f"{url}/terminals/user/").status_code,
            client.post(f"{url}/mcp", content=b"{").status_code,
        ]


def test_half_open_connections_are_closed_after_the_header_timeout_while_healthz_answers(
    tmp_path: Path,
) -> None:
    with served(tmp_path, "--ask", "--header-timeout", "2") as (_, url):
        opened = time.monotonic()
        held = half_open(url, 200)
        try:
            assert len(held) == 200
            assert probes_answer(url) == [200, 200, 400]
            deadline = opened + 2 + 8
            still_open = [c for c in held if not closed_by_server(c, deadline)]
            assert still_open == [], f"{len(still_open)} of 200 still open after 10 s"
            assert time.monotonic() - opened >= 1.5
        finally:
            for connection in held:
                connection.close()
        assert probes_answer(url) == [200, 200, 400]


def test_a_flood_past_the_open_file_limit_leaves_the_server_answering(tmp_path: Path) -> None:
    # The open-file limit of 512 leaves room for 256 connections; 1,100 are tried.
    with served(tmp_path, "--ask", files=512) as (pid, url):
        held = half_open(url, 1100)
        try:
            assert len(held) >= 600
            for _ in range(3):
                assert probes_answer(url) == [200, 200, 400]
            assert len(os.listdir(f"/proc/{pid}/fd")) < 512
        finally:
            for connection in held:
                connection.close()


def test_a_busy_connection_is_not_evicted_and_a_new_one_is_refused_at_the_cap(
    tmp_path: Path,
) -> None:
    with served(tmp_path, "--ask", "--max-connections", "1") as (_, url):
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=5) as busy:
            busy.sendall(
                b"GET /terminals/user HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Accept: text/event-stream\r\n\r\n"
            )
            assert busy.recv(4096).startswith(b"HTTP/1.1 200")
            with socket.create_connection((parts.hostname, parts.port), timeout=5) as late:
                late.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert closed_by_server(late, time.monotonic() + 5)
            busy.settimeout(0.5)
            with contextlib.suppress(TimeoutError):
                assert busy.recv(4096) != b""


def answered(connection: socket.socket) -> bytes:
    """Sends one whole `/healthz` request on a kept-alive connection; gives the response."""
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    response = b""
    while not response.endswith(b'{"status":"ok"}'):
        response += connection.recv(4096)
    return response


def test_an_idle_kept_alive_connection_is_closed_after_the_keepalive_timeout(
    tmp_path: Path,
) -> None:
    with served(tmp_path, "--keepalive-timeout", "1", "--header-timeout", "30") as (_, url):
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=5) as connection:
            assert answered(connection).startswith(b"HTTP/1.1 200")
            assert closed_by_server(connection, time.monotonic() + 3)


def test_a_second_request_whose_headers_never_end_is_closed_after_the_header_timeout(
    tmp_path: Path,
) -> None:
    with served(tmp_path, "--keepalive-timeout", "30", "--header-timeout", "1") as (_, url):
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=5) as connection:
            assert answered(connection).startswith(b"HTTP/1.1 200")
            time.sleep(2)  # idle between requests is the keep-alive timeout's, not this one's
            connection.sendall(PARTIAL)
            started = time.monotonic()
            assert closed_by_server(connection, started + 4)
            assert time.monotonic() - started >= 0.9
