"""The native extension: the Rust core of orkestrel."""

from typing import final

__version__: str

class PatternError(ValueError):
    """Raised when a search pattern cannot be compiled or run by the linear-time engine."""

@final
class SearchPattern:
    """A compiled search query, literal or regular expression, run in time linear in the text."""

    def __new__(cls, query: str, *, regex: bool, sensitive: bool, lines: bool) -> SearchPattern: ...
    def search(
        self, text: str, limit: int | None = None
    ) -> list[tuple[int, int, int, int, int]]: ...
    def replace(
        self, text: str, replacement: str, limit: int | None = None
    ) -> tuple[str, int] | None: ...

def locate(text: str, line: int, column: int) -> tuple[int, int, int]: ...
