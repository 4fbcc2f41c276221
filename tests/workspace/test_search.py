"""`Workspace.search` and `Workspace.replace`: the linear-time engine seen from Python."""

from __future__ import annotations

import base64
import pickle
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.workspace import (
    DIRECTORY_FILE_LIMIT,
    BinaryContent,
    ReplaceResult,
    SearchMatch,
    Workspace,
    WorkspaceError,
    WorkspaceManager,
    create_directory_workspace_store,
    create_file,
    escape_reg_exp,
    is_file,
)


def workspace_of(**files: str) -> Workspace:
    workspace = Workspace()
    workspace.write({path.replace("_", "."): text for path, text in files.items()})
    return workspace


def spots(matches: list[SearchMatch]) -> list[tuple[str, int, int, int]]:
    return [(m.path, m.line, m.column, m.length) for m in matches]


def test_search_walks_files_in_order_then_lines_and_returns_the_whole_line() -> None:
    workspace = workspace_of(a_ts="const x = 1\nconst y = 2", b_ts="let z = const")
    assert workspace.search("const") == [
        SearchMatch("a.ts", 1, 1, 5, "const x = 1"),
        SearchMatch("a.ts", 2, 1, 5, "const y = 2"),
        SearchMatch("b.ts", 1, 9, 5, "let z = const"),
    ]
    assert spots(workspace.search("CONST", sensitive=False, limit=2)) == [
        ("a.ts", 1, 1, 5),
        ("a.ts", 2, 1, 5),
    ]
    assert spots(workspace.search("[a-z]\\s=", regex=True)) == [
        ("a.ts", 1, 7, 3),
        ("a.ts", 2, 7, 3),
        ("b.ts", 1, 5, 3),
    ]
    assert workspace.search("const", limit=0) == []


def test_columns_index_the_line_in_code_points() -> None:
    text = "👩‍👩‍👧 e\u0301té 😀x\nx"
    workspace = workspace_of(a_txt=text)
    for match in workspace.search("x") + workspace.search("té") + workspace.search("😀"):
        start = match.column - 1
        assert match.content[start : start + match.length] in ("x", "té", "😀")
    assert spots(workspace.search("x")) == [("a.txt", 1, 13, 1), ("a.txt", 2, 1, 1)]


def test_binary_content_is_never_a_hit_and_never_rewritten() -> None:
    icon = create_file("icon.png", BinaryContent(base64.b64encode(b"AAAA").decode(), "image/png"))
    workspace = Workspace(None, [icon])
    assert workspace.search("QUFB") == []
    assert workspace.replace("QUFB", "x") == ReplaceResult(0, 0)
    assert workspace.file("icon.png") == icon


def test_refused_patterns_are_pattern_errors_with_a_clear_message() -> None:
    workspace = workspace_of(a_txt="abc")
    cases = {
        "(?=a)b": "unsupported look-around",
        "(?<!a)b": "unsupported look-around",
        r"(a)\1": "unsupported backreference",
        "ab(": "does not parse at character 3",
        r"\p{L}{500}": "over the size limit",
    }
    for query, words in cases.items():
        with pytest.raises(WorkspaceError, match=re.escape(words)) as searched:
            workspace.search(query, regex=True)
        with pytest.raises(WorkspaceError, match=re.escape(words)) as replaced:
            workspace.replace(query, "x", regex=True)
        for error in (searched, replaced):
            assert error.value.code == "PATTERN"
            assert error.value.context == {"query": query}
    assert workspace.search("(?=a)b") == [], "a literal query is never a pattern"


def test_nested_quantifiers_over_100_kb_return_at_once() -> None:
    workspace = workspace_of(a_txt="a" * 100_000 + "!", b_txt="a" * 100_000)
    assert spots(workspace.search("(a+)+$", regex=True)) == [("b.txt", 1, 1, 100_000)]


def test_a_pattern_too_costly_for_the_text_is_refused_and_nothing_is_replaced() -> None:
    workspace = workspace_of(a_txt="x", b_txt="ba" * 1_000_000)
    before = workspace.snapshot()
    with pytest.raises(WorkspaceError, match="too expensive") as error:
        workspace.replace("x|a|b.*z", "-", regex=True)
    assert error.value.code == "PATTERN"
    assert error.value.context == {"query": "x|a|b.*z", "path": "b.txt"}
    assert workspace.snapshot() == before


def test_replace_is_literal_counts_occurrences_and_files_and_honours_limit() -> None:
    workspace = workspace_of(a_txt="foo foo\nfoo", b_txt="foo", c_txt="bar")
    assert workspace.replace("foo", "$1&", limit=3) == ReplaceResult(3, 1)
    assert workspace.read("a.txt") == "$1& $1&\n$1&"
    assert workspace.replace("foo", "x") == ReplaceResult(1, 1)
    assert workspace.replace("nothing", "x") == ReplaceResult(0, 0)
    unchanged = workspace.file("c.txt")
    assert unchanged is not None
    assert unchanged.state == "created"


