"""The workspace tool's `read` window: whole files as they are, cut ones with a note saying how
to read on, and a line longer than the character cap cut at it."""

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
