"""A person answers a form in the page while the prompt tool waits for them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.form import create_form
from orkestrel.terminal import create_terminal_manager
from orkestrel.toolbox import create_prompt_tool, create_terminal_app
from support.polling import until
from support.servers import serving

pytestmark = pytest.mark.anyio

SCHEMA: Any = {
    "label": "Deploy settings",
    "help": "Where and how wide to deploy.",
    "fields": [
        {"control": "text", "name": "owner", "label": "Owner", "rule": {"required": True}},
        {
            "control": "number",
            "name": "replicas",
            "label": "Replicas",
            "default": 2,
            "rule": {"minimum": 1, "maximum": 9, "integer": True},
        },
        {
            "control": "select",
            "name": "region",
            "label": "Region",
            "rule": {"required": True},
            "choices": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "America"}],
        },
    ],
}

EVERY_CONTROL: Any = {
    "label": "Every control",
    "groups": [{"name": "when", "label": "When"}],
    "fields": [
        {"control": "text", "name": "text", "label": "Text", "placeholder": "type"},
        {"control": "editor", "name": "editor", "label": "Editor"},
        {"control": "password", "name": "password", "label": "Password"},
        {"control": "number", "name": "number", "label": "Number"},
        {"control": "date", "name": "date", "label": "Date", "group": "when"},
        {"control": "time", "name": "time", "label": "Time", "group": "when"},
        {"control": "datetime", "name": "datetime", "label": "Datetime", "group": "when"},
        {"control": "color", "name": "color", "label": "Color", "default": "#336699"},
        {"control": "confirm", "name": "confirm", "label": "Confirm"},
        {
            "control": "select",
            "name": "select",
            "label": "Select",
            "choices": [{"value": "a", "label": "A"}],
        },
        {
            "control": "checkbox",
            "name": "checkbox",
            "label": "Checkbox",
            "choices": [{"value": "x", "label": "X"}, {"value": "y", "label": "Y"}],
        },
        {"control": "file", "name": "file", "label": "File", "multiple": True},
        {"control": "text", "name": "secret", "hidden": True, "default": "kept"},
        {"control": "text", "name": "fixed", "label": "Fixed", "locked": True, "default": "v1"},
    ],
}


async def test_a_person_fixes_a_rejected_field_and_the_ask_resolves(
    chromium: str, artifacts: Path
) -> None:
    from playwright.async_api import async_playwright

    manager = create_terminal_manager()
    manager.add("user")
    tool = create_prompt_tool(manager=manager, from_="model")
    app = create_terminal_app(manager, token="secret", page=True)
    result: dict[str, Any] = {}

    async def ask() -> None:
        result.update(await tool.execute({"to": "user", "schema": SCHEMA}))

    async with (
        serving(app) as url,
        async_playwright() as playwright,
        anyio.create_task_group() as group,
    ):
        browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{url}/terminals/user/#token=secret")
            await page.wait_for_selector("text=Connected")
            group.start_soon(ask)
            form = page.locator("article[data-form]")
            await form.wait_for()
            assert await form.locator("h2").inner_text() == "Deploy settings"
            assert await page.locator("#empty").is_hidden()
            await form.get_by_label("Owner", exact=True).fill("Ada")
            await form.get_by_label("Replicas", exact=True).fill("42")
            await form.get_by_label("Region", exact=True).select_option("eu")
            await form.get_by_role("button", name="Answer").click()
            error = form.locator('[data-field="replicas"] .error')
            await error.wait_for(state="visible")
            assert "9" in await error.inner_text()
            assert (
                await form.get_by_label("Replicas", exact=True).get_attribute("aria-invalid")
                == "true"
            )
            assert manager.pending("user")
            await page.screenshot(
                path=str(artifacts / "terminal-page-rejected.png"), full_page=True
            )
            await form.get_by_label("Replicas", exact=True).fill("3")
            await form.get_by_role("button", name="Answer").click()
            await page.wait_for_selector("text=Answered.")
            await page.screenshot(
                path=str(artifacts / "terminal-page-answered.png"), full_page=True
            )
            await until(lambda: result)
        finally:
            await browser.close()
    assert result == {"owner": "Ada", "replicas": 3, "region": "eu"}
    assert (artifacts / "terminal-page-rejected.png").stat().st_size > 0


async def test_every_control_renders_and_answers(chromium: str, artifacts: Path) -> None:
    from playwright.async_api import async_playwright

    manager = create_terminal_manager()
    manager.add("user")
    answer = manager.ask("model", "user", create_form(EVERY_CONTROL))
    async with (
        serving(create_terminal_app(manager, page=True)) as url,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{url}/terminals/user/")
            form = page.locator("article[data-form]")
            await form.wait_for()
            kinds = {
                "text": "text",
                "password": "password",
                "number": "number",
                "date": "date",
                "time": "time",
                "datetime": "datetime-local",
                "color": "color",
                "confirm": "checkbox",
                "file": "file",
            }
            for name, kind in kinds.items():
                assert (
                    await form.locator(f'[data-field="{name}"] input').first.get_attribute("type")
                    == kind
                ), name
            assert await form.locator('[data-field="editor"] textarea').count() == 1
            assert await form.locator('[data-field="select"] select option').count() == 2
            assert await form.locator('[data-field="checkbox"] input[type=checkbox]').count() == 2
            assert await form.locator('fieldset[data-group="when"] [data-field]').count() == 3
            assert await form.locator('[data-field="secret"]').is_hidden()
            assert await form.locator('[data-field="fixed"] input').get_attribute("readonly") == ""
            await form.get_by_label("Text", exact=True).fill("hello")
            await form.get_by_label("Editor", exact=True).fill("two\nlines")
            await form.get_by_label("Password", exact=True).fill("s3cret")
            await form.get_by_label("Number", exact=True).fill("2.5")
            await form.get_by_label("Date", exact=True).fill("2024-02-29")
            await form.get_by_label("Time", exact=True).fill("08:30:15")
            await form.get_by_label("Datetime", exact=True).fill("2024-02-29T08:30")
            await form.get_by_label("Confirm", exact=True).check()
            await form.get_by_label("Select", exact=True).select_option("a")
            await form.get_by_label("Y", exact=True).check()
            await form.locator('[data-field="file"] input').set_input_files(
                [
                    {"name": "a.txt", "mimeType": "text/plain", "buffer": b"a"},
                    {"name": "b.txt", "mimeType": "text/plain", "buffer": b"b"},
                ]
            )
            await form.get_by_role("button", name="Answer").click()
            await page.wait_for_selector("text=Answered.")
            await page.screenshot(
                path=str(artifacts / "terminal-page-every-control.png"), full_page=True
            )
        finally:
            await browser.close()
    assert await answer == {
        "text": "hello",
        "editor": "two\nlines",
        "password": "s3cret",
        "number": 2.5,
        "date": "2024-02-29",
        "time": "08:30:15",
        "datetime": "2024-02-29T08:30",
        "color": "#336699",
        "confirm": True,
        "select": "a",
        "checkbox": ["y"],
        "file": ["a.txt", "b.txt"],
        "secret": "kept",
        "fixed": "v1",
    }


async def test_the_page_lists_live_dedupes_and_drops_expired_forms(chromium: str) -> None:
    from playwright.async_api import async_playwright

    manager = create_terminal_manager()
    manager.add("user")
    async with (
        serving(create_terminal_app(manager, page=True, token="t")) as url,
        async_playwright() as playwright,
    ):
        browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{url}/terminals/user/")
            await page.wait_for_selector("#token:not([hidden])")
            await page.fill("#token-value", "t")
            await page.click("#token button")
            await page.wait_for_selector("text=Connected")
            manager.ask("model", "user", create_form({"label": "First", "fields": []}))
            manager.ask("model", "user", create_form({"label": "Second", "fields": []}))
            await page.wait_for_function("document.querySelectorAll('article').length === 2")
            await page.reload()
            await page.wait_for_function("document.querySelectorAll('article').length === 2")
            [first, _] = manager.pending("user")
            manager.terminal("user").stop(first["id"])  # type: ignore[union-attr]
            await page.wait_for_function("document.querySelectorAll('article').length === 1")
            assert await page.locator("article h2").inner_text() == "Second"
            manager.destroy()
            await page.wait_for_selector("text=The terminal has shut down.")
        finally:
            await browser.close()


async def test_a_reconnect_replays_the_forms_and_the_page_shows_each_once(chromium: str) -> None:
    from playwright.async_api import async_playwright

    from support.timers import FakeTimer

    manager = create_terminal_manager()
    manager.add("user")
    timer = FakeTimer()
    allowed = {"now": True}
    app = create_terminal_app(
        manager, page=True, timer=timer, token=lambda value: allowed["now"] and value == "t"
    )
    manager.ask("model", "user", create_form({"label": "Only once", "fields": []}))
    async with serving(app) as url, async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(f"{url}/terminals/user/#token=t")
            await page.wait_for_function("document.querySelectorAll('article').length === 1")
            await until(lambda: timer.live)
            allowed["now"] = False
            timer.fire()  # the stream ends: the token no longer passes
            await until(lambda: not timer.live)
            allowed["now"] = True
            await until(lambda: timer.live, 30)  # the page reconnected, and the replay came again
            manager.ask("model", "user", create_form({"label": "After", "fields": []}))
            await page.wait_for_function("document.querySelectorAll('article').length >= 2")
            await anyio.sleep(0.5)
            titles = await page.locator("article h2").all_inner_texts()
            assert titles == ["Only once", "After"]
        finally:
            await browser.close()
