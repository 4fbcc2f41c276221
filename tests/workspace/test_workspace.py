"""`Workspace`: reading, writing, splicing, prepending, moving and removing files."""

from __future__ import annotations

import base64

import pytest

from orkestrel.workspace import (
    BinaryContent,
    Position,
    Range,
    ReadResult,
    TextContent,
    Workspace,
    WorkspaceError,
    create_file,
    range_of,
)
from workspace.samples import png

PNG = base64.b64encode(png()).decode("ascii")


def with_image() -> Workspace:
    icon = create_file("icon.png", BinaryContent(PNG, "image/png"))
    workspace = Workspace("project", [icon])
    workspace.write("notes.md", "# Title\nBody")
    return workspace


def code(error: pytest.ExceptionInfo[WorkspaceError]) -> str:
    return error.value.code


def test_a_first_write_creates_and_later_edits_modify() -> None:
    workspace = Workspace()
    workspace.write("src/main.py", "x = 1")
    first = workspace.file("src/main.py")
    assert first is not None
    assert (first.state, first.size, first.lines, first.content) == (
        "created",
        5,
        1,
        TextContent("x = 1", "python"),
    )
    workspace.append("src/main.py", "\ny = 2")
    second = workspace.file("src/main.py")
    assert second is not None
    assert second.state == "modified"
    assert second.lines == 2
    assert first.content == TextContent("x = 1", "python"), "file values never change"
    assert len(workspace.id) == 36


def test_sizes_count_utf8_bytes_and_lines_count_breaks() -> None:
    workspace = Workspace()
    workspace.write({"a.txt": "café", "b.txt": "", "c.txt": "a\n", "d.txt": "\ud800"})
    sizes = {file.path: (file.size, file.lines) for file in workspace.files()}
    assert sizes == {"a.txt": (5, 1), "b.txt": (0, 0), "c.txt": (2, 2), "d.txt": (3, 1)}


def test_rewriting_keeps_the_language_and_writing_over_binary_retypes_to_text() -> None:
    workspace = with_image()
    workspace.write("notes.md", "plain")
    notes = workspace.file("notes.md")
    assert notes is not None
    assert notes.content == TextContent("plain", "markdown")
    workspace.write("icon.png", "now text")
    icon = workspace.file("icon.png")
    assert icon is not None
    assert (icon.content, icon.state) == (TextContent("now text", "text"), "modified")


def test_reads_answer_text_and_treat_binary_as_absent() -> None:
    workspace = with_image()
    assert workspace.read("notes.md") == "# Title\nBody"
    assert workspace.read("icon.png") is None
    assert workspace.read("missing") is None
    assert workspace.read(["notes.md", "icon.png", "missing"]) == {"notes.md": "# Title\nBody"}
    with pytest.raises(WorkspaceError) as error:
        workspace.read("icon.png", range_of(1, 1, 1, 2))
    assert code(error) == "MODALITY"
    assert workspace.read("missing", range_of(1, 1, 1, 2)) is None


def test_ranged_reads_clamp_and_report_the_span_covered() -> None:
    workspace = Workspace()
    workspace.write("a.txt", "abc\ndef")
    assert workspace.read("a.txt", range_of(1, 2, 9, 9)) == ReadResult(
        "bc\ndef", Range(Position(1, 2), Position(2, 4))
    )
    assert workspace.read("a.txt", range_of(1, 1, 1, 4)) == ReadResult(
        "abc", Range(Position(1, 1), Position(1, 4))
    )


def test_columns_count_code_points_for_emoji_and_combining_marks() -> None:
    workspace = Workspace()
    workspace.write("a.txt", "a😀b\ne\u0301x😀😀y")
    assert workspace.read("a.txt", range_of(1, 3, 1, 4)) == ReadResult(
        "b", Range(Position(1, 3), Position(1, 4))
    )
    assert workspace.read("a.txt", range_of(2, 1, 2, 3)) == ReadResult(
        "e\u0301", Range(Position(2, 1), Position(2, 3))
    )
    workspace.write("a.txt", "🎉", range_of(2, 4, 2, 6))
    assert workspace.read("a.txt") == "a😀b\ne\u0301x🎉y"
    workspace.write("a.txt", "E", range_of(2, 1, 2, 2))
    assert workspace.read("a.txt") == "a😀b\nE\u0301x🎉y"


