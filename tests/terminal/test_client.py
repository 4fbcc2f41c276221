"""`PromptClient` against the terminal routes over real HTTP: dedupe across a reconnect, and a
rejected answer re-asked with the failed fields marked."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from orkestrel.form import FormInterface, create_form
from orkestrel.terminal import create_prompt_client, create_terminal_manager
from orkestrel.toolbox import create_prompt_tool, create_terminal_app
from support.polling import until
from support.servers import serving
from support.timers import FakeTimer

pytestmark = pytest.mark.anyio

SCHEMA: Any = {
    "fields": [
        {"control": "text", "name": "code", "rule": {"required": True, "pattern": "[A-Z]{3}"}},
        {"control": "number", "name": "count", "rule": {"minimum": 1}},
    ]
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Script:
    """A `TerminalInterface` that answers from a list of value records, one per ask."""

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.gate = anyio.Event()

    async def ask(self, form: FormInterface) -> None:
        self.asked.append((form.errors, form.values))
        await self.gate.wait()
        form.fill(self.answers.pop(0))
        form.submit()


async def test_a_rejected_answer_comes_back_and_the_corrected_one_settles_the_ask() -> None:
    manager = create_terminal_manager()
    manager.add("user")
    tool = create_prompt_tool(manager=manager, from_="model")
    script = Script({"code": "abc", "count": 2}, {"code": "ABC", "count": 2})
    script.gate.set()
    result: dict[str, Any] = {}
    async with serving(create_terminal_app(manager, token="t")) as url:
        client = create_prompt_client(url=f"{url}/terminals/user", terminal=script, token="t")
        answered: list[str] = []
        client.emitter.on("answer", lambda id, values: answered.append(id))

        async def ask() -> None:
            result.update(await tool.execute({"to": "user", "schema": SCHEMA}))
            await until(lambda: answered)
            client.close()

        async with anyio.create_task_group() as group:
            group.start_soon(client.run)
            group.start_soon(ask)
    assert result == {"code": "ABC", "count": 2}
    assert len(script.asked) == 2
    first_errors, _ = script.asked[0]
    second_errors, second_values = script.asked[1]
    assert [(error["field"], error.get("rule")) for error in first_errors] == [("code", "required")]
    assert second_values == {"code": "abc", "count": 2}
    assert [(error["field"], "rule" in error) for error in second_errors] == [("code", False)]
    assert len(answered) == 1


async def test_a_reconnect_replays_but_each_form_is_asked_once() -> None:
    manager = create_terminal_manager()
    manager.add("user")
    timer = FakeTimer()
    allowed = {"ok": True}
    app = create_terminal_app(
        manager, token=lambda value: allowed["ok"] and value == "t", timer=timer
    )
    script = Script({"code": "XYZ"})
    answer = manager.ask("model", "user", create_form(SCHEMA))
    async with serving(app) as url:
        client = create_prompt_client(
            url=f"{url}/terminals/user", terminal=script, token="t", delay=20
        )
        errors: list[Any] = []
        client.emitter.on("error", errors.append)
        async with anyio.create_task_group() as group:
            group.start_soon(client.run)
            await until(lambda: len(script.asked) == 1 and timer.live)
            allowed["ok"] = False
            timer.fire()
            await until(lambda: not timer.live)
            allowed["ok"] = True
            await until(lambda: timer.live)
            script.gate.set()
            assert await answer == {"code": "XYZ"}
            client.close()
    assert len(script.asked) == 1
    assert len(timer.armed) == 2


async def test_an_expired_form_is_dropped_and_a_shutdown_ends_the_client() -> None:
    manager = create_terminal_manager()
    manager.add("user")
    script = Script()

    manager.ask("model", "user", create_form(SCHEMA))
    async with serving(create_terminal_app(manager)) as url:
        client = create_prompt_client(url=f"{url}/terminals/user", terminal=script)
        expired: list[str] = []
        client.emitter.on("expire", expired.append)
        with anyio.fail_after(20):
            async with anyio.create_task_group() as group:
                group.start_soon(client.run)
                await until(lambda: script.asked)
                [record] = manager.pending("user")
                manager.terminal("user").stop(record["id"])  # type: ignore[union-attr]
                await until(lambda: expired)
                manager.destroy()
    assert expired == [record["id"]]
