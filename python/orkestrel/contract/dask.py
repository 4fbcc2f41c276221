"""Schema inference on a Dask cluster: one `SchemaBuilder` per partition, merged by a tree.

Import this module only where Dask is installed (`pip install 'orkestrel[dask]'`); nothing else
in orkestrel imports it.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import dask.bag
from dask.base import compute
from dask.bytes.core import read_bytes as _read_bytes
from dask.delayed import Delayed, delayed

from orkestrel.contract.inference import JSONInputError, SchemaBuilder

__all__ = ["DASK_BLOCKSIZE", "DASK_SPLIT_EVERY", "DaskInference", "infer_dask", "reduce_dask"]

DASK_BLOCKSIZE = 64 * 1024 * 1024
"""The bytes of JSON Lines one partition reads by default (each partition ends at a newline)."""

DASK_SPLIT_EVERY = 8
"""How many partial results one merge task folds together by default."""

# Dask leaves these untyped (pyright reads its defaults as the parameter types).
read_bytes: Any = _read_bytes

ERRORS_KEPT = 10
"""How many bad lines a result keeps, the first in file and line order, as the local reader."""

Layout = Literal["jsonl", "json"]
Errors = Literal["raise", "skip"]


@dataclass(frozen=True)
class DaskInference:
    """What a distributed inference read: the merged builder and the counts of every partition.

    `partitions` counts the partitions read; `lines`, `samples` and `skipped` add up over them;
    `errors` holds the first bad lines (at most `ERRORS_KEPT`) as `JSONInputError`s carrying
    their file, line and column, exactly as the local reader reports them.
    """

    builder: SchemaBuilder
    partitions: int
    lines: int
    samples: int
    skipped: int
    errors: list[JSONInputError] = field(default_factory=list)

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON Schema of every sample read."""
        return self.builder.to_schema()


@dataclass
class _Partial:
    """One partition's builder and counts, or several merged; picklable, so it travels."""

    builder: SchemaBuilder
    samples: int = 0
    skipped: int = 0
    partitions: int = 1
    # Lines per (file, block): a block's first line number is known only once every block
    # before it in its file is counted, so offsets are applied after the last merge.
    blocks: dict[tuple[int, int], int] = field(default_factory=dict)
    errors: list[tuple[int, int, int, JSONInputError]] = field(default_factory=list)


def _lines_partial(
    block: bytes, where: tuple[int, int], options: Mapping[str, Any], mode: Errors
) -> _Partial:
    builder = SchemaBuilder(**options)
    report = builder.add_json_lines(block, errors="skip")
    errors = [(where[0], where[1], error.line, error) for error in report.errors]
    if mode == "raise":
        errors = errors[:1]
    return _Partial(builder, report.samples, report.skipped, 1, {where: report.lines}, errors)


def _document_partial(
    document: bytes, where: tuple[int, int], options: Mapping[str, Any], _mode: Errors
) -> _Partial:
    builder = SchemaBuilder(**options)
    try:
        builder.add_json(document)
    except JSONInputError as error:
        failed = [(*where, error.line, error)]
        return _Partial(SchemaBuilder(**options), 0, 0, 1, {where: 1}, failed)
    return _Partial(builder, 1, 0, 1, {where: 1})


def _records_partial(records: Iterable[Any], options: Mapping[str, Any]) -> _Partial:
    builder = SchemaBuilder(**options)
    builder.add_many(records)
    return _Partial(builder, builder.samples)


def _merge(partials: Sequence[_Partial]) -> _Partial:
    first, *rest = partials
    merged = _Partial(
        first.builder, first.samples, first.skipped, first.partitions, dict(first.blocks)
    )
    merged.errors = list(first.errors)
    for partial in rest:
        merged.builder.merge(partial.builder)
        merged.samples += partial.samples
        merged.skipped += partial.skipped
        merged.partitions += partial.partitions
        merged.blocks.update(partial.blocks)
        merged.errors = heapq.nsmallest(
            ERRORS_KEPT, merged.errors + partial.errors, key=lambda entry: entry[:3]
        )
    return merged


def _tree(leaves: list[Delayed], split_every: int) -> Delayed:
    level = leaves
    while len(level) > 1:
        level = [
            delayed(_merge, pure=True)(level[start : start + split_every])
            for start in range(0, len(level), split_every)
        ]
    return level[0]


def _finish(partial: _Partial, paths: Sequence[str], mode: Errors) -> DaskInference:
    offsets: dict[tuple[int, int], int] = {}
    running: dict[int, int] = {}
    for file, block in sorted(partial.blocks):
        offsets[file, block] = running.get(file, 0)
        running[file] = running.get(file, 0) + partial.blocks[file, block]
    errors = [
        JSONInputError(
            line=offsets[file, block] + line,
            column=error.column,
            reason=error.reason,
            code=error.code,
            source=paths[file] if file < len(paths) else None,
        )
        for file, block, line, error in partial.errors
    ]
    if mode == "raise" and errors:
        raise errors[0]
    return DaskInference(
        partial.builder,
        partial.partitions,
        sum(running.values()),
        partial.samples,
        partial.skipped,
        errors,
    )


