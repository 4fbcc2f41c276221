"""Synthetic data for the inference benchmarks: GitHub-event-like records and flat log rows.

Events look like the public GitHub events feed: nested `actor`/`repo`/`org` objects, a
`payload` whose shape depends on the event type (commits, pull requests with labels, issues),
optional keys, nulls, ISO date-times, emails, URLs and uuids; about 40 JSON nodes and 1.1 kB
per record. Log rows are flat records with a few nullable columns.

Run `python benches/generate.py` to write `benches/data/{events,logs}.jsonl` (about 110 MB and
40 MB) and `benches/data/events-1g.jsonl` (the events repeated past 1 GB, for the memory
bench). `benches/data/` is not tracked by git. `examples/events.jsonl` (200 records) comes from
`python benches/generate.py --example`.
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
EXAMPLE = HERE.parent / "examples" / "events.jsonl"

TYPES = ["PushEvent"] * 5 + ["PullRequestEvent"] * 2 + ["IssuesEvent", "WatchEvent", "CreateEvent"]
WORDS = [
    "fix",
    "add",
    "update",
    "remove",
    "refactor",
    "docs",
    "test",
    "bump",
    "merge",
    "release",
    "parser",
    "cache",
    "client",
]
LABELS = [
    ("bug", "d73a4a"),
    ("enhancement", "a2eeef"),
    ("docs", "0075ca"),
    ("good first", "7057ff"),
]


def _sha(rng: random.Random) -> str:
    return f"{rng.getrandbits(160):040x}"


def _when(rng: random.Random) -> str:
    return (
        f"2024-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}T"
        f"{rng.randint(0, 23):02}:{rng.randint(0, 59):02}:{rng.randint(0, 59):02}Z"
    )


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize()


def _user(rng: random.Random) -> dict[str, Any]:
    uid = rng.randint(1_000, 99_999_999)
    login = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}{uid % 1000}"
    return {
        "id": uid,
        "login": login,
        "display_login": login,
        "gravatar_id": "",
        "url": f"https://api.github.com/users/{login}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?",
        "site_admin": rng.random() < 0.01,
    }


def _labels(rng: random.Random) -> list[dict[str, Any]]:
    return [{"name": n, "color": c} for n, c in rng.sample(LABELS, rng.randint(0, 2))]


def _payload(rng: random.Random, kind: str) -> dict[str, Any]:
    if kind == "PushEvent":
        count = rng.randint(1, 3)
        return {
            "repository_id": rng.randint(1, 10**9),
            "push_id": rng.randint(10**9, 10**10),
            "size": count,
            "distinct_size": count,
            "ref": "refs/heads/" + rng.choice(["main", "dev", "feature/x"]),
            "head": _sha(rng),
            "before": _sha(rng),
            "commits": [
                {
                    "sha": _sha(rng),
                    "author": {"email": f"dev{rng.randint(1, 999)}@example.com", "name": "Dev"},
                    "message": _sentence(rng, rng.randint(2, 6)),
                    "distinct": rng.random() < 0.9,
                }
                for _ in range(count)
            ],
        }
    if kind in ("PullRequestEvent", "IssuesEvent"):
        closed = rng.random() < 0.4
        item = {
            "id": rng.randint(10**8, 10**9),
            "number": rng.randint(1, 5000),
            "title": _sentence(rng, rng.randint(3, 8)),
            "state": "closed" if closed else "open",
            "labels": _labels(rng),
            "comments": rng.randint(0, 40),
            "created_at": _when(rng),
            "closed_at": _when(rng) if closed else None,
            "body": _sentence(rng, 12) if rng.random() < 0.7 else None,
        }
        if kind == "PullRequestEvent":
            item["merged"] = closed and rng.random() < 0.8
            item["additions"] = rng.randint(0, 900)
            return {"action": "closed" if closed else "opened", "pull_request": item}
        return {"action": "closed" if closed else "opened", "issue": item}
    if kind == "CreateEvent":
        return {
            "ref": rng.choice(["main", "v1.2.0", None]),
            "ref_type": rng.choice(["branch", "tag", "repository"]),
            "master_branch": "main",
            "description": _sentence(rng, 5) if rng.random() < 0.5 else None,
            "pusher_type": "user",
        }
    return {"action": "started"}


def event(rng: random.Random) -> dict[str, Any]:
    """One GitHub-event-like record."""
    kind = rng.choice(TYPES)
    name = f"{rng.choice(WORDS)}/{rng.choice(WORDS)}-{rng.randint(1, 99)}"
    record: dict[str, Any] = {
        "id": str(rng.randint(10**10, 10**11)),
        "type": kind,
        "actor": _user(rng),
        "repo": {
            "id": rng.randint(1, 10**9),
            "name": name,
            "url": f"https://api.github.com/repos/{name}",
            "stars": rng.randint(0, 50_000),
            "language": rng.choice(["Rust", "Python", "TypeScript", "Go", None]),
        },
        "payload": _payload(rng, kind),
        "public": rng.random() < 0.97,
        "created_at": _when(rng),
        "request_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    }
    if rng.random() < 0.3:
        org = _user(rng)
        record["org"] = {k: org[k] for k in ("id", "login", "url", "avatar_url")}
    return record


def log(rng: random.Random) -> dict[str, Any]:
    """One flat log row."""
    status = rng.choice([200] * 8 + [201, 204, 400, 404, 500])
    return {
        "ts": _when(rng),
        "level": "error" if status >= 500 else rng.choice(["info", "info", "debug", "warn"]),
        "service": rng.choice(["api", "auth", "billing", "search"]),
        "method": rng.choice(["GET", "GET", "POST", "PUT", "DELETE"]),
        "path": f"/v1/{rng.choice(WORDS)}/{rng.randint(1, 9999)}",
        "status": status,
        "latency_ms": round(rng.lognormvariate(3, 1), 3),
        "bytes": rng.randint(0, 100_000),
        "user": f"user{rng.randint(1, 5000)}@example.org" if rng.random() < 0.8 else None,
        "request_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "error": _sentence(rng, 4) if status >= 500 else None,
    }


def events(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """`count` event records from a fixed seed."""
    rng = random.Random(seed)
    return [event(rng) for _ in range(count)]


def logs(count: int, seed: int = 11) -> list[dict[str, Any]]:
    """`count` log rows from a fixed seed."""
    rng = random.Random(seed)
    return [log(rng) for _ in range(count)]


def _lines(records: list[dict[str, Any]]) -> Iterator[bytes]:
    for record in records:
        yield json.dumps(record, separators=(", ", ": ")).encode() + b"\n"


def write(path: Path, records: list[dict[str, Any]]) -> int:
    """Writes records as JSON Lines; returns the size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(_lines(records))
    path.write_bytes(data)
    return len(data)


def repeat(source: Path, target: Path, size: int) -> int:
    """Writes `source` over and over into `target` until it holds at least `size` bytes."""
    chunk = source.read_bytes()
    written = 0
    with target.open("wb") as out:
        while written < size:
            out.write(chunk)
            written += len(chunk)
    return written


def main() -> None:
    """Writes the benchmark data (or the example file with --example)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--logs", type=int, default=300_000)
    parser.add_argument("--big", type=float, default=1.0, help="GB for events-1g.jsonl (0: skip)")
    parser.add_argument("--example", action="store_true", help="write examples/events.jsonl")
    args = parser.parse_args()
    if args.example:
        print(EXAMPLE, write(EXAMPLE, events(200, seed=2024)))
        return
    print("events", write(DATA / "events.jsonl", events(args.events)))
    print("logs", write(DATA / "logs.jsonl", logs(args.logs)))
    if args.big:
        size = int(args.big * 1e9)
        print("events-1g", repeat(DATA / "events.jsonl", DATA / "events-1g.jsonl", size))


if __name__ == "__main__":
    main()
