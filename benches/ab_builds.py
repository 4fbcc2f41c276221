"""Two builds of `orkestrel._core` in one process: `samples_to_schema` timed alternately.

Each build is loaded from its own extension file (separate libraries, so separate statics), and
every round times both on the same records, in alternating order, by the CPU time of this
thread: the load of a shared machine slows both alike. Prints the median ratio new / old per
objects set (the sets of `ratios.py objects`).

    python benches/ab_builds.py OLD.so NEW.so --rounds 61
"""

from __future__ import annotations

import argparse
import gc
import importlib.machinery
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402  (the bench folder is not a package)

Infer = Callable[[list[Any]], Any]


def load(path: str) -> Infer:
    """`samples_to_schema` of the extension at `path`."""
    loader = importlib.machinery.ExtensionFileLoader("orkestrel._core", path)
    spec = importlib.util.spec_from_file_location("orkestrel._core", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    infer: Infer = module.samples_to_schema
    return infer


def sets() -> dict[str, list[Any]]:
    """The objects sets, built by Python code and re-created by `orjson.loads`."""
    out: dict[str, list[Any]] = {}
    for name, records in (("events", generate.events(20_000)), ("logs", generate.logs(60_000))):
        out[f"{name} built"] = records
        out[f"{name} loaded"] = [orjson.loads(orjson.dumps(r)) for r in records]
    return out


def cpu(infer: Infer, records: list[Any]) -> float:
    start = time.thread_time()
    infer(records)
    return time.thread_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    old, new = load(args.old), load(args.new)
    gc.disable()
    for name, records in sets().items():
        assert old(records) == new(records), name
        ratios = []
        for i in range(args.rounds):
            if i % 2:
                t_new, t_old = cpu(new, records), cpu(old, records)
            else:
                t_old, t_new = cpu(old, records), cpu(new, records)
            ratios.append(t_new / t_old)
        print(
            f"{name}: new / old CPU time {statistics.median(ratios):.3f} "
            f"(range {min(ratios):.3f} to {max(ratios):.3f}, {args.rounds} rounds)"
        )


if __name__ == "__main__":
    main()
