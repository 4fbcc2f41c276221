"""The lineage helpers: tags, validation, copying, extension and depth, total on hostile input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.toolbox import (
    MAX_WORKFLOW_CHAIN,
    ToolboxError,
    derive_workflow_depth,
    extend_lineage,
    is_agent_function,
    is_workflow_lineage,
    normalize_lineage,
    tag_agent,
    tag_workflow,
)


def test_the_lenient_authoring_helpers_standalone() -> None:
    assert tag_workflow("release") == "workflow:release"
    assert tag_agent("reviewer") == "agent:reviewer"
    root = normalize_lineage(["workflow:release"])
    assert root == ("workflow:release",)
    agent = extend_lineage(root, tag_agent("reviewer"))
    assert agent == ("workflow:release", "agent:reviewer")
    assert is_workflow_lineage(agent)
    assert derive_workflow_depth(root) == 0
    assert is_agent_function(lambda: "opaque") is False
    assert MAX_WORKFLOW_CHAIN == 8


def test_normalizing_copies_and_freezes() -> None:
    source = ["workflow:a", "agent:b"]
    lineage = normalize_lineage(source)
    source.append("workflow:c")
    assert lineage == ("workflow:a", "agent:b")
    assert isinstance(lineage, tuple)
    extended = extend_lineage(lineage, "workflow:c")
    assert (lineage, extended) == (
        ("workflow:a", "agent:b"),
        ("workflow:a", "agent:b", "workflow:c"),
    )
    assert normalize_lineage() == ()


@pytest.mark.parametrize(
    ("lineage", "depth"),
    [
        ((), 0),
        (("workflow:a",), 0),
        (("workflow:a", "agent:x"), 0),
        (("workflow:a", "agent:x", "workflow:b"), 1),
    ],
)
def test_depth_counts_workflow_tags_from_zero(lineage: tuple[str, ...], depth: int) -> None:
    assert derive_workflow_depth(lineage) == depth


def test_depth_of_a_full_chain() -> None:
    tags: list[str] = []
    for index in range(MAX_WORKFLOW_CHAIN + 1):
        tags += [f"workflow:w{index}", f"agent:a{index}"]
    assert derive_workflow_depth(tags[:-1]) == MAX_WORKFLOW_CHAIN


class Exploding(list[str]):
    def __iter__(self) -> Any:
        raise RuntimeError("no")


VALID = [(), ["workflow:a"], ("workflow:a", "agent:b", "workflow:c")]
INVALID = [
    "workflow:a",
    None,
    {"workflow:a": 1},
    ["agent:a"],
    ["workflow:a", "workflow:b"],
    ["workflow:a", "agent:b", "agent:c"],
    ["workflow:"],
    ["workflow:a", "agent:"],
    ["workflow:a", "agent:b", "workflow:a"],
    ["workflow:a", 5],
    Exploding(["workflow:a"]),
    [type("S", (str,), {})("workflow:a")],
]


@pytest.mark.parametrize("value", VALID)
def test_valid_lineages(value: Any) -> None:
    assert is_workflow_lineage(value)
    assert normalize_lineage(value) == tuple(value)


@pytest.mark.parametrize("value", INVALID, ids=repr)
def test_invalid_lineages_are_refused_totally(value: Any) -> None:
    assert not is_workflow_lineage(value)
    with pytest.raises(ToolboxError) as caught:
        normalize_lineage(value)
    assert caught.value.code == "TOOL"
    with pytest.raises(ToolboxError):
        derive_workflow_depth(value)


TAGS = st.one_of(
    st.sampled_from(["workflow:a", "workflow:b", "agent:x", "agent:y", "workflow:", "agent:", "x"]),
    st.integers(),
    st.none(),
)


@given(st.one_of(st.lists(TAGS, max_size=6), st.tuples(TAGS, TAGS), TAGS))
def test_the_guard_agrees_with_normalize_on_any_value(value: Any) -> None:
    valid = is_workflow_lineage(value)
    try:
        normalized = normalize_lineage(value)
    except ToolboxError:
        assert not valid
    else:
        assert valid
        assert normalized == tuple(value)
