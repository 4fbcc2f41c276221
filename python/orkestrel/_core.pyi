"""The native extension: the Rust core of orkestrel."""

from typing import final

__version__: str

class PatternError(ValueError):
    """Raised when a search pattern cannot be compiled or run by the linear-time engine."""

@final
class SearchPattern:
    """A compiled search query, literal or regular expression, run in time linear in the text."""

    def __new__(cls, query: str, *, regex: bool, sensitive: bool, lines: bool) -> SearchPattern: ...
    def search(self, path: str, text: str, limit: int | None = None) -> list[SearchMatch]: ...
    def replace(
        self, text: str, replacement: str, limit: int | None = None
    ) -> tuple[str, int] | None: ...

@final
class SearchMatch:
    """One search hit: the file's path, the 1-based line and column where the match starts
    (columns count code points), the match length in code points, and the whole line holding it.
    """

    __match_args__ = ("path", "line", "column", "length", "content")
    def __new__(
        cls, path: str, line: int, column: int, length: int, content: str
    ) -> SearchMatch: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def length(self) -> int: ...
    @property
    def content(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

def locate(text: str, line: int, column: int) -> tuple[int, int, int]: ...
