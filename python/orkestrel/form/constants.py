"""The controls, rule messages, value formats and budgets of a form document."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, get_args

from orkestrel.form.types import FieldControl, FieldRuleName, FormStatus

FIELD_CONTROLS: Final[tuple[FieldControl, ...]] = get_args(FieldControl)
"""Lists the twelve field controls, in the order the form document declares them."""

FORM_STATUSES: Final[tuple[FormStatus, ...]] = get_args(FormStatus)
"""Lists the three places a form can be in its life."""

FIELD_RULES: Final[tuple[FieldRuleName, ...]] = get_args(FieldRuleName)
"""Lists the nine named rules, in the order a field is evaluated against them."""

RULE_MESSAGES: Final[Mapping[FieldRuleName, str]] = MappingProxyType(
    {
        "required": "An answer is needed here",
        "minimum": "The answer is below the least allowed, {limit}",
        "maximum": "The answer is above the most allowed, {limit}",
        "step": "The answer must fall on a step of {limit}",
        "pattern": "The answer does not have the expected form",
        "email": "The answer is not an email address",
        "url": "The answer is not an http or https address",
        "integer": "The answer must be a whole number",
        "alphanumeric": "Use letters and digits only",
    }
)
"""Holds the failure message of each named rule; `{limit}` stands for the rule's operand."""

EMAIL_PATTERN: Final = r"^[^\s@]+@[^\s@]+\.[^\s@]+$"
"""Holds the whole-value shape the `email` rule checks: something, `@`, a dotted domain."""

URL_PATTERN: Final = r"^https?://\S+$"
"""Holds the whole-value shape the `url` rule checks: an absolute http or https address."""

ALPHANUMERIC_PATTERN: Final = r"^[A-Za-z0-9]+$"
"""Holds the whole-value shape the `alphanumeric` rule checks: ASCII letters and digits."""

INTEGER_PATTERN: Final = r"^[+-]?\d+$"
"""Holds the whole-value shape the `integer` rule checks on a string: an optional sign and
digits."""

COLOR_PATTERN: Final = r"^#[0-9A-Fa-f]{6}$"
"""Holds the value format of a `color` field: `#rrggbb` in hexadecimal, either case."""

DATE_PATTERN: Final = r"^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$"
"""Holds the value format of a `date` field: `YYYY-MM-DD`, month 01 to 12, day 01 to 31."""

TIME_PATTERN: Final = r"^(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?$"
"""Holds the value format of a `time` field: 24-hour `HH:MM`, seconds optional."""

DATETIME_PATTERN: Final = (
    r"^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?$"
)
"""Holds the value format of a `datetime` field: a local date and time joined by `T`, with no
zone and optional seconds."""

PATTERN_LIMIT: Final = 256
"""Holds the longest `pattern` rule source a schema may carry, in characters."""

FIELD_LIMIT: Final = 512
"""Holds the most fields one schema may declare."""

GROUP_LIMIT: Final = 64
"""Holds the most groups one schema may declare."""

CHOICE_LIMIT: Final = 1024
"""Holds the most choices one `select` or `checkbox` field may offer."""

LIST_LIMIT: Final = 1024
"""Holds the most entries one list answer (`checkbox`, `file`) may hold."""

NAME_LIMIT: Final = 128
"""Holds the longest schema, group or field name, in characters."""

STRING_LIMIT: Final = 65_536
"""Holds the longest single string a schema or an answer may carry, in characters."""

TEXT_LIMIT: Final = 1_048_576
"""Holds the most string characters one schema may carry in total."""

DEPTH_LIMIT: Final = 64
"""Holds the deepest nesting a field's `meta` record may carry, counting the record itself."""

NODE_LIMIT: Final = 16_384
"""Holds the most objects, lists and leaves one schema may carry in total."""