def reduce_dask(
    source: str | Sequence[str] | dask.bag.Bag,
    *,
    client: Any = None,
    format: bool = False,
    enum: bool = False,
    closed: bool = True,
    max_depth: int | float | None = None,
    max_properties: int | float | None = None,
    merge: bool = False,
    errors: Errors = "raise",
    layout: Layout = "jsonl",
    blocksize: int | str | None = DASK_BLOCKSIZE,
    split_every: int = DASK_SPLIT_EVERY,
    compression: str | None = None,
    storage_options: Mapping[str, Any] | None = None,
) -> DaskInference:
    """Infers one schema on Dask and returns the merged builder with its counts.

    `source` is a path, a glob or a list of them (anything fsspec opens: local paths,
    `memory://`, `s3://` where s3fs is installed, ...), read as bytes on the workers, or a Dask
    bag of records. JSON Lines files are cut into partitions of about `blocksize` bytes that end
    at a newline (`compression` turns splitting off: one partition per file); with
    `layout="json"` each file is one document. Each partition runs one `SchemaBuilder` and the
    builders merge `split_every` at a time, so the schema equals the single-process one for the
    same input, whatever the partitioning (`merge=True` is `SchemaBuilder`'s merging mode).
    Bad lines are counted with their file, line and column; with `errors="raise"` the first of
    them is raised as a `JSONInputError`.
    The graph runs on `client` when given, else on Dask's current scheduler.
    """
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', not {errors!r}")
    if layout not in ("jsonl", "json"):
        raise ValueError(f"layout must be 'jsonl' or 'json', not {layout!r}")
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer of at least 2, not {split_every!r}")
    options: dict[str, Any] = {"format": format, "enum": enum, "closed": closed, "merge": merge}
    if max_depth is not None:
        options["max_depth"] = max_depth
    if max_properties is not None:
        options["max_properties"] = max_properties
    SchemaBuilder(**options)  # refuse bad options here, not on a worker
    paths: list[str] = []
    if isinstance(source, dask.bag.Bag):
        leaves = [
            delayed(_records_partial, pure=True)(part, options)
            for part in source.to_delayed()  # type: ignore[no-untyped-call]
        ]
    else:
        leaves, paths = _file_leaves(
            source, options, errors, layout, blocksize, compression, storage_options
        )
    if not leaves:
        return DaskInference(SchemaBuilder(**options), 0, 0, 0, 0)
    graph = _tree(leaves, split_every)
    partial: _Partial
    if client is not None:
        partial = client.compute(graph).result()
    else:
        (partial,) = compute(graph)  # type: ignore[no-untyped-call]
    return _finish(partial, paths, errors)


def _file_leaves(
    source: str | Sequence[str],
    options: Mapping[str, Any],
    mode: Errors,
    layout: Layout,
    blocksize: int | str | None,
    compression: str | None,
    storage_options: Mapping[str, Any] | None,
) -> tuple[list[Delayed], list[str]]:
    urls = [source] if isinstance(source, str) else list(source)
    if not urls:
        return [], []
    whole = layout == "json" or compression is not None
    _, blocks, paths = read_bytes(
        urls,
        delimiter=None if layout == "json" else b"\n",
        blocksize=None if whole else blocksize,
        compression=compression,
        include_path=True,
        sample=False,
        **dict(storage_options or {}),
    )
    task = _document_partial if layout == "json" else _lines_partial
    leaves = [
        delayed(task, pure=True)(block, (file, index), options, mode)
        for file, file_blocks in enumerate(blocks)
        for index, block in enumerate(file_blocks)
    ]
    return leaves, list(paths)


def infer_dask(
    source: str | Sequence[str] | dask.bag.Bag,
    *,
    client: Any = None,
    format: bool = False,
    enum: bool = False,
    closed: bool = True,
    merge: bool = False,
    errors: Errors = "raise",
    layout: Layout = "jsonl",
    blocksize: int | str | None = DASK_BLOCKSIZE,
    split_every: int = DASK_SPLIT_EVERY,
    storage_options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Infers the JSON Schema of files or a bag of records on Dask; see `reduce_dask`."""
    return reduce_dask(
        source,
        client=client,
        format=format,
        enum=enum,
        closed=closed,
        merge=merge,
        errors=errors,
        layout=layout,
        blocksize=blocksize,
        split_every=split_every,
        storage_options=storage_options,
    ).schema
