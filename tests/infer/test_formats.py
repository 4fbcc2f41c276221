"""Format detection: `string_to_format`, `samples_to_format`, `is_valid_iso_instant` and the
`FORMAT_PATTERNS` regular expressions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from orkestrel.contract import (
    FORMAT_MAX_LENGTH,
    FORMAT_PATTERNS,
    INFER_ENUM_LIMIT,
    is_valid_iso_instant,
    samples_to_format,
    string_to_format,
)

EXAMPLES = {
    "550e8400-e29b-41d4-a716-446655440000": "uuid",
    "9B2E8F14-3C7A-4D21-9F6E-2A1B8C4D5E6F": "uuid",
    "2024-01-15T10:30:00Z": "date-time",
    "2024-02-29T23:59:59.123+02:00": "date-time",
    "1999-12-31T00:00:00-05:00": "date-time",
    "2000-02-29": "date",
    "0000-02-29": "date",
    "10:30:00Z": "time",
    "10:30:00.5+23:59": "time",
    "ada@example.com": "email",
    "mailto:x@y.z": "email",
    "http://": "uri",
    "ftp://x": "uri",
    "HTTPS://example.com/a?b=1": "uri",
}
NOT_FORMATS = [
    "",
    "10:30:00",
    "2020-13-45",
    "2024-02-30",
    "1900-02-29",
    "2024-01-15t10:30:00z",
    "2024-01-01T24:00:00Z",
    "2024-01-01T00:00:60Z",
    "2024-01-01T00:00:00.Z",
    "2024-01-01T00:00:00+24:00",
    "2024-01-01T00:00:00+23:99",
    "a b@c.d",
    "bad@",
    "a@b",
    "urn:isbn:1",
    "1e3",
    "\u0660\u0661\u0662\u0663-\u0660\u0661-\u0660\u0661",
    "a@b.c\n",
    "\ufeffa@b.c",
]


def test_examples() -> None:
    for text, expected in EXAMPLES.items():
        assert string_to_format(text) == expected, text
    for text in NOT_FORMATS:
        assert string_to_format(text) is None, text
    for value in (1, None, b"ada@example.com", ["a@b.co"]):
        assert string_to_format(value) is None


def test_length_limit_counts_utf16_units() -> None:
    local = "a" * (FORMAT_MAX_LENGTH - len("@b.co"))
    assert string_to_format(local + "@b.co") == "email"
    assert string_to_format("a" + local + "@b.co") is None
    astral = "😀" * ((FORMAT_MAX_LENGTH - 5) // 2) + "@b.co"
    assert string_to_format(astral) == "email"
    assert string_to_format("😀" + astral) is None
    assert INFER_ENUM_LIMIT == 12


def test_samples_to_format_needs_unanimity() -> None:
    assert samples_to_format(["2024-01-01", "2024-02-02"]) == "date"
    assert samples_to_format(["2024-01-01", "2024-01-01T00:00:00Z"]) is None
    assert samples_to_format(["2024-01-01", "nope"]) is None
    assert samples_to_format(["2024-01-01", 5]) is None
    assert samples_to_format([]) is None


def test_iso_instants() -> None:
    for text in ("2020-01-01", "2400-02-29", "2024-01-01T00:00:00", "2024-01-01T23:59:59.999Z"):
        assert is_valid_iso_instant(text), text
    for text in ("2020-13-45", "1900-02-29", "2024-01-01T24:00:00Z", "March 7", ""):
        assert not is_valid_iso_instant(text), text


@given(st.text(max_size=60) | st.from_regex(r"[a-z]{1,5}@[a-z]{1,5}\.[a-z]{1,3}", fullmatch=True))
def test_the_regular_expressions_agree_with_the_detector(text: str) -> None:
    detected = string_to_format(text)
    dated = detected in ("date-time", "date", "time")
    if FORMAT_PATTERNS["uuid"].match(text):
        assert detected == "uuid"
    elif not dated:
        email = FORMAT_PATTERNS["email"].match(text) is not None
        uri = FORMAT_PATTERNS["uri"].match(text) is not None
        expected = "email" if email else "uri" if uri else None
        assert detected == expected, text


@given(
    st.builds(
        "{:04}-{:02}-{:02}".format,
        st.integers(0, 9999),
        st.integers(0, 13),
        st.integers(0, 32),
    )
)
def test_dates_follow_the_gregorian_calendar(text: str) -> None:
    year, month, day = map(int, text.split("-"))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    valid = 1 <= month <= 12 and 1 <= day <= days[month - 1]
    assert (string_to_format(text) == "date") == valid
    assert is_valid_iso_instant(text) == valid
