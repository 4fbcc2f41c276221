"""Another thread changing what a test reads, as often as the interpreter lets it."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def churning(step: Callable[[], None]) -> Iterator[None]:
    """Runs `step` over and over on another thread, switching threads as often as it can."""
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            step()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    worker = threading.Thread(target=churn)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(interval)
