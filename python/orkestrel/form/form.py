"""`Form`: a live form that holds answers, reports their errors and settles exactly once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from orkestrel.form.audit import audit_copy
from orkestrel.form.controls import control_fault
from orkestrel.form.deferred import Deferred
from orkestrel.form.errors import FormError
from orkestrel.form.evaluate import evaluate_field
from orkestrel.form.reader import Refused, read_schema
from orkestrel.form.types import (
    FieldError,
    FieldRuleName,
    FieldValue,
    FormField,
    FormResult,
    FormSchema,
    FormStatus,
    FormValues,
)
from orkestrel.form.validators import copy_value

_MISSING: Any = object()


def _copy(values: Mapping[str, FieldValue]) -> FormValues:
    return {key: list(value) if isinstance(value, list) else value for key, value in values.items()}


class Form:
    """Represents a live form over its own copy of a schema: answers written with `fill`, errors
    recomputed after every change, and an `answer` that resolves with the values on the first
    valid `submit` or fails when the form is destroyed first.

    A refused write changes nothing. Once settled or abandoned, every write raises
    `FormError` (`SETTLED` or `ABANDONED`).
    """

    def __init__(
        self,
        schema: FormSchema,
        *,
        values: Mapping[str, FieldValue] | None = None,
        messages: Mapping[FieldRuleName, str] | None = None,
    ) -> None:
        try:
            copy = read_schema(schema, "keep")
        except Refused as fault:
            raise FormError(
                "SCHEMA", f"invalid form schema: {fault}", {"faults": [str(fault)]}
            ) from None
        faults = audit_copy(copy)
        if faults:
            raise FormError("SCHEMA", f"invalid form schema: {faults[0]}", {"faults": faults})
        self._schema = cast(FormSchema, copy)
        self._fields: dict[str, FormField] = {
            field["name"]: field for field in self._schema["fields"]
        }
        self._messages = dict(messages or {})
        initial: FormValues = {
            field["name"]: cast(Any, field)["default"]
            for field in self._schema["fields"]
            if "default" in field
        }
        self._initial = _copy(initial)
        if values is not None:
            for name, value in self._checked(list(dict(values).items()), locks=False):
                if value is None:
                    self._initial.pop(name, None)
                else:
                    self._initial[name] = value
        self._values = _copy(self._initial)
        self._touched: set[str] = set()
        self._disabled = {
            field["name"] for field in self._schema["fields"] if field.get("disabled")
        }
        self._invalid: dict[str, str] = {}
        self._status: FormStatus = "editing"
        self._answer: Deferred[FormValues] = Deferred()
        self._errors: tuple[FieldError, ...] = ()
        self._refresh()

    @property
    def schema(self) -> FormSchema:
        """The form's own schema, as a fresh copy."""
        return cast(FormSchema, read_schema(self._schema, "keep"))

    @property
    def values(self) -> FormValues:
        """The answers held now, as a fresh dict."""
        return _copy(self._values)

    @property
    def errors(self) -> tuple[FieldError, ...]:
        """Every failure of the enabled fields, in schema order, as of the last change."""
        return self._errors

    @property
    def status(self) -> FormStatus:
        """Where the form is in its life: `editing`, `settled` or `abandoned`."""
        return self._status

    @property
    def valid(self) -> bool:
        """Whether the last evaluation found no error."""
        return not self._errors

    @property
    def touched(self) -> frozenset[str]:
        """The names of the fields somebody has visited."""
        return frozenset(self._touched)

    @property
    def disabled(self) -> frozenset[str]:
        """The names of the fields taken out of the form: neither evaluated nor submitted."""
        return frozenset(self._disabled)

    @property
    def answer(self) -> Deferred[FormValues]:
        """The settled values: await it any number of times, from any task."""
        return self._answer

    def field(self, name: str) -> FormField | None:
        """Finds one field of the form's schema by name, or `None`."""
        return self._fields.get(name)

    def fill(self, name: str | Mapping[str, FieldValue | None], value: Any = _MISSING) -> None:
        """Writes one answer (`fill(name, value)`) or several (`fill({name: value})`); `None`
        clears an answer.

        Every value is checked before any is written: an undeclared name or a change to a
        locked field raises `FormError` (`FIELD`), a value the control cannot hold `CONTROL`.
        Filling a field drops its `invalidate` message.
        """
        self._editing()
        if isinstance(name, str):
            if value is _MISSING:
                raise TypeError("fill(name, value) needs the value; pass None to clear")
            items: list[tuple[Any, Any]] = [(name, value)]
        else:
            items = list(dict(name).items())
        for key, item in self._checked(items, locks=True):
            if item is None:
                self._values.pop(key, None)
            else:
                self._values[key] = item
            self._invalid.pop(key, None)
        self._refresh()

    def touch(self, name: str) -> None:
        """Records that somebody has visited a field."""
        self._editing()
        self._touched.add(self._declared(name))

    def invalidate(self, name: str, message: str) -> None:
        """Fails a field from outside, for what the rules cannot see; the failure carries no
        `rule` and lasts until the field is filled or the form cleared."""
        self._editing()
        self._invalid[self._declared(name)] = str(message)
        self._refresh()

    def disable(self, name: str) -> None:
        """Takes a field out of the form: it is no longer evaluated or submitted."""
        self._editing()
        self._disabled.add(self._declared(name))
        self._refresh()

    def enable(self, name: str) -> None:
        """Puts a disabled field back into the form."""
        self._editing()
        self._disabled.discard(self._declared(name))
        self._refresh()

    def submit(self) -> FormResult:
        """Evaluates every enabled field and settles the form when none fails: `answer`
        resolves with the values of the enabled fields, and later writes raise `SETTLED`.

        On failure every enabled field is marked touched and the form stays `editing`.
        """
        self._editing()
        self._refresh()
        if self._errors:
            self._touched.update(name for name in self._fields if name not in self._disabled)
            return {"success": False, "error": list(self._errors)}
        settled = {k: v for k, v in self._values.items() if k not in self._disabled}
        self._status = "settled"
        self._answer.resolve(_copy(settled))
        return {"success": True, "value": _copy(settled)}

    def clear(self) -> None:
        """Returns every answer to the ones the form opened with (the defaults, overlaid with the
        seeded values) and forgets what was touched or invalidated."""
        self._editing()
        self._values = _copy(self._initial)
        self._touched.clear()
        self._invalid.clear()
        self._refresh()

    def destroy(self, reason: BaseException | None = None) -> None:
        """Tears the form down: an `editing` form becomes `abandoned` and its `answer` fails with
        `reason`, by default `FormError` (`ABANDONED`); a settled form stays settled. Calling it
        again does nothing."""
        if self._status != "editing":
            return
        self._status = "abandoned"
        error = reason or FormError("ABANDONED", "the form was abandoned before it was answered")
        self._answer.reject(error)

    def _checked(
        self, items: list[tuple[Any, Any]], *, locks: bool
    ) -> list[tuple[str, FieldValue | None]]:
        checked: list[tuple[str, FieldValue | None]] = []
        for key, value in items:
            field = self._fields.get(key) if isinstance(key, str) else None
            if field is None:
                raise FormError(
                    "FIELD",
                    f"the form has no field named {str(key)[:128]!r}",
                    {"field": key, "reason": "is not a field of this form"},
                )
            fresh = None if value is None else copy_value(value)
            if value is not None:
                reason = "expects a JSON value" if fresh is None else control_fault(field, fresh)
                if reason is not None:
                    raise FormError(
                        "CONTROL",
                        f"field {key!r} {reason}",
                        {"field": key, "control": field["control"], "reason": reason},
                    )
            if locks and field.get("locked") and fresh != self._values.get(key):
                raise FormError(
                    "FIELD", f"field {key!r} is locked", {"field": key, "reason": "is locked"}
                )
            checked.append((key, fresh))
        return checked

    def _declared(self, name: str) -> str:
        if not isinstance(name, str) or name not in self._fields:
            raise FormError(
                "FIELD", f"the form has no field named {str(name)[:128]!r}", {"field": name}
            )
        return name

    def _editing(self) -> None:
        if self._status == "settled":
            raise FormError("SETTLED", "the form is already answered")
        if self._status == "abandoned":
            raise FormError("ABANDONED", "the form was abandoned")

    def _refresh(self) -> None:
        errors: list[FieldError] = []
        values = _copy(self._values)
        for name, field in self._fields.items():
            if name in self._disabled:
                continue
            errors.extend(evaluate_field(field, values.get(name), values, self._messages))
            if name in self._invalid:
                errors.append({"field": name, "message": self._invalid[name]})
        self._errors = tuple(errors)

    def __repr__(self) -> str:
        return f"<Form {self._schema.get('name', '')!r} {self._status}, {len(self._fields)} fields>"