def test_replace_anchors_at_lines_and_literals_may_span_lines() -> None:
    workspace = workspace_of(a_txt="x1\nx2\n  x3")
    assert workspace.replace("^x", "y", regex=True) == ReplaceResult(2, 1)
    assert workspace.read("a.txt") == "y1\ny2\n  x3"
    assert workspace.replace("1\ny", "-") == ReplaceResult(1, 1)
    assert workspace.read("a.txt") == "y-2\n  x3"
    assert workspace.search("2\n ") == [], "a search match never spans lines"


def test_case_insensitive_replace_folds_unicode() -> None:
    workspace = workspace_of(a_txt="Été été ÉTÉ")
    assert workspace.replace("été", "summer", sensitive=False) == ReplaceResult(3, 1)
    assert workspace.read("a.txt") == "summer summer summer"


def test_text_with_lone_surrogates_is_searched_and_kept_exactly() -> None:
    workspace = workspace_of(a_txt="a\ud83db\ud800")
    assert spots(workspace.search("b")) == [("a.txt", 1, 3, 1)]
    assert workspace.replace("b", "\udfff") == ReplaceResult(1, 1)
    assert workspace.read("a.txt") == "a\ud83d\udfff\ud800"


def per_line_reference(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int, int]]:
    return [
        (number, match.start() + 1, match.end() - match.start())
        for number, line in enumerate(text.split("\n"), start=1)
        for match in pattern.finditer(line)
    ]


texts = st.text(alphabet="ab\n é😀\u0301", max_size=40)


@given(text=texts, query=st.text(alphabet="ab é😀", min_size=1, max_size=3))
def test_literal_search_equals_a_per_line_reference(text: str, query: str) -> None:
    found = workspace_of(a_txt=text).search(query)
    assert [(m.line, m.column, m.length) for m in found] == per_line_reference(
        text, re.compile(re.escape(query))
    )
    for match in found:
        assert match.content[match.column - 1 : match.column - 1 + match.length] == query


patterns = st.sampled_from(
    ["a+", "a*", "b?a", "(a|b)+", "[ab]{2}", "^a", "b$", ".", "a.b", "(?:ab)*", "é|😀", "[^a]+"]
)


@given(text=texts, pattern=patterns)
def test_regex_search_equals_python_re_line_by_line(text: str, pattern: str) -> None:
    found = workspace_of(a_txt=text).search(pattern, regex=True)
    assert [(m.line, m.column, m.length) for m in found] == per_line_reference(
        text, re.compile(pattern)
    )


@given(text=texts, pattern=patterns, replacement=st.text(alphabet="xy\\$1", max_size=3))
def test_regex_replace_equals_python_re_with_line_anchors(
    text: str, pattern: str, replacement: str
) -> None:
    workspace = workspace_of(a_txt=text)
    expected, count = re.subn(pattern, lambda _: replacement, text, flags=re.MULTILINE)
    result = workspace.replace(pattern, replacement, regex=True)
    assert result.occurrences == count
    assert workspace.read("a.txt") == expected


@given(value=st.text(max_size=12))
def test_an_escaped_literal_matches_exactly_itself(value: str) -> None:
    workspace = workspace_of(a_txt=f"<{value}>")
    if "\n" in value or not value:
        return
    assert spots(workspace.search(escape_reg_exp(value), regex=True)) == spots(
        workspace.search(value)
    )


def test_a_search_match_is_an_immutable_comparable_value() -> None:
    match = SearchMatch("a.txt", 2, 3, 4, "line")
    assert (match.path, match.line, match.column, match.length, match.content) == (
        "a.txt",
        2,
        3,
        4,
        "line",
    )
    assert match == SearchMatch("a.txt", 2, 3, 4, "line")
    assert match != SearchMatch("a.txt", 2, 3, 5, "line")
    assert match != ("a.txt", 2, 3, 4, "line")
    assert len({match, SearchMatch("a.txt", 2, 3, 4, "line")}) == 1
    assert repr(match) == "SearchMatch(path='a.txt', line=2, column=3, length=4, content='line')"
    assert pickle.loads(pickle.dumps(match)) == match
    with pytest.raises(AttributeError):
        match.line = 9  # type: ignore[misc]
    match match:
        case SearchMatch(path, line, column, length, content):
            assert (path, line, column, length, content) == ("a.txt", 2, 3, 4, "line")


