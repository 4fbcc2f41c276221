"""The pure helpers, validators and errors of `orkestrel.workspace`."""

from __future__ import annotations

import base64
import json
import pickle

from hypothesis import given
from hypothesis import strategies as st

from orkestrel.workspace import (
    EXTENSION_LANGUAGES,
    BinaryContent,
    File,
    Position,
    Range,
    TextContent,
    WorkspaceError,
    WorkspaceSnapshot,
    WorkspaceStoreError,
    clamp_position,
    clamp_range,
    compute_size,
    count_lines,
    create_binary_content,
    create_file,
    create_text_content,
    create_workspace,
    decoded_size,
    infer_language,
    is_binary,
    is_file,
    is_text,
    is_valid_range,
    is_workspace_error,
    is_workspace_snapshot,
    is_workspace_store_error,
    offset_at,
    parse_snapshot,
    range_of,
    slice_range,
    snapshot_to_record,
    splice_range,
)
from orkestrel.workspace.helpers import sniff_mime
from workspace.samples import png


def test_languages_come_from_the_last_extension() -> None:
    assert infer_language("src/main.TS") == "typescript"
    assert infer_language("notes.md") == "markdown"
    assert infer_language("Makefile") == "text"
    assert infer_language("archive.tar.unknown") == "text"
    assert EXTENSION_LANGUAGES["py"] == "python"


def test_content_arms_sizes_and_lines() -> None:
    text = create_text_content("a\nb", "text")
    image = create_binary_content(base64.b64encode(b"12345").decode(), "image/png")
    assert is_text(text)
    assert not is_binary(text)
    assert is_binary(image)
    assert not is_text(image)
    assert (compute_size(text), count_lines(text)) == (3, 2)
    assert (compute_size(image), count_lines(image)) == (5, 0)
    assert [decoded_size(base64.b64encode(b"x" * n).decode()) for n in range(5)] == [0, 1, 2, 3, 4]


