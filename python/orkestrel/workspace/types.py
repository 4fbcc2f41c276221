"""The immutable values a workspace exchanges, and the interfaces of its classes and stores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypedDict, overload

from orkestrel._core import SearchMatch as SearchMatch

BinaryMIME = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
"""Names the MIME types binary content may carry."""

FileState = Literal["created", "modified"]
"""Says whether a file value was minted for a new path or changed from an existing one."""


@dataclass(frozen=True, slots=True)
class TextContent:
    """Holds text content and the language tag inferred from its path."""

    text: str
    language: str


@dataclass(frozen=True, slots=True)
class BinaryContent:
    """Holds binary content as base64 text, with its image MIME type."""

    data: str
    mime: BinaryMIME


FileContent = TextContent | BinaryContent
"""Represents a file's content: text or binary, told apart by type."""


@dataclass(frozen=True, slots=True)
class File:
    """Represents one immutable file: its path, content, state, byte size and line count."""

    path: str
    content: FileContent
    state: FileState
    size: int
    lines: int


@dataclass(frozen=True, slots=True)
class Position:
    """Represents a 1-based line and column; columns count code points."""

    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Range:
    """Represents a half-open span of text: `start` is included, `end` is not."""

    start: Position
    end: Position


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Holds the text a ranged read returned and the clamped range it covered."""

    content: str
    range: Range


@dataclass(frozen=True, slots=True)
class ReplaceResult:
    """Counts the occurrences a replace changed and the files they were spread across."""

    occurrences: int
    files: int


@dataclass(frozen=True, slots=True)
class WorkspaceSnapshot:
    """Represents a workspace at rest: its id and its files, in order."""

    id: str
    files: tuple[File, ...]


class WorkspaceSnapshotRow(TypedDict):
    """Represents the two-column row a database store writes: the id and the snapshot record."""

    id: str
    snapshot: dict[str, object]


class WorkspaceStoreInterface(Protocol):
    """Represents where snapshots rest between sessions, keyed by workspace id."""

    async def get(self, id: str) -> WorkspaceSnapshot | None: ...
    async def set(self, snapshot: WorkspaceSnapshot) -> None: ...
    async def delete(self, id: str) -> None: ...


class WorkspaceInterface(Protocol):
    """Represents the live editing surface over one path-keyed map of files."""

    @property
    def id(self) -> str: ...
    @property
    def count(self) -> int: ...
    def file(self, path: str) -> File | None: ...
    def files(self) -> list[File]: ...
    @overload
    def read(self, path: str) -> str | None: ...  # type: ignore[overload-overlap]
    @overload
    def read(self, path: str, range: Range) -> ReadResult | None: ...
    @overload
    def read(self, path: Sequence[str]) -> dict[str, str]: ...
    def has(self, path: str | Sequence[str]) -> bool: ...
    def search(
        self, query: str, *, regex: bool = ..., sensitive: bool = ..., limit: int | None = ...
    ) -> list[SearchMatch]: ...
    def replace(
        self,
        query: str,
        replacement: str,
        *,
        regex: bool = ...,
        sensitive: bool = ...,
        limit: int | None = ...,
    ) -> ReplaceResult: ...
    def write(
        self, path: str | Mapping[str, str], content: str | None = ..., range: Range | None = ...
    ) -> None: ...
    def prepend(self, path: str | Mapping[str, str], content: str | None = ...) -> None: ...
    def append(self, path: str | Mapping[str, str], content: str | None = ...) -> None: ...
    def move(self, source: str | Mapping[str, str], target: str | None = ...) -> bool: ...
    def remove(self, path: str | Sequence[str]) -> bool: ...
    def clear(self) -> None: ...
    def snapshot(self) -> WorkspaceSnapshot: ...


class WorkspaceManagerInterface(Protocol):
    """Represents a registry of workspaces by id with one active selection and optional
    durability through a store.
    """

    @property
    def count(self) -> int: ...
    @property
    def active(self) -> WorkspaceInterface | None: ...
    def workspace(self, id: str) -> WorkspaceInterface | None: ...
    def workspaces(self) -> list[WorkspaceInterface]: ...
    def add(
        self, id: str | None = ..., seed: Iterable[File] | None = ...
    ) -> WorkspaceInterface: ...
    def switch(self, id: str) -> WorkspaceInterface | None: ...
    async def open(self, id: str) -> WorkspaceInterface | None: ...
    async def save(self, id: str) -> bool: ...
    def remove(self, id: str | Sequence[str]) -> bool: ...
    def clear(self) -> None: ...