def test_a_query_with_a_lone_surrogate_is_a_pattern_error() -> None:
    workspace = workspace_of(a_txt="a\ud800b")
    for regex in (False, True):
        with pytest.raises(WorkspaceError, match="lone surrogate") as error:
            workspace.search("\ud800", regex=regex)
        assert error.value.code == "PATTERN"


def test_hostile_queries_are_refused_without_harm() -> None:
    workspace = workspace_of(a_txt="(" * 10 + "a" * 1000)
    for query in ("(" * 100_000, "(" * 100_000 + ")" * 100_000, "[" * 50_000, "a{99999999}"):
        with pytest.raises(WorkspaceError) as error:
            workspace.search(query, regex=True)
        assert error.value.code == "PATTERN"
    with pytest.raises(WorkspaceError, match="size limit"):
        workspace.search("x" * 1_000_000)
    assert spots(workspace.search("(" * 10)) == [("a.txt", 1, 1, 10)]


@given(
    text=st.text(alphabet="ab\n😀é\ud800", max_size=30),
    query=st.sampled_from(["a", "b\n", "😀", "ab"]),
    replacement=st.text(alphabet="\nx😀\udfff", max_size=3),
)
def test_replaced_files_carry_their_true_size_and_line_count(
    text: str, query: str, replacement: str
) -> None:
    workspace = workspace_of(a_txt=text)
    workspace.replace(query, replacement)
    file = workspace.file("a.txt")
    assert file is not None
    assert is_file(file)
    assert workspace.read("a.txt") == text.replace(query, replacement)


@pytest.mark.parametrize("operation", ["search", "replace"])
def test_an_empty_query_is_refused_with_a_clear_error(operation: str) -> None:
    workspace = workspace_of(a_txt="a" * 1000)
    before = workspace.snapshot()
    call = workspace.search if operation == "search" else workspace.replace
    arguments = ("",) if operation == "search" else ("", "x" * 600)
    with pytest.raises(WorkspaceError, match="query is empty") as error:
        call(*arguments)
    assert error.value.code == "PATTERN"
    assert workspace.snapshot() == before


def test_a_replace_that_would_grow_a_file_past_the_limit_is_refused_before_it_is_built() -> None:
    workspace = Workspace(limit=1 << 20)
    workspace.write({"a.txt": "ok", "big.txt": "a" * (64 << 10)})
    before = workspace.snapshot()
    with pytest.raises(WorkspaceError, match="1048576-byte limit") as error:
        workspace.replace("a", "x" * 600)
    assert error.value.code == "LIMIT"
    assert error.value.context == {"query": "a", "path": "big.txt", "limit": 1 << 20}
    assert workspace.snapshot() == before
    with pytest.raises(WorkspaceError) as pattern:
        workspace.replace("(?:)", "x" * 600, regex=True)
    assert pattern.value.code == "LIMIT"
    assert workspace.replace("a", "b", limit=10) == ReplaceResult(10, 1)


def test_a_replace_exactly_at_the_limit_is_kept() -> None:
    workspace = Workspace(limit=8)
    workspace.write("a.txt", "aaaa")
    assert workspace.replace("a", "bb") == ReplaceResult(4, 1)
    assert workspace.read("a.txt") == "bbbbbbbb"
    with pytest.raises(WorkspaceError):
        workspace.replace("b", "cc")


def test_search_results_over_the_limit_are_refused_across_files() -> None:
    workspace = Workspace(limit=1 << 20)
    workspace.write({"one.txt": "a" * 20_000, "two.txt": "a" * 20_000})
    with pytest.raises(WorkspaceError, match="search results") as error:
        workspace.search("a")
    assert error.value.code == "LIMIT"
    assert len(workspace.search("a", limit=40)) == 40
    small = Workspace(limit=200)
    small.write({"x.txt": "hit", "y.txt": "hit"})
    assert len(small.search("hit")) == 2
    small.write("z.txt", "hit")
    with pytest.raises(WorkspaceError) as across:
        small.search("hit")
    assert across.value.context == {"query": "hit", "path": "z.txt", "limit": 200}


def test_a_manager_bounds_its_workspaces_by_the_store_limit(tmp_path: Path) -> None:
    def limit(manager: WorkspaceManager) -> int | None:
        workspace = manager.add("w")
        assert isinstance(workspace, Workspace)
        return workspace.limit

    assert limit(WorkspaceManager(create_directory_workspace_store(tmp_path, limit=1000))) == 1000
    assert limit(WorkspaceManager()) == DIRECTORY_FILE_LIMIT
    assert limit(WorkspaceManager(limit=5)) == 5
    assert Workspace().limit is None
    with pytest.raises(ValueError, match="non-negative"):
        Workspace(limit=-1)