def test_images_are_recognized_by_their_leading_bytes() -> None:
    assert sniff_mime(png()) == "image/png"
    assert sniff_mime(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert sniff_mime(b"GIF89a....") == "image/gif"
    assert sniff_mime(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_mime(b"hello") is None


def test_ranges_validate_clamp_slice_and_splice_in_code_points() -> None:
    text = "ab\n😀c"
    assert is_valid_range(range_of(1, 1, 1, 1))
    assert is_valid_range(range_of(1, 9, 2, 1))
    assert not is_valid_range(range_of(2, 1, 1, 9))
    assert not is_valid_range(range_of(1, 0, 1, 1))
    assert clamp_position(text, Position(9, 9)) == Position(2, 3)
    assert clamp_position(text, Position(-4, 10**30)) == Position(1, 3)
    assert clamp_range(text, range_of(1, 5, 2, 2)) == Range(Position(1, 3), Position(2, 2))
    assert offset_at(text, Position(2, 2)) == 4
    assert text[4] == "c"
    assert slice_range(text, range_of(1, 2, 2, 2)) == "b\n😀"
    assert splice_range(text, range_of(2, 1, 2, 2), "🎉") == "ab\n🎉c"


def test_guards_accept_well_formed_values_and_never_raise() -> None:
    good = create_file("a.txt", TextContent("hi", "text"))
    image = create_file("i.png", BinaryContent(base64.b64encode(png()).decode(), "image/png"))
    assert is_file(good)
    assert is_file(image)
    assert not is_file(File("a.txt", TextContent("hi", "text"), "created", 99, 1))
    assert not is_file(File("a", BinaryContent("!!", "image/png"), "created", 0, 0))
    assert not is_file(File("a", TextContent(3, "t"), "created", 0, 0))  # type: ignore[arg-type]
    assert not is_file({"path": "a.txt"})
    assert is_workspace_snapshot(WorkspaceSnapshot("w", (good, image)))
    assert not is_workspace_snapshot(WorkspaceSnapshot("w", [good]))  # type: ignore[arg-type]
    assert not is_workspace_snapshot(None)
    assert create_workspace("w", [good]).snapshot() == WorkspaceSnapshot("w", (good,))


def test_errors_carry_code_and_context_and_survive_pickling() -> None:
    error = WorkspaceError("RANGE", "Invalid range for file: a", {"path": "a"})
    assert (str(error), error.message, error.code, error.context) == (
        "Invalid range for file: a",
        "Invalid range for file: a",
        "RANGE",
        {"path": "a"},
    )
    assert (
        repr(error) == "WorkspaceError('RANGE', 'Invalid range for file: a', context={'path': 'a'})"
    )
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.code, copy.context) == (WorkspaceError, "RANGE", {"path": "a"})
    store = WorkspaceStoreError("PATH", "no")
    assert is_workspace_store_error(store)
    assert not is_workspace_error(store)
    assert is_workspace_error(error)
    assert not is_workspace_error(ValueError("x"))
    assert not is_workspace_error(WorkspaceError("OTHER", "x"))  # type: ignore[arg-type]


def reference(text: str, line: int, column: int) -> tuple[int, int, int]:
    lines = text.split("\n")
    line = max(1, min(line, len(lines)))
    column = max(1, min(column, len(lines[line - 1]) + 1))
    return line, column, sum(len(part) + 1 for part in lines[: line - 1]) + column - 1


@given(
    text=st.text(alphabet="ab\n😀\u0301\r\ud800", max_size=30),
    line=st.integers(-3, 12),
    column=st.integers(-3, 40),
)
def test_positions_clamp_and_map_to_offsets_like_a_reference(
    text: str, line: int, column: int
) -> None:
    expected_line, expected_column, expected_offset = reference(text, line, column)
    assert clamp_position(text, Position(line, column)) == Position(expected_line, expected_column)
    assert offset_at(text, Position(line, column)) == expected_offset


@given(
    text=st.text(alphabet="ab\n😀\u0301", max_size=30),
    span=st.tuples(*[st.integers(1, 6)] * 4),
    replacement=st.text(alphabet="xy😀\n", max_size=4),
)
def test_splice_and_slice_agree_with_offsets(
    text: str, span: tuple[int, int, int, int], replacement: str
) -> None:
    selected = range_of(*span)
    start = reference(text, span[0], span[1])[2]
    end = max(start, reference(text, span[2], span[3])[2])
    assert splice_range(text, selected, replacement) == text[:start] + replacement + text[end:]
    if is_valid_range(selected):
        assert slice_range(text, selected) == text[start:end]


def test_snapshot_records_round_trip_and_anything_else_reads_as_absent() -> None:
    workspace = create_workspace("w")
    workspace.write({"a.md": "# A\n😀", "b/c.txt": ""})
    image = create_file("i.png", BinaryContent(base64.b64encode(png()).decode(), "image/png"))
    snapshot = WorkspaceSnapshot("w", (*workspace.snapshot().files, image))
    record = snapshot_to_record(snapshot)
    assert json.loads(json.dumps(record)) == record
    assert parse_snapshot(json.loads(json.dumps(record))) == snapshot
    text = record["files"][0]
    broken = [
        None,
        [],
        {"id": 1, "files": []},
        {"id": "w"},
        {"id": "w", "files": [None]},
        {"id": "w", "files": [{**text, "size": 99}]},
        {"id": "w", "files": [{**text, "size": True}]},
        {"id": "w", "files": [{**text, "state": "deleted"}]},
        {"id": "w", "files": [{**text, "content": {"text": "x"}}]},
        {"id": "w", "files": [{**text, "content": {"data": "!!", "mime": "image/png"}}]},
        {"id": "w", "files": [{**text, "content": {"data": "AAAA", "mime": "image/bmp"}}]},
        {"id": "w", "files": [{**text, "path": ["a"]}]},
    ]
    for value in broken:
        assert parse_snapshot(value) is None, value
    assert parse_snapshot({"id": "w", "files": []}) == WorkspaceSnapshot("w", ())
