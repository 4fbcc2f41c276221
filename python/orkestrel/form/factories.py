"""The constructor-free way to open a form."""

from __future__ import annotations

from collections.abc import Mapping

from orkestrel.form.form import Form
from orkestrel.form.types import FieldRuleName, FieldValue, FormSchema


def create_form(
    schema: FormSchema,
    *,
    values: Mapping[str, FieldValue] | None = None,
    messages: Mapping[FieldRuleName, str] | None = None,
) -> Form:
    """Opens a live form over a copy of `schema`, its defaults applied and then `values`
    seeded; `messages` replaces the failure message of named rules.

    Raises `FormError`: `SCHEMA` for a schema that is not one or fails the audit, `FIELD` for
    a seeded name the schema does not declare, `CONTROL` for a seeded value its control cannot
    hold.
    """
    return Form(schema, values=values, messages=messages)
