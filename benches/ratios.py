"""Ratios against every peer in one process: contenders interleaved, several rounds.

Every figure the goals of `benches/RESULTS.md` name comes from here, as a ratio measured in one
run, so a loaded machine slows every contender alike. Each round runs every contender once, in
a rotating order; the table gives each one's median over the rounds and the median of the
per-round ratios to orkestrel, with their range.

Run with a release build (`maturin develop --release`, or a wheel from `maturin build --release`):

    python benches/ratios.py objects    # samples_to_schema vs genson and per-record orjson.dumps
    python benches/ratios.py dumps      # the same without genson, with our time per dict key
    python benches/ratios.py lines      # infer_json_lines vs polars-genson (pre-split column)
    POLARS_MAX_THREADS=1 RAYON_NUM_THREADS=1 python benches/ratios.py merge   # merge=True vs both
    POLARS_MAX_THREADS=1 RAYON_NUM_THREADS=1 python benches/ratios.py lines   # theirs on one core
    python benches/ratios.py contract   # parse vs msgspec.convert, is_valid vs jsonschema-rs
    python benches/ratios.py cli        # genson-rs CLI and `orkestrel infer` start-up, as processes
    python benches/ratios.py tool       # ToolManager.execute over a bare await, in one event loop
    python benches/ratios.py database   # the database tool against raw sqlite3 (and psycopg,
                                        # with ORKESTREL_POSTGRES_DSN set)
    python benches/ratios.py all --rounds 9

The genson-rs CLI is built on first use with `cargo install --locked genson-rs --root
benches/.tools` (not tracked by git); polars-genson, polars and msgspec come from the `bench`
extra (`pip install '.[test,bench]'`).

Data comes from `benches/generate.py` (written on first use to `benches/data/`).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402  (the bench folder is not a package)

DATA = HERE / "data"
EVENTS = DATA / "events.jsonl"
LOGS = DATA / "logs.jsonl"


TOOLS = HERE / ".tools"
GENSON_RS = "0.2.0"


def genson_rs() -> str:
    """The genson-rs CLI, built with cargo into `benches/.tools` the first time."""
    binary = TOOLS / "bin" / "genson-rs"
    if not binary.exists():
        subprocess.run(
            [
                "cargo",
                "install",
                "--locked",
                "genson-rs",
                "--version",
                GENSON_RS,
                "--root",
                str(TOOLS),
            ],
            check=True,
        )
    return str(binary)


def _process(argv: list[str]) -> Callable[[], None]:
    def run() -> None:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    return run


@dataclass
class Contender:
    """One way of doing the work: `run` does it once; `inner` repeats it per timing."""

    name: str
    run: Callable[[], Any]
    inner: int = 1


def measure(
    contenders: Sequence[Contender], rounds: int, cpu: dict[str, list[float]] | None = None
) -> dict[str, list[float]]:
    """Seconds per call of each contender, one sample per round, interleaved; `cpu`, when
    given, receives the process CPU seconds per call of each sample as well."""
    times: dict[str, list[float]] = {c.name: [] for c in contenders}
    for r in range(rounds):
        order = list(contenders[r % len(contenders) :]) + list(contenders[: r % len(contenders)])
        for contender in order:
            gc.collect()
            start, used = time.perf_counter(), time.process_time()
            for _ in range(contender.inner):
                contender.run()
            times[contender.name].append((time.perf_counter() - start) / contender.inner)
            if cpu is not None:
                spent = (time.process_time() - used) / contender.inner
                cpu.setdefault(contender.name, []).append(spent)
    return times


def _unit(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:,.1f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:,.2f} µs"
    return f"{seconds * 1e9:,.0f} ns"


def report(title: str, times: dict[str, list[float]], base: str, note: str = "") -> None:
    """Prints medians and the per-round ratios `time / time(base)`."""
    print(f"\n### {title}{note}\n")
    print(f"| contender | median | time / {base} (median, range) |")
    print("| --- | --- | --- |")
    reference = times[base]
    for name, samples in times.items():
        ratios = [t / b for t, b in zip(samples, reference, strict=True)]
        spread = f"{statistics.median(ratios):.2f} ({min(ratios):.2f} to {max(ratios):.2f})"
        print(f"| {name} | {_unit(statistics.median(samples))} | {spread} |")
    sys.stdout.flush()


def _ensure_data() -> None:
    if not (EVENTS.exists() and LOGS.exists()):
        subprocess.run([sys.executable, str(HERE / "generate.py"), "--big", "0"], check=True)


def _keys(value: Any) -> int:
    """The dict entries in a value, nested ones included."""
    if isinstance(value, dict):
        return len(value) + sum(_keys(item) for item in value.values())
    if isinstance(value, list):
        return sum(_keys(item) for item in value)
    return 0


def dumps_only(rounds: int) -> None:
    """`objects` against per-record `orjson.dumps` alone (genson is 20-60 times slower and
    would set the run's length), with our median time per dict key in each title."""
    objects(rounds, with_genson=False)


def objects(rounds: int, with_genson: bool = True) -> None:
    """Inference over Python objects: records built by Python code, and the same records
    re-created by `orjson.loads`."""
    import orjson
    from genson import SchemaBuilder as GensonBuilder

    from orkestrel.contract import samples_to_schema

    def genson(records: list[Any]) -> None:
        builder = GensonBuilder()
        for record in records:
            builder.add_object(record)
        builder.to_schema()

    def dumps(records: list[Any]) -> None:
        encode = orjson.dumps
        for record in records:
            encode(record)

    sets = {
        "events": generate.events(20_000),
        "logs": generate.logs(60_000),
    }
    for name, built in sets.items():
        loaded = [orjson.loads(orjson.dumps(record)) for record in built]
        assert samples_to_schema(built) == samples_to_schema(loaded)
        keys = _keys(built)
        for origin, records in (("built by Python code", built), ("from orjson.loads", loaded)):
            contenders = [
                Contender("orkestrel samples_to_schema", lambda r=records: samples_to_schema(r)),
                Contender("orjson.dumps per record", lambda r=records: dumps(r)),
            ]
            if with_genson:
                contenders.append(
                    Contender("genson add_object per record", lambda r=records: genson(r))
                )
            times = measure(contenders, rounds)
            per_key = statistics.median(times["orkestrel samples_to_schema"]) / keys
            report(
                f"objects: {len(records):,} {name} records {origin}",
                times,
                "orkestrel samples_to_schema",
                f" ({keys:,} dict keys, ours {per_key * 1e9:.1f} ns per key)",
            )


def lines(rounds: int) -> None:
    """JSON Lines from bytes: one core against polars-genson on a pre-split string column,
    and two cores against one."""
    import polars as pl
    import polars_genson  # noqa: F401  (registers the `genson` namespace)

    from orkestrel.contract import infer_json_lines

    _ensure_data()
    for path in (EVENTS, LOGS):
        data = path.read_bytes()
        column = pl.DataFrame({"line": data.decode().splitlines()})
        mb = len(data) / 1e6

        def ours(threads: int, data: bytes = data) -> None:
            infer_json_lines(data, threads=threads)

        def theirs(column: pl.DataFrame = column) -> None:
            column.genson.infer_json_schema("line")

        contenders = [
            Contender("orkestrel infer_json_lines, threads=1", lambda: ours(1)),
            Contender("polars-genson, pre-split column", theirs),
            Contender("orkestrel infer_json_lines, threads=2", lambda: ours(2)),
        ]
        cpu_before = time.process_time()
        used: dict[str, list[float]] = {}
        times = measure(contenders, rounds, used)
        cpu = time.process_time() - cpu_before
        wall = sum(sum(samples) for samples in times.values())
        rates = ", ".join(
            f"{c.name.split(',')[-1].strip()}: {mb / statistics.median(times[c.name]):,.0f} MB/s"
            for c in contenders
        )
        report(
            f"lines: {path.name}, {mb:,.0f} MB",
            times,
            "orkestrel infer_json_lines, threads=1",
            f" ({rates}; process CPU/wall {cpu / wall:.2f})",
        )
        # On a shared machine a contender that waits for a core loses wall time it did not
        # spend working; process CPU time counts only the work (every thread of it).
        report(
            f"lines: {path.name}, process CPU time per call",
            {name: used[name] for name in times},
            "orkestrel infer_json_lines, threads=1",
        )
        del column


def threads(rounds: int) -> None:
    """JSON Lines scaling: `infer_json_lines` at 1, 2, 4 ... threads up to the machine's cores,
    interleaved; the speedup is the median over rounds of each round's time at one thread over
    its time at k threads."""
    from orkestrel.contract import infer_json_lines

    _ensure_data()
    counts = [1]
    while counts[-1] * 2 <= (os.cpu_count() or 1):
        counts.append(counts[-1] * 2)
    for path in (EVENTS, LOGS):
        data = path.read_bytes()
        mb = len(data) / 1e6
        contenders = [
            Contender(f"threads={k}", lambda k=k, data=data: infer_json_lines(data, threads=k))
            for k in counts
        ]
        times = measure(contenders, rounds)
        print(f"\n### threads: {path.name}, {mb:,.0f} MB\n")
        print("| threads | MB/s (median) | speedup over one thread (median, range) |")
        print("| --- | --- | --- |")
        one = times["threads=1"]
        for k in counts:
            samples = times[f"threads={k}"]
            gains = [b / t for t, b in zip(samples, one, strict=True)]
            spread = f"{statistics.median(gains):.2f} ({min(gains):.2f} to {max(gains):.2f})"
            print(f"| {k} | {mb / statistics.median(samples):,.0f} | {spread} |")
        sys.stdout.flush()


def merge(rounds: int) -> None:
    """The merging mode (`merge=True`, genson's way of inferring) against genson on the same
    records and against polars-genson on the same JSON Lines on one core; the reference's
    default mode alongside. Run with `POLARS_MAX_THREADS=1 RAYON_NUM_THREADS=1`."""
    import polars as pl
    import polars_genson  # noqa: F401  (registers the `genson` namespace)
    from genson import SchemaBuilder as GensonBuilder

    from orkestrel.contract import infer_json_lines, samples_to_schema

    def genson(records: list[Any]) -> None:
        builder = GensonBuilder()
        for record in records:
            builder.add_object(record)
        builder.to_schema()

    sets = {"events": generate.events(20_000), "logs": generate.logs(60_000)}
    for name, records in sets.items():
        contenders = [
            Contender(
                "orkestrel samples_to_schema, merge=True",
                lambda r=records: samples_to_schema(r, merge=True),
            ),
            Contender(
                "orkestrel samples_to_schema (default)", lambda r=records: samples_to_schema(r)
            ),
            Contender("genson add_object per record", lambda r=records: genson(r)),
        ]
        report(
            f"merge: {len(records):,} {name} records built by Python code",
            measure(contenders, rounds),
            "orkestrel samples_to_schema, merge=True",
        )
    _ensure_data()
    for path in (EVENTS, LOGS):
        data = path.read_bytes()
        column = pl.DataFrame({"line": data.decode().splitlines()})
        mb = len(data) / 1e6

        def ours(merged: bool, data: bytes = data) -> None:
            infer_json_lines(data, threads=1, merge=merged)

        def theirs(column: pl.DataFrame = column) -> None:
            column.genson.infer_json_schema("line")

        contenders = [
            Contender("orkestrel infer_json_lines, threads=1, merge=True", lambda: ours(True)),
            Contender("polars-genson, pre-split column", theirs),
            Contender("orkestrel infer_json_lines, threads=1 (default)", lambda: ours(False)),
        ]
        used: dict[str, list[float]] = {}
        times = measure(contenders, rounds, used)
        speeds = {c.name: mb / statistics.median(times[c.name]) for c in contenders}
        rates = ", ".join(
            f"{n.removeprefix('orkestrel ')}: {v:,.0f} MB/s" for n, v in speeds.items()
        )
        report(
            f"merge: {path.name}, {mb:,.0f} MB",
            times,
            "orkestrel infer_json_lines, threads=1, merge=True",
            f" ({rates})",
        )
        report(
            f"merge: {path.name}, process CPU time per call",
            {name: used[name] for name in times},
            "orkestrel infer_json_lines, threads=1, merge=True",
        )
        del column


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli(rounds: int) -> None:
    """Whole processes: `orkestrel infer` on a one-line file against the bare import of the
    extension, and the genson-rs CLI against `orkestrel infer` on the events file, both pinned
    to one core (`taskset -c 0`) and on all cores."""
    _ensure_data()
    import compileall

    import orkestrel

    # A pip install compiles the package's bytecode; without it (an editable tree under
    # PYTHONDONTWRITEBYTECODE) every start would compile the CLI's sources again.
    compileall.compile_dir(Path(orkestrel.__file__).parent, quiet=1)
    python = sys.executable
    script = shutil.which("orkestrel") or str(Path(python).parent / "orkestrel")
    with tempfile.TemporaryDirectory() as folder:
        one = Path(folder) / "one.jsonl"
        one.write_bytes(EVENTS.read_bytes().split(b"\n", 1)[0] + b"\n")
        contenders = [
            Contender(
                "python -c 'import orkestrel._core'",
                _process([python, "-c", "import orkestrel._core"]),
                5,
            ),
            Contender("orkestrel infer one.jsonl", _process([script, "infer", str(one)]), 5),
        ]
        before = _cpu_of_children()
        times = measure(contenders, max(rounds, 9))
        report(
            "cli: start-up, one-line file",
            times,
            "python -c 'import orkestrel._core'",
            f" (children CPU {_cpu_of_children() - before:.1f} s)",
        )
    binary = genson_rs()
    mb = EVENTS.stat().st_size / 1e6
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    contenders = [
        Contender(
            "orkestrel infer --threads 1 (one core)",
            _process([*pin, script, "infer", "--threads", "1", str(EVENTS)]),
        ),
        Contender(
            "genson-rs -d newline (one core)",
            _process([*pin, binary, "-d", "newline", str(EVENTS)]),
        ),
        Contender("orkestrel infer (all cores)", _process([script, "infer", str(EVENTS)])),
        Contender(
            "genson-rs -d newline (all cores)", _process([binary, "-d", "newline", str(EVENTS)])
        ),
    ]
    times = measure(contenders, rounds)
    rates = ", ".join(
        f"{c.name}: {mb / statistics.median(times[c.name]):,.0f} MB/s" for c in contenders
    )
    report(f"cli: {EVENTS.name}, {mb:,.0f} MB", times, contenders[0].name, f" ({rates})")


def _contract_contenders(rounds: int) -> None:
    import jsonschema_rs
    import msgspec

    import bench_contract as cases
    from orkestrel.contract import ParseError

    def raises(call: Callable[[Any], Any], errors: tuple[type[BaseException], ...]) -> Any:
        def check(value: Any) -> bool:
            try:
                call(value)
            except errors:
                return False
            return True

        return check

    failures = (ParseError, msgspec.ValidationError, jsonschema_rs.ValidationError)
    inner = 2_000
    for name, (contract, _, valid, invalid) in cases.INPUTS.items():
        spec = cases.MSGSPEC[name]
        coercible = cases.COERCIBLE[name]
        validator = jsonschema_rs.validator_for(contract.schema)
        for label, value, ok in (
            ("valid", valid, True),
            ("coercible", coercible, True),
            ("invalid", invalid, False),
        ):
            ours = raises(contract.parse, failures)
            lax = raises(lambda v, s=spec: msgspec.convert(v, s, strict=False), failures)
            assert ours(value) is ok, (name, label)
            assert lax(value) is ok, (name, label)
            if ok:
                assert contract.parse(value) == msgspec.to_builtins(
                    msgspec.convert(value, spec, strict=False)
                )
            contenders = [
                Contender("orkestrel parse", lambda f=ours, v=value: f(v), inner),
                Contender("msgspec.convert(strict=False)", lambda f=lax, v=value: f(v), inner),
            ]
            report(f"parse: {name}, {label}", measure(contenders, rounds), "orkestrel parse")
        for label, value, ok in (("valid", valid, True), ("invalid", invalid, False)):
            assert contract.is_valid(value) is ok
            assert validator.is_valid(value) is ok
            contenders = [
                Contender("orkestrel is_valid", lambda v=value, c=contract: c.is_valid(v), inner),
                Contender(
                    "jsonschema-rs is_valid", lambda v=value, g=validator: g.is_valid(v), inner
                ),
            ]
            report(f"is_valid: {name}, {label}", measure(contenders, rounds), "orkestrel is_valid")


def contract(rounds: int) -> None:
    """`parse` against `msgspec.convert` and `is_valid` against jsonschema-rs."""
    _contract_contenders(rounds)


def tool(rounds: int) -> None:
    """`ToolManager.execute` of one call against a bare await of its async handler, both
    inside one running event loop (no `run_until_complete` per call)."""
    import asyncio

    from orkestrel.tool import Tool, ToolManager

    async def add(args: dict[str, Any]) -> float:
        return float(args["left"]) + float(args["right"])

    tools = ToolManager()
    tools.add(Tool(name="add", execute=add))
    arguments = {"left": 2, "right": 3}
    call: Any = {"id": "1", "name": "add", "arguments": arguments}
    calls = 20_000

    async def bare() -> None:
        for _ in range(calls):
            await add(arguments)

    async def managed() -> None:
        execute = tools.execute
        for _ in range(calls):
            await execute(call)

    async def timed() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {"bare await": [], "ToolManager.execute": []}
        pairs = [("bare await", bare), ("ToolManager.execute", managed)]
        for r in range(rounds):
            for name, work in pairs if r % 2 else pairs[::-1]:
                gc.collect()
                start = time.perf_counter()
                await work()
                times[name].append((time.perf_counter() - start) / calls)
        return times

    times = asyncio.run(timed())
    over = sorted(
        m - b for m, b in zip(times["ToolManager.execute"], times["bare await"], strict=True)
    )
    report(
        "tool: one call, async handler",
        times,
        "bare await",
        f" (execute over a bare await: {_unit(statistics.median(over))}, "
        f"range {_unit(over[0])} to {_unit(over[-1])})",
    )


UNSORTED = "SELECT id, name, price, stock FROM products WHERE price < ? ORDER BY id LIMIT ?"
PG_UNSORTED = "SELECT id, name, price, stock FROM products WHERE price < %s ORDER BY id LIMIT %s"


def _postgres_twin(folder: Path) -> tuple[Any, Any, Any] | None:
    """Raw psycopg and the database layer on one PostgreSQL server, each in a schema of its
    own holding the 100,000 rows, when `ORKESTREL_POSTGRES_DSN` names a server: the raw
    connection and the layer's stay open for the whole run, as a user's would."""
    dsn = os.environ.get("ORKESTREL_POSTGRES_DSN")
    if not dsn:
        return None
    import bench_database as data
    from orkestrel.database import create_database, create_postgres_driver

    raw, raw_schema, layer_schema = data.raw_postgres(dsn, "ratios")
    driver = create_postgres_driver(dsn, schema=layer_schema)
    layer = create_database(tables=data.TABLES, driver=driver)

    def drop() -> None:
        for schema in (raw_schema, layer_schema):
            raw.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        raw.close()

    return raw, layer, drop


async def _async_twin(raw: Any) -> Any:
    """An autocommit `psycopg.AsyncConnection` on the raw connection's server and schema."""
    import psycopg

    path = raw.execute("SHOW search_path").fetchone()[0]
    dsn = os.environ["ORKESTREL_POSTGRES_DSN"]
    connection = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
    await connection.execute(f"SET search_path TO {path}")
    return connection


def database(rounds: int) -> None:
    """The database tool against the raw driver on a 100,000-row table each: `records` with
    one condition and limit 100 (in key order) on SQLite against `sqlite3` and, when
    `ORKESTREL_POSTGRES_DSN` names a server, on PostgreSQL against psycopg (and, for scale, its
    async connection on the same loop); and `add` of 1,000
    new rows in one transaction on SQLite. All inside one running event loop, every contender
    of a round interleaved, on connections opened once (raw ones in autocommit mode)."""
    import asyncio

    import bench_database as data
    from orkestrel.database import create_database, create_sqlite_driver
    from orkestrel.toolbox import create_database_tool

    folder = Path(tempfile.mkdtemp(prefix="ratios-db-"))
    raw = data.raw_file(folder / "raw.sqlite3")
    layer = create_database(
        tables=data.TABLES, driver=create_sqlite_driver(folder / "layer.sqlite3")
    )
    twin = _postgres_twin(folder)
    databases = {"bench": layer} if twin is None else {"bench": layer, "pg": twin[1]}
    tool = create_database_tool(databases=databases)
    # No sort term: a sort over 100k rows would hide the per-call cost the goal is about.
    # The tool orders by key when asked for no order, so raw does too.
    query = {"conditions": data.CONDITION, "limit": 100}
    records = {"operation": "records", "id": "bench", "table": "products", "query": query}
    pg_records = {**records, "id": "pg"}
    batches = iter(range(10**9))

    def fresh() -> list[dict[str, Any]]:
        n = next(batches)
        return [
            {"id": f"b{n:05}-{i:04}", "name": f"new {i}", "price": 1.5, "stock": 3}
            for i in range(1000)
        ]

    def raw_add(rows: list[dict[str, Any]]) -> None:
        raw.execute("BEGIN")
        raw.executemany(data.SQLITE_INSERT, data.tuples(rows))
        raw.execute("COMMIT")

    async def timed() -> dict[str, dict[str, list[float]]]:
        await layer.table("products").add(data.ROWS)
        if twin is not None:
            await twin[1].table("products").add(data.ROWS)
        calls = 2000
        found: dict[str, dict[str, list[float]]] = {
            f"{work}{clock}": {"raw sqlite3": [], "database tool": []}
            for work in ("records", "add")
            for clock in ("", " cpu")
        }

        def raw_loop(connection: Any, sql: str, times: int) -> Callable[[], Any]:
            async def loop() -> None:
                for _ in range(times):
                    data.as_records(connection.execute(sql, (500, 100)).fetchall())

            return loop

        def async_loop(connection: Any, times: int) -> Callable[[], Any]:
            async def loop() -> None:
                for _ in range(times):
                    cursor = await connection.execute(PG_UNSORTED, (500, 100))
                    data.as_records(await cursor.fetchall())

            return loop

        def tool_loop(call: dict[str, Any], times: int) -> Callable[[], Any]:
            async def loop() -> None:
                for _ in range(times):
                    answer = await tool.execute(call)
                    assert answer["count"] == 100

            return loop

        # (table, contender, calls per sample, work)
        works = [
            ("records", "raw sqlite3", calls, raw_loop(raw, UNSORTED, calls)),
            ("records", "database tool", calls, tool_loop(records, calls)),
        ]
        if twin is not None:
            # A round trip per call: fewer calls keep a sample's time near SQLite's.
            pg_calls = calls // 4
            for clock in ("", " cpu"):
                found[f"postgres{clock}"] = {
                    "raw psycopg": [],
                    "database tool": [],
                    "raw psycopg, async": [],
                }
            # psycopg's own async connection: what the event loop's wait costs any async
            # client (the goal's floor stays the sync connection).
            awaited = await _async_twin(twin[0])
            works += [
                ("postgres", "raw psycopg", pg_calls, raw_loop(twin[0], PG_UNSORTED, pg_calls)),
                ("postgres", "database tool", pg_calls, tool_loop(pg_records, pg_calls)),
                ("postgres", "raw psycopg, async", pg_calls, async_loop(awaited, pg_calls)),
            ]
        for r in range(rounds):
            turn = r % len(works)
            for work, name, times, run in works[turn:] + works[:turn]:
                gc.collect()
                start, used = time.perf_counter(), time.process_time()
                await run()
                found[work][name].append((time.perf_counter() - start) / times)
                found[f"{work} cpu"][name].append((time.process_time() - used) / times)
            for _ in range(10):
                adds = ["raw sqlite3", "database tool"]
                for name in adds if r % 2 else adds[::-1]:
                    rows = fresh()
                    gc.collect()
                    start, used = time.perf_counter(), time.process_time()
                    if name == "raw sqlite3":
                        raw_add(rows)
                    else:
                        await tool.execute(
                            {"operation": "add", "id": "bench", "table": "products", "row": rows}
                        )
                    found["add"][name].append(time.perf_counter() - start)
                    found["add cpu"][name].append(time.process_time() - used)
        await layer.close()
        if twin is not None:
            await twin[1].close()
            await awaited.close()
        return found

    try:
        found = asyncio.run(timed())
    finally:
        raw.close()
        if twin is not None:
            twin[2]()
        shutil.rmtree(folder, ignore_errors=True)
    title = "database tool `records`, one condition, limit 100, 100k rows"
    report(title, found["records"], "raw sqlite3")
    report(f"{title}: process CPU time per call", found["records cpu"], "raw sqlite3")
    if twin is not None:
        report(f"{title}, PostgreSQL", found["postgres"], "raw psycopg")
        report(f"{title}, PostgreSQL: process CPU time", found["postgres cpu"], "raw psycopg")
    report("database tool `add` of 1,000 rows", found["add"], "raw sqlite3")
    report("database tool `add`: process CPU time", found["add cpu"], "raw sqlite3")


GROUPS: dict[str, Callable[[int], None]] = {
    "objects": objects,
    "dumps": dumps_only,
    "lines": lines,
    "threads": threads,
    "merge": merge,
    "contract": contract,
    "cli": cli,
    "tool": tool,
    "database": database,
}


def main() -> None:
    """Runs the named groups and prints their tables as Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", default=["all"], choices=[*GROUPS, "all"])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    names = [n for n in GROUPS if n != "dumps"] if "all" in args.groups else args.groups
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load:.1f}")
    for name in names:
        GROUPS[name](args.rounds)


if __name__ == "__main__":
    main()
