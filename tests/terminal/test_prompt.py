"""The broker: parking, answering, expiry through an injected timer, withdrawal, the cap."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from orkestrel.form import FormError, create_form
from orkestrel.terminal import (
    DEFAULT_PROMPT_TIMEOUT_MS,
    Prompt,
    TerminalError,
    create_prompt,
    is_terminal_error,
    json_text,
)
from support.timers import FakeTimer

pytestmark = pytest.mark.anyio

SCHEMA: Any = {
    "label": "Review",
    "fields": [
        {"control": "confirm", "name": "approved", "rule": {"required": True}},
        {"control": "text", "name": "notes", "rule": {"minimum": 2}},
    ],
}


def events(prompt: Prompt) -> list[tuple[Any, ...]]:
    seen: list[tuple[Any, ...]] = []
    for name in ("pending", "answer", "expire"):
        prompt.emitter.on(name, lambda *args, name=name: seen.append((name, *args)))
    return seen


async def test_park_answer_and_settle() -> None:
    timer = FakeTimer()
    prompt = create_prompt(timer=timer, timeout=1000)
    seen = events(prompt)
    form = create_form(SCHEMA)
    id = prompt.park(form, source="agent", to="reviewer")
    record = prompt.pending(id)
    assert record is not None
    assert record["schema"] == SCHEMA
    assert (record["status"], record["from"], record["to"]) == ("pending", "agent", "reviewer")
    assert isinstance(record["time"], int)
    assert [entry.ms for entry in timer.live] == [1000]
    assert prompt.pending() == [record]
    result = prompt.answer(id, {"approved": True, "notes": "ok"})
    assert result == {"success": True, "value": {"approved": True, "notes": "ok"}}
    assert await form.answer == {"approved": True, "notes": "ok"}
    assert timer.live == []
    assert prompt.pending() == []
    assert [entry[0] for entry in seen] == ["pending", "answer"]
    assert seen[1] == ("answer", id, {"approved": True, "notes": "ok"})


def test_a_rejected_answer_keeps_the_form_parked_with_the_fills_that_fit() -> None:
    prompt = create_prompt(timer=FakeTimer())
    form = create_form(SCHEMA)
    id = prompt.park(form)
    result = prompt.answer(id, {"approved": "yes", "notes": "fine"})
    assert result["success"] is False
    assert result["error"] == {
        "reason": "rejected",
        "errors": [{"field": "approved", "message": "The answer expects true or false"}],
    }
    assert form.values == {"notes": "fine"}
    again = prompt.answer(id, {"notes": "x"})
    assert again["success"] is False
    assert again["error"]["reason"] == "rejected"
    assert [(e["field"], e.get("rule")) for e in again["error"]["errors"]] == [  # type: ignore[typeddict-item]
        ("approved", "required"),
        ("notes", "minimum"),
    ]
    assert prompt.pending(id) is not None
    unknown = prompt.answer(id, {"ghost": 1})
    assert unknown["error"]["errors"][0]["field"] == "ghost"  # type: ignore[typeddict-item]
    assert prompt.answer(id, {"approved": True, "notes": "ok"})["success"] is True


def test_unknown_and_settled_ids_are_unknown() -> None:
    prompt = create_prompt(timer=FakeTimer())
    assert prompt.answer("nope", {}) == {"success": False, "error": {"reason": "unknown"}}
    id = prompt.park(create_form({"fields": []}))
    assert prompt.answer(id, {})["success"] is True
    assert prompt.answer(id, {}) == {"success": False, "error": {"reason": "unknown"}}
    assert prompt.answer(123, {})["success"] is False  # type: ignore[arg-type]


def test_values_that_are_not_a_record_are_rejected() -> None:
    prompt = create_prompt(timer=FakeTimer())
    id = prompt.park(create_form(SCHEMA))
    for values in [None, [], {"approved": None}, {"approved": float("nan")}]:
        result = prompt.answer(id, values)
        assert result["success"] is False
        assert result["error"]["reason"] == "rejected"


def test_a_raising_custom_rule_is_contained_as_a_rejection() -> None:
    def explode(value: Any, values: Any) -> bool:
        if value == "boom":
            raise RuntimeError("boom")
        return True

    prompt = create_prompt(timer=FakeTimer())
    id = prompt.park(
        create_form({"fields": [{"control": "text", "name": "a", "rule": {"custom": explode}}]})
    )
    result = prompt.answer(id, {"a": "boom"})
    assert result["success"] is False
    assert result["error"] == {
        "reason": "rejected",
        "errors": [{"field": "", "message": "the answer could not be checked"}],
    }
    assert prompt.pending(id) is not None


async def test_expiry_through_the_timer_abandons_the_form() -> None:
    timer = FakeTimer()
    prompt = create_prompt(timer=timer, timeout=10)
    seen = events(prompt)
    form = create_form(SCHEMA)
    id = prompt.park(form)
    timer.fire()
    with pytest.raises(FormError) as caught:
        await form.answer
    assert caught.value.code == "ABANDONED"
    assert prompt.pending() == []
    assert seen[-1] == ("expire", id)
    assert prompt.answer(id, {"approved": True}) == {
        "success": False,
        "error": {"reason": "unknown"},
    }


async def test_the_default_timer_expires_on_the_running_loop() -> None:
    prompt = create_prompt(timeout=1)
    form = create_form(SCHEMA)
    prompt.park(form)
    with pytest.raises(FormError):
        with anyio.fail_after(10):
            await form.answer
    assert prompt.count == 0


async def test_stop_decline_and_destroy() -> None:
    timer = FakeTimer()
    prompt = create_prompt(timer=timer)
    forms = [create_form(SCHEMA) for _ in range(4)]
    ids = [prompt.park(form) for form in forms]
    assert prompt.stop(ids[0]) == 1
    assert prompt.stop(ids[0]) == 0
    assert prompt.decline(ids[1]) is True
    assert prompt.decline(ids[1]) is False
    with pytest.raises(TerminalError) as declined:
        await forms[1].answer
    assert declined.value.code == "CANCEL"
    assert prompt.stop([ids[2], "ghost"], reason=LookupError("x")) == 1
    with pytest.raises(LookupError):
        await forms[2].answer
    prompt.destroy()
    assert prompt.destroyed
    assert prompt.count == 0
    assert timer.live == []
    late = create_form(SCHEMA)
    with pytest.raises(TerminalError) as caught:
        prompt.park(late)
    assert caught.value.code == "EXPIRE"
    assert late.status == "abandoned"


def test_the_cap_refuses_and_destroys_the_extra_form() -> None:
    prompt = create_prompt(timer=FakeTimer(), cap=1)
    prompt.park(create_form(SCHEMA))
    extra = create_form(SCHEMA)
    with pytest.raises(TerminalError) as caught:
        prompt.park(extra)
    assert (caught.value.code, caught.value.context) == ("LIMIT", {"cap": 1})
    assert is_terminal_error(caught.value)
    assert extra.status == "abandoned"
    assert create_prompt(timer=FakeTimer(), cap=0).count == 0


def test_a_form_past_max_bytes_is_refused_and_destroyed_naming_the_limit() -> None:
    size = len(json_text(SCHEMA).encode())
    prompt = create_prompt(timer=FakeTimer(), max_bytes=size - 1)
    big = create_form(SCHEMA)
    with pytest.raises(TerminalError) as caught:
        prompt.park(big)
    assert caught.value.code == "LIMIT"
    assert caught.value.message == (
        f"the form's schema is {size} bytes of JSON, over the terminal's limit of {size - 1} "
        "(max_bytes)"
    )
    assert caught.value.context == {"max_bytes": size - 1, "bytes": size}
    assert big.status == "abandoned"
    assert prompt.count == 0
    assert create_prompt(timer=FakeTimer(), max_bytes=size).park(create_form(SCHEMA))


def test_find_gives_the_id_of_the_very_form_object() -> None:
    prompt = create_prompt(timer=FakeTimer())
    form, twin = create_form(SCHEMA), create_form(SCHEMA)
    id = prompt.park(form)
    assert prompt.find(form) == id
    assert prompt.find(twin) is None


def test_the_listing_is_a_copy() -> None:
    prompt = create_prompt(timer=FakeTimer())
    id = prompt.park(create_form(SCHEMA))
    record = prompt.pending(id)
    assert record is not None
    record["schema"]["fields"].clear()
    assert prompt.pending(id)["schema"] == SCHEMA  # type: ignore[index]


@pytest.mark.parametrize(
    "options",
    [
        {"timeout": 0},
        {"timeout": True},
        {"timeout": 2**31},
        {"timeout": 1.5},
        {"cap": -1},
        {"cap": True},
        {"max_bytes": -1},
        {"max_bytes": 1.5},
        {"timer": 5},
    ],
)
def test_options_are_checked(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must be"):
        create_prompt(**options)


def test_defaults() -> None:
    assert create_prompt().timeout == DEFAULT_PROMPT_TIMEOUT_MS == 300_000
