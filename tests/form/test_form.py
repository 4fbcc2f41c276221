"""The live form: fills, errors, the visibility switches, and an answer that settles once."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from orkestrel.form import Deferred, Form, FormError, create_form

pytestmark = pytest.mark.anyio

SCHEMA: Any = {
    "label": "Sign up",
    "fields": [
        {"control": "text", "name": "email", "rule": {"required": True, "email": True}},
        {"control": "number", "name": "age", "default": 30, "rule": {"minimum": 18}},
        {"control": "confirm", "name": "terms", "rule": {"required": True}},
        {"control": "text", "name": "plan", "default": "free", "locked": True},
        {"control": "text", "name": "note", "disabled": True, "rule": {"required": True}},
    ],
}


def test_the_form_owns_a_copy_of_its_schema() -> None:
    schema: Any = {"fields": [{"control": "text", "name": "a", "label": "A"}]}
    form = create_form(schema)
    schema["fields"][0]["label"] = "changed"
    schema["fields"].append({"control": "text", "name": "b"})
    assert form.schema == {"fields": [{"control": "text", "name": "a", "label": "A"}]}
    copy = form.schema
    copy["fields"].clear()
    assert form.field("a") is not None
    assert isinstance(form, Form)


def test_defaults_then_seeds_then_errors() -> None:
    form = create_form(SCHEMA, values={"terms": False})
    assert form.values == {"age": 30, "plan": "free", "terms": False}
    assert form.status == "editing"
    assert [error["field"] for error in form.errors] == ["email"]
    assert not form.valid
    assert form.disabled == {"note"}
    assert form.touched == set()


def test_values_is_a_fresh_dict() -> None:
    form = create_form(
        {
            "fields": [
                {"control": "checkbox", "name": "c", "choices": [{"value": "a", "label": "A"}]}
            ]
        }
    )
    form.fill("c", ["a"])
    values = form.values
    values["c"].append("z")  # type: ignore[union-attr]
    assert form.values == {"c": ["a"]}


def test_fill_clears_with_none_and_drops_an_invalidation() -> None:
    form = create_form(SCHEMA)
    form.fill({"email": "ada@example.com", "terms": True})
    assert form.valid
    form.invalidate("email", "already taken")
    assert form.errors == ({"field": "email", "message": "already taken"},)
    form.fill("email", "ada@example.com")
    assert form.valid
    form.fill("email", None)
    assert "email" not in form.values
    assert form.errors[0] == {
        "field": "email",
        "message": "An answer is needed here",
        "rule": "required",
    }
    with pytest.raises(TypeError):
        form.fill("email")


def test_a_locked_field_keeps_its_value() -> None:
    form = create_form(SCHEMA)
    form.fill("plan", "free")
    with pytest.raises(FormError) as caught:
        form.fill({"email": "a@b.co", "plan": "pro"})
    assert caught.value.code == "FIELD"
    assert form.values["plan"] == "free"
    assert "email" not in form.values
    assert create_form(SCHEMA, values={"plan": "pro"}).values["plan"] == "pro"


def test_disable_and_enable_take_a_field_out_of_evaluation_and_submission() -> None:
    form = create_form(SCHEMA)
    form.fill({"email": "a@b.co", "terms": True, "note": "hidden from submit"})
    form.enable("note")
    form.fill("note", None)
    assert [error["field"] for error in form.errors] == ["note"]
    form.disable("note")
    form.fill("note", "kept but not submitted")
    result = form.submit()
    assert result == {
        "success": True,
        "value": {"email": "a@b.co", "age": 30, "terms": True, "plan": "free"},
    }


def test_a_failed_submit_touches_every_enabled_field_and_stays_editing() -> None:
    form = create_form(SCHEMA)
    result = form.submit()
    assert result["success"] is False
    assert [error["field"] for error in result["error"]] == ["email", "terms"]
    assert form.touched == {"email", "age", "terms", "plan"}
    assert form.status == "editing"
    assert not form.answer.done()


def test_clear_returns_to_the_opening_answers() -> None:
    form = create_form(SCHEMA, values={"age": 40})
    form.fill({"email": "a@b.co", "age": 50})
    form.touch("email")
    form.invalidate("age", "no")
    form.clear()
    assert form.values == {"age": 40, "plan": "free"}
    assert form.touched == set()
    assert all(error.get("rule") for error in form.errors)


async def test_answer_settles_once_for_every_awaiter() -> None:
    form = create_form(SCHEMA)
    seen: list[Any] = []

    async def wait() -> None:
        seen.append(await form.answer)

    async with anyio.create_task_group() as group:
        group.start_soon(wait)
        group.start_soon(wait)
        await anyio.lowlevel.checkpoint()
        form.fill({"email": "a@b.co", "terms": True})
        assert form.submit()["success"] is True
    assert seen == [{"email": "a@b.co", "age": 30, "terms": True, "plan": "free"}] * 2
    assert await form.answer == seen[0]
    assert await form.answer.wait() == seen[0]
    assert form.answer.done()
    assert form.status == "settled"
    for write in (
        lambda: form.fill("age", 20),
        form.submit,
        form.clear,
        lambda: form.touch("age"),
        lambda: form.invalidate("age", "x"),
        lambda: form.disable("age"),
    ):
        with pytest.raises(FormError) as caught:
            write()
        assert caught.value.code == "SETTLED"
    form.destroy()
    assert form.status == "settled"


async def test_destroy_abandons_an_editing_form() -> None:
    form = create_form(SCHEMA)

    async def wait() -> str:
        try:
            await form.answer
        except FormError as error:
            return error.code
        return "settled"

    async with anyio.create_task_group() as group:
        codes: list[str] = []

        async def record() -> None:
            codes.append(await wait())

        group.start_soon(record)
        group.start_soon(record)
        await anyio.lowlevel.checkpoint()
        form.destroy()
        form.destroy()
    assert codes == ["ABANDONED", "ABANDONED"]
    assert form.status == "abandoned"
    assert form.answer.failed()
    with pytest.raises(FormError) as caught:
        form.fill("age", 1)
    assert caught.value.code == "ABANDONED"


async def test_destroy_with_a_reason_fails_the_answer_with_it() -> None:
    form = create_form(SCHEMA)
    form.destroy(LookupError("gone"))
    with pytest.raises(LookupError):
        await form.answer


async def test_a_deferred_settled_from_another_thread_wakes_its_awaiter() -> None:
    deferred: Deferred[int] = Deferred()

    def settle() -> None:
        deferred.resolve(7)
        deferred.resolve(8)
        deferred.reject(RuntimeError("late"))

    async with anyio.create_task_group() as group:
        waiting: list[int] = []

        async def wait() -> None:
            waiting.append(await deferred)

        group.start_soon(wait)
        await anyio.lowlevel.checkpoint()
        thread = threading.Thread(target=settle)
        thread.start()
        await anyio.to_thread.run_sync(thread.join)
    assert waiting == [7]
    assert deferred.result() == 7


def test_a_deferred_read_before_it_settles_says_so() -> None:
    deferred: Deferred[int] = Deferred()
    with pytest.raises(RuntimeError):
        deferred.result()
    assert repr(deferred) == "<Deferred pending>"


async def test_a_custom_validator_sees_every_value_and_its_message_is_kept() -> None:
    def matches(value: Any, values: Any) -> bool | str:
        return value == values.get("password") or "The passwords differ"

    schema: Any = {
        "fields": [
            {"control": "password", "name": "password"},
            {"control": "password", "name": "again", "rule": {"custom": matches}},
        ]
    }
    form = create_form(schema)
    form.fill({"password": "a", "again": "b"})
    assert form.errors == ({"field": "again", "message": "The passwords differ"},)
    form.fill("again", "a")
    assert form.submit() == {"success": True, "value": {"password": "a", "again": "a"}}
