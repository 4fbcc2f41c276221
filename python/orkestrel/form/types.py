"""The form document: fields, rules, values and results, as JSON-shaped records."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypeAlias, TypedDict

if TYPE_CHECKING:
    from orkestrel.form.deferred import Deferred

FieldControl = Literal[
    "text",
    "editor",
    "password",
    "number",
    "date",
    "time",
    "datetime",
    "color",
    "confirm",
    "select",
    "checkbox",
    "file",
]
"""Represents the control a field presents, which fixes the value it holds and its own keys."""

FieldValue: TypeAlias = str | int | float | bool | list[str]
"""Represents one answer: a string, a finite number, a `bool` (of a `confirm` field only) or a
list of strings (of a `checkbox` or `file` field)."""

FormValues: TypeAlias = dict[str, FieldValue]
"""Represents a form's answers keyed by field name; a missing key is a field not answered."""

FormStatus = Literal["editing", "settled", "abandoned"]
"""Represents where a form is in its life: open, answered once, or torn down unanswered."""

FieldRuleName = Literal[
    "required", "minimum", "maximum", "step", "pattern", "email", "url", "integer", "alphanumeric"
]
"""Represents the name of a rule that reports its failure by name (every rule but `custom`)."""

FieldValidator: TypeAlias = Callable[[FieldValue | None, FormValues], bool | str]
"""Represents an in-process check of one answer against the whole form: `True` passes, a
string is the failure message."""


class FieldChoice(TypedDict):
    """Represents one option of a `select` or `checkbox` field: the stored `value`, the `label`
    a person reads, and whether it is offered but refused (`disabled`)."""

    value: str
    label: str
    help: NotRequired[str]
    disabled: NotRequired[bool]


class FieldRule(TypedDict, total=False):
    """Represents the constraints one answer must meet; `custom` runs last and never travels."""

    required: bool
    minimum: float | str
    maximum: float | str
    step: float
    pattern: str
    email: bool
    url: bool
    integer: bool
    alphanumeric: bool
    custom: FieldValidator


class FieldError(TypedDict):
    """Represents one failed check of one field: the field, the message, and the named `rule`
    (absent for a `custom` failure and for an `invalidate`)."""

    field: str
    message: str
    rule: NotRequired[FieldRuleName]


class _FieldBase(TypedDict):
    name: str
    label: NotRequired[str]
    help: NotRequired[str]
    group: NotRequired[str]
    hidden: NotRequired[bool]
    disabled: NotRequired[bool]
    locked: NotRequired[bool]
    rule: NotRequired[FieldRule]
    meta: NotRequired[dict[str, Any]]


class TextField(_FieldBase):
    """Represents a one-line text field."""

    control: Literal["text"]
    default: NotRequired[str]
    placeholder: NotRequired[str]


class EditorField(_FieldBase):
    """Represents a text field over many lines."""

    control: Literal["editor"]
    default: NotRequired[str]
    placeholder: NotRequired[str]


class PasswordField(_FieldBase):
    """Represents a secret typed behind a `mask` character; it never has a default."""

    control: Literal["password"]
    mask: NotRequired[str]


class NumberField(_FieldBase):
    """Represents a finite number."""

    control: Literal["number"]
    default: NotRequired[float]
    placeholder: NotRequired[str]


class DateField(_FieldBase):
    """Represents a calendar date held as `YYYY-MM-DD`."""

    control: Literal["date"]
    default: NotRequired[str]


class TimeField(_FieldBase):
    """Represents a time of day held as `HH:MM` or `HH:MM:SS`."""

    control: Literal["time"]
    default: NotRequired[str]


class DatetimeField(_FieldBase):
    """Represents a local date and time with no zone, held as `YYYY-MM-DDTHH:MM[:SS]`."""

    control: Literal["datetime"]
    default: NotRequired[str]


class ColorField(_FieldBase):
    """Represents a color held as `#rrggbb`."""

    control: Literal["color"]
    default: NotRequired[str]


class ConfirmField(_FieldBase):
    """Represents one yes-or-no box, holding a `bool`."""

    control: Literal["confirm"]
    default: NotRequired[bool]


class SelectField(_FieldBase):
    """Represents one choice out of a list; `open` also admits values the list does not offer."""

    control: Literal["select"]
    choices: list[FieldChoice]
    default: NotRequired[str]
    open: NotRequired[bool]


class CheckboxField(_FieldBase):
    """Represents any number of choices out of a list, holding the checked values."""

    control: Literal["checkbox"]
    choices: list[FieldChoice]
    default: NotRequired[list[str]]


class FileField(_FieldBase):
    """Represents one file name (several with `multiple`); `accept` lists the media types and
    extensions offered. It never has a default."""

    control: Literal["file"]
    accept: NotRequired[list[str]]
    multiple: NotRequired[bool]


FormField: TypeAlias = (
    TextField
    | EditorField
    | PasswordField
    | NumberField
    | DateField
    | TimeField
    | DatetimeField
    | ColorField
    | ConfirmField
    | SelectField
    | CheckboxField
    | FileField
)
"""Represents any field a schema declares, discriminated by `control`."""


class FormGroup(TypedDict):
    """Represents a named section of a form that fields join through their `group`."""

    name: str
    label: str
    help: NotRequired[str]


class FormSchema(TypedDict):
    """Represents everything a form asks: its fields in presentation order, optional groups,
    and the form's own name, label and help."""

    name: NotRequired[str]
    label: NotRequired[str]
    help: NotRequired[str]
    groups: NotRequired[list[FormGroup]]
    fields: list[FormField]


class FormSuccess(TypedDict):
    """Represents a submit that settled the form, carrying its values."""

    success: Literal[True]
    value: FormValues


class FormFailure(TypedDict):
    """Represents a submit that found errors, carrying every one of them."""

    success: Literal[False]
    error: list[FieldError]


FormResult: TypeAlias = FormSuccess | FormFailure
"""Represents what `submit` answers: the settled values, or every error that stopped them."""


class FormInterface(Protocol):
    """Represents a live form: a schema, the answers given against it, their errors, and an
    `answer` that settles exactly once."""

    @property
    def schema(self) -> FormSchema: ...
    @property
    def values(self) -> FormValues: ...
    @property
    def errors(self) -> tuple[FieldError, ...]: ...
    @property
    def status(self) -> FormStatus: ...
    @property
    def valid(self) -> bool: ...
    @property
    def touched(self) -> frozenset[str]: ...
    @property
    def disabled(self) -> frozenset[str]: ...
    @property
    def answer(self) -> Deferred[FormValues]: ...
    def field(self, name: str) -> FormField | None: ...
    def fill(self, name: str | Mapping[str, FieldValue | None], value: Any = ...) -> None: ...
    def touch(self, name: str) -> None: ...
    def invalidate(self, name: str, message: str) -> None: ...
    def disable(self, name: str) -> None: ...
    def enable(self, name: str) -> None: ...
    def submit(self) -> FormResult: ...
    def clear(self) -> None: ...
    def destroy(self, reason: BaseException | None = None) -> None: ...
