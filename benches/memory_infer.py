"""Peak memory of streaming a 1 GB JSON Lines file through `infer_json_lines`.

Runs the inference in a child process under `/usr/bin/time -v` and reports its maximum resident
set size next to the same interpreter that only imports orkestrel. Not a test: run it by hand
with a release build, `python benches/memory_infer.py [--threads N]`.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIG = HERE / "data" / "events-1g.jsonl"


def measure(code: str) -> tuple[float, float]:
    """Peak RSS in MB and wall seconds of `python -c code`."""
    done = subprocess.run(
        ["/usr/bin/time", "-v", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", done.stderr)
    if peak is None or wall is None:
        raise RuntimeError(done.stderr)
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return int(peak.group(1)) / 1024, seconds


def main() -> None:
    """Prints the peak RSS of the import alone and of a full streamed inference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0, help="0: all cores")
    args = parser.parse_args()
    if not BIG.exists():
        subprocess.run([sys.executable, str(HERE / "generate.py")], check=True)
    size = BIG.stat().st_size
    base, _ = measure("import orkestrel.contract")
    code = (
        "from orkestrel.contract import infer_json_lines\n"
        f"infer_json_lines({str(BIG)!r}, threads={args.threads} or None)\n"
    )
    peak, seconds = measure(code)
    print(f"file: {size / 1e9:.2f} GB, threads: {args.threads or 'all'}")
    print(f"import only: peak RSS {base:.0f} MB")
    rate = size / seconds / 1e6
    print(f"infer_json_lines: peak RSS {peak:.0f} MB, {seconds:.1f} s, {rate:.0f} MB/s")


if __name__ == "__main__":
    main()
