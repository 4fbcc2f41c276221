"""The typed failure a form raises."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from orkestrel._errors import CodedError

FormErrorCode = Literal["SCHEMA", "FIELD", "CONTROL", "SETTLED", "ABANDONED"]
"""Represents the machine-readable code a raised `FormError` carries."""

FORM_ERROR_CODES: frozenset[str] = frozenset(get_args(FormErrorCode))
"""Holds every `FormErrorCode`: the codes `is_form_error` accepts."""


class FormError(CodedError[FormErrorCode]):
    """Represents a form failure with a machine-readable code and an optional context.

    `SCHEMA`: a schema that is not one, or fails the audit (`context["faults"]` lists why).
    `FIELD`: a name the schema does not declare, or a change to a locked field. `CONTROL`: a
    value the field's control cannot hold. `SETTLED` and `ABANDONED`: a write to a form that
    has already ended; `ABANDONED` is also how `answer` fails when the form is torn down first.
    """


def is_form_error(value: object) -> TypeGuard[FormError]:
    """Narrows an unknown caught value to a `FormError` carrying a known code."""
    return isinstance(value, FormError) and value.code in FORM_ERROR_CODES
