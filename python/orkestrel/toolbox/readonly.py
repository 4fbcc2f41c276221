"""Read-only JSON data: the examples the toolbox publishes, which a user passes to the tools
and to `json.dumps` as they are, and which no one can change under the descriptions that
embed them."""

from __future__ import annotations

from typing import Any, NoReturn


def _refuse(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"{type(self).__name__} is read-only")


class ReadOnlyDict(dict[str, Any]):
    """A `dict` (so every JSON consumer takes it as an object) that refuses every change."""

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self.items()))


class ReadOnlyList(list[Any]):
    """A `list` (so every JSON consumer takes it as an array) that refuses every change."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))


def read_only(value: Any) -> Any:
    """A read-only deep copy of JSON data: dicts and lists become `ReadOnlyDict` and
    `ReadOnlyList`, everything else is kept."""
    if isinstance(value, dict):
        return ReadOnlyDict({key: read_only(item) for key, item in value.items()})
    if isinstance(value, list):
        return ReadOnlyList(read_only(item) for item in value)
    return value