def test_splice_replaces_a_half_open_span_and_clamps_oversized_ranges() -> None:
    workspace = Workspace()
    workspace.write("main.py", "answer = 41")
    workspace.write("main.py", "42", range_of(1, 10, 1, 12))
    assert workspace.read("main.py") == "answer = 42"
    workspace.write("main.py", "!", range_of(1, 99, 5, 99))
    assert workspace.read("main.py") == "answer = 42!"
    workspace.write("main.py", "> ", range_of(1, 1, 1, 1))
    assert workspace.read("main.py") == "> answer = 42!"
    workspace.write("main.py", "", range_of(1, 1, 1, 3))
    assert workspace.read("main.py") == "answer = 42!"


def test_splice_refuses_missing_binary_and_impossible_ranges() -> None:
    workspace = with_image()
    before = workspace.snapshot()
    cases = [
        ("missing.txt", range_of(1, 1, 1, 2), "MODALITY", "missing file"),
        ("icon.png", range_of(1, 1, 1, 2), "MODALITY", "binary file"),
        ("notes.md", range_of(2, 1, 1, 1), "RANGE", "Invalid range"),
        ("notes.md", range_of(1, 3, 1, 2), "RANGE", "Invalid range"),
        ("notes.md", range_of(0, 1, 1, 2), "RANGE", "Invalid range"),
        ("notes.md", range_of(1, 1, 1, -5), "RANGE", "Invalid range"),
    ]
    for path, span, expected, words in cases:
        with pytest.raises(WorkspaceError, match=words) as error:
            workspace.write(path, "x", span)
        assert code(error) == expected
        assert error.value.context is not None
        assert error.value.context["path"] == path
    assert workspace.snapshot() == before


def test_prepend_and_append_treat_absent_as_empty_and_refuse_binary_untouched() -> None:
    workspace = with_image()
    workspace.prepend("new.txt", "b")
    workspace.prepend("new.txt", "a")
    workspace.append({"new.txt": "c", "other.txt": "z"})
    assert workspace.read(["new.txt", "other.txt"]) == {"new.txt": "abc", "other.txt": "z"}
    before = workspace.snapshot()
    for edit in (workspace.prepend, workspace.append):
        with pytest.raises(WorkspaceError, match=r"binary file: icon\.png") as error:
            edit({"new.txt": "!", "icon.png": "x"})
        assert code(error) == "MODALITY"
    assert workspace.snapshot() == before


def test_move_rekeys_in_place_overwrites_the_target_and_reports() -> None:
    workspace = Workspace()
    workspace.write({"a": "1", "b": "2", "c": "3"})
    assert workspace.move("a", "c") is True
    assert [(file.path, file.state) for file in workspace.files()] == [
        ("c", "modified"),
        ("b", "created"),
    ]
    assert workspace.read("c") == "1"
    assert workspace.move("ghost", "x") is False
    assert workspace.move("b", "b") is False
    assert workspace.move({"b": "d", "ghost": "e"}) is True
    assert [file.path for file in workspace.files()] == ["c", "d"]


def test_remove_reports_whether_anything_went() -> None:
    workspace = Workspace()
    workspace.write({"a": "1", "b": "2"})
    assert workspace.remove("a") is True
    assert workspace.remove("a") is False
    assert workspace.remove(["ghost", "b"]) is True
    assert workspace.remove([]) is False
    assert workspace.count == 0


def test_has_tests_one_path_or_any_of_a_batch() -> None:
    workspace = with_image()
    assert workspace.has("icon.png")
    assert not workspace.has("x")
    assert workspace.has(["x", "notes.md"])
    assert not workspace.has(["x", "y"])


def test_snapshot_and_seed_round_trip_in_order() -> None:
    workspace = with_image()
    workspace.write("z.txt", "last")
    snapshot = workspace.snapshot()
    assert [file.path for file in snapshot.files] == ["icon.png", "notes.md", "z.txt"]
    rebuilt = Workspace(snapshot.id, snapshot.files)
    assert rebuilt.snapshot() == snapshot
    rebuilt.clear()
    assert rebuilt.count == 0
    assert workspace.count == 3


def test_a_write_without_content_does_nothing() -> None:
    workspace = Workspace()
    workspace.write("a.txt")
    workspace.prepend("a.txt")
    workspace.append("a.txt")
    assert workspace.count == 0
