"""`Workspace`: the live editing surface over one path-keyed map of immutable files."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import overload

from orkestrel._core import PatternError, ResultSizeError, SearchPattern
from orkestrel.workspace.errors import WorkspaceError
from orkestrel.workspace.helpers import (
    clamp_range,
    infer_language,
    is_valid_range,
    slice_range,
    splice_range,
)
from orkestrel.workspace.types import (
    File,
    FileState,
    Range,
    ReadResult,
    ReplaceResult,
    SearchMatch,
    TextContent,
    WorkspaceSnapshot,
)
from orkestrel.workspace.values import create_file


def _pattern(query: str, regex: bool, sensitive: bool, lines: bool) -> SearchPattern:
    if query == "":
        raise WorkspaceError(
            "PATTERN", "The query is empty: give the text or pattern to find", {"query": query}
        )
    try:
        return SearchPattern(query, regex=regex, sensitive=sensitive, lines=lines)
    except PatternError as error:
        raise WorkspaceError(
            "PATTERN", f"Invalid search pattern: {error}", {"query": query}
        ) from None


def _remaining(limit: int | None, used: int) -> int | None:
    return None if limit is None else max(0, limit - used)


class Workspace:
    """Holds files by path in insertion order and edits them by minting new file values.

    Whole-file writes create text; ranged writes edit existing text only; binary files enter
    through the constructor's seed. A path is a key, not a location on disk.

    `limit` bounds what one call can make the workspace build: a replace whose file would pass
    `limit` UTF-8 bytes, or a search whose matches (each its line and path plus a fixed
    framing) would pass `limit` bytes, raises `LIMIT` before the result grows. `None` sets no
    bound.
    """

    __slots__ = ("_files", "_id", "_limit")

    def __init__(
        self, id: str | None = None, seed: Iterable[File] | None = None, *, limit: int | None = None
    ) -> None:
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 0
        ):
            raise ValueError(f"limit must be a non-negative integer or None, got {limit!r}")
        self._limit = limit
        self._id = id if id is not None else str(uuid.uuid4())
        self._files: dict[str, File] = {}
        for file in seed or ():
            self._files[file.path] = file

    @property
    def id(self) -> str:
        """The workspace's identity."""
        return self._id

    @property
    def limit(self) -> int | None:
        """The most bytes a replaced file or a search's matches may take, or `None`."""
        return self._limit

    @property
    def count(self) -> int:
        """How many files the workspace holds."""
        return len(self._files)

    def file(self, path: str) -> File | None:
        """Finds the file value at a path."""
        return self._files.get(path)

    def files(self) -> list[File]:
        """Lists every file in insertion order."""
        return list(self._files.values())

    @overload
    def read(self, path: str) -> str | None: ...  # type: ignore[overload-overlap]
    @overload
    def read(self, path: str, range: Range) -> ReadResult | None: ...
    @overload
    def read(self, path: Sequence[str]) -> dict[str, str]: ...
    def read(
        self, path: str | Sequence[str], range: Range | None = None
    ) -> str | ReadResult | dict[str, str] | None:
        """Reads whole text, a clamped range of it, or a batch of paths; binary content reads as
        absent, except that a ranged read of it raises `MODALITY`.
        """
        if not isinstance(path, str):
            return {one: text for one in path if (text := self._text(one)) is not None}
        file = self._files.get(path)
        if file is None:
            return None
        if range is None:
            return self._text(path)
        if not isinstance(file.content, TextContent):
            raise WorkspaceError(
                "MODALITY", f"Cannot read a range of a binary file: {path}", {"path": path}
            )
        text = file.content.text
        return ReadResult(slice_range(text, range), clamp_range(text, range))

    def has(self, path: str | Sequence[str]) -> bool:
        """Tests one path, or whether any path of a batch is present."""
        if isinstance(path, str):
            return path in self._files
        return any(one in self._files for one in path)

    def search(
        self, query: str, *, regex: bool = False, sensitive: bool = True, limit: int | None = None
    ) -> list[SearchMatch]:
        """Finds matches line by line across text files in insertion order, skipping binary
        content; `limit` caps the matches across all files.

        An empty query raises `PATTERN`; matches over the workspace's size limit raise `LIMIT`.
        """
        pattern = _pattern(query, regex, sensitive, lines=True)
        matches: list[SearchMatch] = []
        spent = 0
        for file in self._files.values():
            remaining = _remaining(limit, len(matches))
            if remaining == 0:
                break
            if not isinstance(file.content, TextContent):
                continue
            try:
                if self._limit is None:
                    matches.extend(pattern.search(file.path, file.content.text, remaining))
                    continue
                found, cost = pattern.search_within(
                    file.path, file.content.text, remaining, self._limit - spent
                )
            except ResultSizeError:
                raise self._oversize("search results", query, file.path) from None
            except PatternError as error:
                raise self._refusal(error, query, file.path) from None
            matches.extend(found)
            spent += cost
        return matches

    def replace(
        self,
        query: str,
        replacement: str,
        *,
        regex: bool = False,
        sensitive: bool = True,
        limit: int | None = None,
    ) -> ReplaceResult:
        """Replaces matches with `replacement` taken literally, across text files in insertion
        order; `limit` caps the occurrences. Nothing changes unless every file succeeds.

        An empty query raises `PATTERN`; a file that would grow past the workspace's size limit
        raises `LIMIT` before its new text is built.
        """
        pattern = _pattern(query, regex, sensitive, lines=False)
        changed: dict[str, tuple[str, int, int]] = {}
        occurrences = 0
        for path, file in self._files.items():
            remaining = _remaining(limit, occurrences)
            if remaining == 0:
                break
            if not isinstance(file.content, TextContent):
                continue
            try:
                result = pattern.replace(file.content.text, replacement, remaining, self._limit)
            except ResultSizeError:
                raise self._oversize("the replaced file", query, path) from None
            except PatternError as error:
                raise self._refusal(error, query, path) from None
            if result is not None:
                text, count, size, breaks = result
                changed[path] = (text, size, breaks + 1 if text else 0)
                occurrences += count
        for path, (text, size, lines) in changed.items():
            self._write(path, text, (size, lines))
        return ReplaceResult(occurrences, len(changed))

    def write(
        self, path: str | Mapping[str, str], content: str | None = None, range: Range | None = None
    ) -> None:
        """Writes whole text (creating or replacing the file, binary included), splices a range
        of existing text, or writes a batch mapping paths to texts.
        """
        if not isinstance(path, str):
            for one, text in dict(path).items():
                self._write(one, text)
        elif content is None:
            return
        elif range is None:
            self._write(path, content)
        else:
            self._splice(path, content, range)

    def prepend(self, path: str | Mapping[str, str], content: str | None = None) -> None:
        """Puts text before a file's text (an absent path counts as empty), for one path or a
        batch; binary content raises `MODALITY` and the batch is left untouched.
        """
        for one, (text, addition) in self._edits(path, content, "prepend").items():
            self._write(one, addition + text)

    def append(self, path: str | Mapping[str, str], content: str | None = None) -> None:
        """Puts text after a file's text (an absent path counts as empty), for one path or a
        batch; binary content raises `MODALITY` and the batch is left untouched.
        """
        for one, (text, addition) in self._edits(path, content, "append").items():
            self._write(one, text + addition)

    def move(self, source: str | Mapping[str, str], target: str | None = None) -> bool:
        """Re-keys a file (or a mapping batch) to a new path in its own insertion slot,
        overwriting an occupied target; reports whether anything moved.
        """
        if not isinstance(source, str):
            moved = [self._move(one, to) for one, to in dict(source).items()]
            return any(moved)
        return target is not None and self._move(source, target)

    def remove(self, path: str | Sequence[str]) -> bool:
        """Drops one path or a batch of paths, reporting whether anything was removed."""
        paths = [path] if isinstance(path, str) else list(path)
        removed = [self._files.pop(one, None) is not None for one in paths]
        return any(removed)

    def clear(self) -> None:
        """Empties the workspace."""
        self._files.clear()

    def snapshot(self) -> WorkspaceSnapshot:
        """Projects the id and the files, in order, into an immutable snapshot."""
        return WorkspaceSnapshot(self._id, tuple(self._files.values()))

    def __repr__(self) -> str:
        return f"Workspace(id={self._id!r}, count={len(self._files)})"

    def _text(self, path: str) -> str | None:
        file = self._files.get(path)
        if file is None or not isinstance(file.content, TextContent):
            return None
        return file.content.text

    def _write(self, path: str, text: str, measured: tuple[int, int] | None = None) -> None:
        existing = self._files.get(path)
        if existing is not None and isinstance(existing.content, TextContent):
            language = existing.content.language
        else:
            language = infer_language(path)
        state: FileState = "created" if existing is None else "modified"
        content = TextContent(text, language)
        if measured is None:
            self._files[path] = create_file(path, content, state)
        else:
            self._files[path] = File(path, content, state, *measured)

    def _splice(self, path: str, content: str, range: Range) -> None:
        existing = self._files.get(path)
        if existing is None:
            raise WorkspaceError(
                "MODALITY", f"Cannot splice a range of a missing file: {path}", {"path": path}
            )
        if not isinstance(existing.content, TextContent):
            raise WorkspaceError(
                "MODALITY", f"Cannot splice a range of a binary file: {path}", {"path": path}
            )
        if not is_valid_range(range):
            raise WorkspaceError(
                "RANGE", f"Invalid range for file: {path}", {"path": path, "range": range}
            )
        text = splice_range(existing.content.text, range, content)
        self._files[path] = create_file(
            path, TextContent(text, existing.content.language), "modified"
        )

    def _edits(
        self, path: str | Mapping[str, str], content: str | None, operation: str
    ) -> dict[str, tuple[str, str]]:
        if isinstance(path, str):
            batch = {} if content is None else {path: content}
        else:
            batch = dict(path)
        edits: dict[str, tuple[str, str]] = {}
        for one, addition in batch.items():
            existing = self._files.get(one)
            if existing is not None and not isinstance(existing.content, TextContent):
                raise WorkspaceError(
                    "MODALITY", f"Cannot {operation} text to a binary file: {one}", {"path": one}
                )
            edits[one] = (self._text(one) or "", addition)
        return edits

    def _move(self, source: str, target: str) -> bool:
        file = self._files.get(source)
        if file is None or source == target:
            return False
        moved = create_file(target, file.content, "modified")
        self._files = {
            (target if path == source else path): (moved if path == source else current)
            for path, current in self._files.items()
            if path != target
        }
        return True

    def _oversize(self, what: str, query: str, path: str) -> WorkspaceError:
        return WorkspaceError(
            "LIMIT",
            f"Refused: {what} would pass the {self._limit}-byte limit at {path}; "
            "narrow the query or set a lower limit",
            {"query": query, "path": path, "limit": self._limit},
        )

    @staticmethod
    def _refusal(error: PatternError, query: str, path: str) -> WorkspaceError:
        return WorkspaceError(
            "PATTERN", f"Search pattern failed on {path}: {error}", {"query": query, "path": path}
        )
