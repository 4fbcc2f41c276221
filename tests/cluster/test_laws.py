"""Laws of distributed inference: no partitioning of the input changes the schema."""

from __future__ import annotations

import itertools
import json
from typing import Any

import dask
import dask.bag as db
import fsspec
from dask.delayed import delayed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orkestrel.contract import samples_to_schema
from orkestrel.contract.dask import reduce_dask

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-2, 2) | st.sampled_from("abc"),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner, max_size=3)
    ),
    max_leaves=8,
)
RECORDS = st.lists(JSON, min_size=1, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=RECORDS, cuts=st.lists(st.integers(0, 40)), every=st.integers(2, 5))
def test_any_split_of_records_into_partitions_gives_the_same_schema(
    records: list[Any], cuts: list[int], every: int
) -> None:
    edges = sorted({0, len(records), *(cut for cut in cuts if cut <= len(records))})
    parts = [records[start:end] for start, end in itertools.pairwise(edges)]
    bag = db.from_delayed([delayed(list)(part) for part in parts])
    with dask.config.set(scheduler="sync"):
        result = reduce_dask(bag, enum=True, split_every=every)
    assert result.partitions == len(parts)
    assert result.schema == samples_to_schema(records, enum=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=RECORDS, blocksize=st.integers(1, 400), bad=st.sets(st.integers(0, 39)))
def test_any_cut_of_json_lines_into_blocks_gives_the_same_schema_and_reports(
    records: list[Any], blocksize: int, bad: set[int]
) -> None:
    lines = [json.dumps(r) if i not in bad else "[1," for i, r in enumerate(records)]
    data = ("\n".join(lines) + "\n").encode()
    memory = fsspec.filesystem("memory")
    memory.pipe("/orkestrel-laws/x.jsonl", data)
    with dask.config.set(scheduler="sync"):
        whole = reduce_dask("memory://orkestrel-laws/x.jsonl", errors="skip", blocksize=None)
        cut = reduce_dask("memory://orkestrel-laws/x.jsonl", errors="skip", blocksize=blocksize)
    good = [r for i, r in enumerate(records) if i not in bad]
    if good:
        assert cut.schema == samples_to_schema(good)
    assert cut.schema == whole.schema
    assert (cut.lines, cut.samples, cut.skipped) == (whole.lines, whole.samples, whole.skipped)
    assert [(e.line, e.column, e.reason) for e in cut.errors] == [
        (e.line, e.column, e.reason) for e in whole.errors
    ]
