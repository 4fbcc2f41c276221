"""Docstring reading: summary, prose and per-argument text in Google, NumPy and Sphinx layouts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.tool.docstrings import parse_docstring

GOOGLE = """Find records that match a query.

    Searches the whole index, newest first.

    Args:
        query (str): What to look for.
            Wrapped onto a second line: with a colon.
        limit: How many records to return.
        **filters: Extra equality filters.

    Returns:
        list: The matching records.
    """

NUMPY = """Find records that match a query.

    Searches the whole index, newest first.

    Parameters
    ----------
    query : str
        What to look for.
        Wrapped onto a second line.
    limit, offset : int, optional
        Paging window.

    Returns
    -------
    list
        The matching records.
    """

SPHINX = """Find records that match a query.

    Searches the whole index, newest first.

    :param query: What to look for.
        Wrapped onto a second line.
    :param int limit: How many records to return.
    :type limit: int
    :returns: The matching records.
    """


def test_google_arguments_and_remaining_sections() -> None:
    parsed = parse_docstring(GOOGLE)
    assert parsed.summary == "Find records that match a query."
    assert parsed.arguments == {
        "query": "What to look for. Wrapped onto a second line: with a colon.",
        "limit": "How many records to return.",
        "filters": "Extra equality filters.",
    }
    assert parsed.description is not None
    assert "Args:" not in parsed.description
    assert "Returns:\n    list: The matching records." in parsed.description
    assert parsed.description.startswith("Find records that match a query.\n\nSearches")


def test_numpy_arguments_including_shared_entries() -> None:
    parsed = parse_docstring(NUMPY)
    assert parsed.arguments == {
        "query": "What to look for. Wrapped onto a second line.",
        "limit": "Paging window.",
        "offset": "Paging window.",
    }
    assert parsed.description is not None
    assert "Parameters" not in parsed.description
    assert "Returns\n-------" in parsed.description


def test_sphinx_arguments_and_type_fields_dropped() -> None:
    parsed = parse_docstring(SPHINX)
    assert parsed.arguments == {
        "query": "What to look for. Wrapped onto a second line.",
        "limit": "How many records to return.",
    }
    assert parsed.description == (
        "Find records that match a query.\n\nSearches the whole index, newest first.\n\n"
        ":returns: The matching records."
    )


def test_a_wrapped_first_paragraph_is_one_summary_line() -> None:
    parsed = parse_docstring("Find records\nthat match.\n\nMore text.")
    assert parsed.summary == "Find records that match."


@pytest.mark.parametrize("text", [None, "", "   \n  "])
def test_no_docstring(text: str | None) -> None:
    assert parse_docstring(text) == (None, None, {})


def test_a_docstring_made_only_of_arguments_has_no_description() -> None:
    parsed = parse_docstring("\n    Args:\n        x: The x.\n    ")
    assert parsed == (None, None, {"x": "The x."})


def test_an_unrelated_header_is_kept() -> None:
    parsed = parse_docstring("Do it.\n\nNote:\n    x: not an argument.\n")
    assert parsed.arguments == {}
    assert parsed.description == "Do it.\n\nNote:\n    x: not an argument."


@given(st.text(max_size=400))
def test_any_text_parses_without_error(text: str) -> None:
    parsed = parse_docstring(text)
    assert all(isinstance(key, str) for key in parsed.arguments)
    if parsed.summary is not None:
        assert "\n" not in parsed.summary
