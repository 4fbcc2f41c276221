"""Compiled value formats: the fixed ones on `re`, the authored ones on the linear-time engine."""

from __future__ import annotations

import re
from functools import lru_cache

from orkestrel.contract import Contract, create_contract, string_shape
from orkestrel.form.constants import (
    ALPHANUMERIC_PATTERN,
    COLOR_PATTERN,
    DATE_PATTERN,
    DATETIME_PATTERN,
    EMAIL_PATTERN,
    INTEGER_PATTERN,
    TIME_PATTERN,
    URL_PATTERN,
)


def _whole(pattern: str, flags: int = 0) -> re.Pattern[str]:
    # `$` would also match before a final newline; `\Z` is the true end, as JavaScript's `$` is.
    return re.compile(pattern.removesuffix("$") + r"\Z", flags)


EMAIL = _whole(EMAIL_PATTERN)
URL = _whole(URL_PATTERN)
ALPHANUMERIC = _whole(ALPHANUMERIC_PATTERN, re.ASCII)
INTEGER = _whole(INTEGER_PATTERN, re.ASCII)
COLOR = _whole(COLOR_PATTERN, re.ASCII)
DATE = _whole(DATE_PATTERN, re.ASCII)
TIME = _whole(TIME_PATTERN, re.ASCII)
DATETIME = _whole(DATETIME_PATTERN, re.ASCII)

FORMATS: dict[str, re.Pattern[str]] = {
    "date": DATE,
    "time": TIME,
    "datetime": DATETIME,
    "color": COLOR,
}
"""The value format each temporal or color control holds its string in."""


@lru_cache(maxsize=512)
def authored(source: str) -> Contract:
    """Compiles a `pattern` rule's source, anchored to the whole value, on the project's
    linear-time regex engine; raises `ContractError` for a source that engine refuses."""
    return create_contract(string_shape(pattern="^(?:" + source + ")$"))


def pattern_fault(source: str) -> str | None:
    """Says why a `pattern` source cannot be used, or `None` when it compiles."""
    try:
        authored(source)
    except Exception as error:
        return str(error).split(": ")[-1] or "it does not compile"
    return None
