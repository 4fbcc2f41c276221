"""The data shapes of the timeout module."""

from __future__ import annotations

from typing import NotRequired, Protocol, TypedDict

from orkestrel.abort import AbortSignal


class TimeoutOptions(TypedDict):
    """Represents the options `create_timeout` and the `Timeout` constructor accept."""

    id: NotRequired[str]
    ms: int | float
    signal: NotRequired[AbortSignal]


class TimeoutInterface(Protocol):
    """Represents a controllable deadline exposing an `AbortSignal` that aborts on expiry."""

    @property
    def id(self) -> str: ...
    @property
    def ms(self) -> int | float: ...
    @property
    def signal(self) -> AbortSignal: ...
    @property
    def expired(self) -> bool: ...
    def start(self) -> None: ...
    def clear(self) -> None: ...
