"""`orkestrel serve --transport http` as a real process on a free loopback port."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ORKESTREL = [sys.executable, "-m", "orkestrel"]


class ServeProcess:
    """One `orkestrel serve --transport http --port 0 ARGS...` process, its stderr in
    `home/server.log`; `url` is the MCP endpoint it printed once listening."""

    def __init__(self, args: list[str], home: Path) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.log = home / "server.log"
        command = [*ORKESTREL, "serve", "--transport", "http", "--port", "0", *args]
        with self.log.open("w") as sink:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stderr=sink, stdout=subprocess.DEVNULL
            )
        deadline = time.monotonic() + 60
        self.url = ""
        while not self.url:
            for line in self.log.read_text().splitlines():
                if line.startswith("listening on "):
                    self.url = line.removeprefix("listening on ").strip()
            if not self.url:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"the server did not start:\n{self.log.read_text()}")
                time.sleep(0.05)

    @property
    def base(self) -> str:
        """The server's root URL, where `/healthz` and `/readyz` are."""
        return self.url.removesuffix("/mcp")

    def stop(self) -> None:
        """Stops the process: SIGTERM, then SIGKILL after 15 seconds."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(15)
