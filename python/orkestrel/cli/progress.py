"""A one-line progress bar for long reads, drawn on stderr."""

from __future__ import annotations

import time
from typing import TextIO

WIDTH = 24


def _size(count: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    return f"{count:.1f} GB"


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}"


class ProgressBar:
    """Shows bytes done, rate and time left for a read of `total` bytes (when known).

    Nothing is drawn until `threshold` bytes are done or expected, so small inputs stay quiet.
    """

    def __init__(self, stream: TextIO, total: int | None, *, threshold: int = 4_000_000) -> None:
        self.stream = stream
        self.total = total
        self.threshold = threshold
        self.offset = 0
        self.started = time.monotonic()
        self.drawn = False

    def update(self, done: int) -> None:
        """Redraws the bar for `done` bytes of the current input (plus earlier inputs)."""
        done += self.offset
        if not self.drawn and max(done, self.total or 0) < self.threshold:
            return
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = done / elapsed
        parts = [_size(done)]
        if self.total:
            share = min(done / self.total, 1.0)
            filled = int(share * WIDTH)
            bar = "#" * filled + "." * (WIDTH - filled)
            left = (self.total - done) / rate if rate > 0 else 0.0
            parts = [f"[{bar}] {share:6.1%}", f"{_size(done)} / {_size(self.total)}"]
            parts.append(f"{_size(rate)}/s")
            parts.append(f"ETA {_clock(max(left, 0.0))}")
        else:
            parts.append(f"{_size(rate)}/s")
        self.stream.write("\r" + "  ".join(parts) + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def advance(self, size: int) -> None:
        """Moves past one finished input of `size` bytes."""
        self.offset += size

    def close(self) -> None:
        """Clears the bar if it was drawn."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False
