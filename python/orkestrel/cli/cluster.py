"""`orkestrel infer --scheduler`: the same inference, run on a Dask cluster."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

from orkestrel.cli.helpers import detect, inference_options

Layout = Literal["json", "jsonl"]

_LOCAL = re.compile(r"\Alocal\[([1-9][0-9]{0,3})\]\Z")
_PEEK = 64 * 1024


def check_scheduler(text: str) -> str:
    """Accepts `tcp://HOST:PORT` (or another Dask address) or `local[N]`."""
    if _LOCAL.match(text) or "://" in text:
        return text
    raise argparse.ArgumentTypeError("expected tcp://HOST:PORT or local[N]")


@contextmanager
def connect(scheduler: str) -> Iterator[Any]:
    """A Dask client for `scheduler`, starting a local cluster of N worker processes for
    `local[N]`, closed on exit."""
    # Deferred: distributed is an optional dependency (the `dask` extra).
    import distributed

    # distributed leaves its constructors untyped.
    Client: Any = distributed.Client
    LocalCluster: Any = distributed.LocalCluster
    local = _LOCAL.match(scheduler)
    if local is None:
        with Client(scheduler) as client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=int(local.group(1)),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def _expand(name: str) -> list[str]:
    # Deferred: fsspec is an optional dependency (the `dask` extra).
    from fsspec.core import get_fs_token_paths

    fs, _, paths = get_fs_token_paths(name, mode="rb")
    if not paths:
        raise FileNotFoundError(f"{name}: no such file")
    return [str(fs.unstrip_protocol(path)) for path in paths]


def _layout(url: str) -> Layout:
    # Deferred: fsspec is an optional dependency (the `dask` extra).
    import fsspec

    stream: Any
    with fsspec.open(url, "rb") as stream:
        head: bytes = stream.read(_PEEK)
    lines = head.splitlines(keepends=True)
    taken = b""
    for line in lines:
        taken += line
        if line.strip():
            break
    return detect(taken)


def run_on_cluster(
    args: Any, fail: Callable[..., int], write: Callable[[dict[str, Any]], int]
) -> int:
    """Runs `orkestrel infer` on the cluster `args.scheduler` and returns the exit status."""
    # Deferred: orkestrel.contract.dask needs the optional `dask` extra.
    from orkestrel.contract import ContractError, JSONInputError, SchemaBuilder
    from orkestrel.contract.dask import reduce_dask

    if "-" in args.files:
        return fail("stdin (-) cannot be read on a cluster", 2)
    try:
        groups: dict[Layout, list[str]] = {"jsonl": [], "json": []}
        for name in args.files:
            for url in _expand(name):
                groups[args.layout or _layout(url)].append(url)
        options = inference_options(args)
        builder = SchemaBuilder(**options)
        with connect(args.scheduler) as client:
            for layout, names in groups.items():
                if not names:
                    continue
                result = reduce_dask(
                    names,
                    client=client,
                    **options,
                    errors="skip" if args.skip_bad_lines else "raise",
                    layout=layout,
                )
                builder.merge(result.builder)
                if result.skipped and not args.quiet:
                    first = result.errors[0]
                    sys.stderr.write(
                        f"orkestrel infer: skipped {result.skipped} bad line(s) of "
                        f"{result.lines}; first at {first.source} line {first.line} column "
                        f"{first.column}: {first.reason}\n"
                    )
    except JSONInputError as error:
        return fail(str(error))
    except (OSError, ContractError, ValueError) as error:
        return fail(str(error) or type(error).__name__)
    return write(builder.to_schema())
