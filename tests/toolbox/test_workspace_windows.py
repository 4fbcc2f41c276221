"""The workspace tool's `read` and `search` windows: whole answers as they are, cut ones with a
note saying how to go on, and a line longer than the character cap cut at it."""

from __future__ import annotations

import pytest

from orkestrel.toolbox import create_workspace_tool

pytestmark = pytest.mark.anyio


async def test_a_whole_file_is_answered_as_it_is_and_a_window_says_how_to_read_on() -> None:
    tool = create_workspace_tool(read_lines=2)
    await tool.execute({"operation": "write", "path": "a.txt", "content": "1\n2\n3\n4\n5"})
    read = await tool.execute({"operation": "read", "path": "a.txt"})
    rest = await tool.execute({"operation": "read", "path": "a.txt", "offset": 5})
    middle = await tool.execute({"operation": "read", "path": "a.txt", "offset": 2, "limit": 1})
    past = await tool.execute({"operation": "read", "path": "a.txt", "offset": 9})
    assert read == "1\n2\n[truncated: showed lines 1-2 of 5; read on with offset 3]"
    assert middle == "2\n[truncated: showed lines 2-2 of 5; read on with offset 3]"
    assert (rest, past) == ("5", "")
    assert await tool.execute({"operation": "read", "path": "gone.txt"}) is None


async def test_a_line_longer_than_the_character_cap_is_cut_and_the_note_says_so() -> None:
    tool = create_workspace_tool(read_chars=4)
    await tool.execute({"operation": "write", "path": "a.txt", "content": "abcdefgh\nij\n"})
    first = await tool.execute({"operation": "read", "path": "a.txt"})
    second = await tool.execute({"operation": "read", "path": "a.txt", "offset": 2})
    assert first == (
        "abcd\n[truncated: showed lines 1-1 of 2 (line 1 cut at 4 characters); "
        "read on with offset 2]"
    )
    assert second == "ij\n"


async def test_a_limit_over_the_cap_is_held_to_the_cap() -> None:
    tool = create_workspace_tool(read_lines=1)
    await tool.execute({"operation": "write", "path": "a.txt", "content": "1\n2\n"})
    read = await tool.execute({"operation": "read", "path": "a.txt", "limit": 50})
    assert read == "1\n[truncated: showed lines 1-1 of 2; read on with offset 2]"


async def test_a_search_is_cut_at_the_match_cap_and_at_the_character_cap() -> None:
    tool = create_workspace_tool(search_matches=2, read_chars=6)
    await tool.execute({"operation": "write", "path": "a.txt", "content": "ab\nab\nab\n"})
    await tool.execute({"operation": "write", "path": "b.txt", "content": "abcdefgh\n"})
    one = await tool.execute({"operation": "search", "query": "ab", "limit": 1})
    many = await tool.execute({"operation": "search", "query": "ab"})
    long = await tool.execute({"operation": "search", "query": "fgh"})
    assert [match["line"] for match in one] == [1]
    assert [match["line"] for match in many["matches"]] == [1, 2]
    assert many["truncated"] is True
    assert long["matches"][0]["content"] == "abcdef"
    assert long["truncated"] is True
    assert await tool.execute({"operation": "search", "query": "zz"}) == []
