"""The ask form as an MCP App in a real headless Chromium: a host page renders the view's HTML
(read over `orkestrel serve --ask` by the official client that negotiated MCP Apps) in a
sandboxed iframe and bridges the view's JSON-RPC to that client; a person fills and submits
the form, and the model's ask call returns those answers. Labels carrying HTML and script are
shown as text."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio

from support.apps import APP_MARKS, APPS, MIME
from support.mcp_client import stdio, wire
from support.polling import until

pytestmark = APP_MARKS

HOSTILE = '<img src=x onerror="window.pwned=1">Deploy</h2><script>window.pwned=2</script>'
FORM: Any = {
    "label": HOSTILE,
    "fields": [
        {"control": "text", "name": "owner", "label": "Owner", "rule": {"required": True}},
        {
            "control": "select",
            "name": "region",
            "label": "Region",
            "choices": [
                {"value": "eu", "label": "<b onmouseover=window.pwned=3>Europe</b>"},
                {"value": "us", "label": "America"},
            ],
        },
    ],
}

# The host side of the MCP Apps bridge, as a chat client implements it: answer `ui/initialize`,
# send the tool's input once the view says it is initialized, and carry the view's `tools/call`
# to the MCP client (here `hostCallTool`, bound to the test's official client).
HOST = """<!doctype html>
<html><body>
<iframe id="app" sandbox="allow-scripts" style="width:40rem;height:30rem"></iframe>
<script>
const frame = document.getElementById("app");
window.seen = [];
function post(message) {
  frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
}
window.addEventListener("message", async (event) => {
  if (event.source !== frame.contentWindow) return;
  const message = event.data;
  window.seen.push(message.method || "reply");
  if (message.method === "ui/initialize") {
    post({ id: message.id, result: {
      protocolVersion: message.params.protocolVersion,
      hostInfo: { name: "test-host", version: "1" },
      hostCapabilities: { serverTools: {} },
      hostContext: {},
    } });
  } else if (message.method === "ui/notifications/initialized") {
    post({ method: "ui/notifications/tool-input", params: { arguments: window.input } });
  } else if (message.method === "tools/call") {
    try {
      const result = await window.hostCallTool(message.params.name, message.params.arguments);
      post({ id: message.id, result });
    } catch (error) {
      post({ id: message.id, error: { code: -32603, message: String(error) } });
    }
  }
});
window.show = (html, input) => { window.input = input; frame.srcdoc = html; };
window.finish = (result) => post({ method: "ui/notifications/tool-result", params: result });
</script>
</body></html>"""


async def test_the_ask_view_renders_in_a_sandboxed_frame_and_its_answer_ends_the_ask(
    chromium: str, artifacts: Path
) -> None:
    from mcp.client import Client
    from mcp.client.extension import advertise
    from playwright.async_api import async_playwright

    server = stdio(sys.executable, ["-m", "orkestrel", "serve", "--ask", "--tools", "infer"])
    apps = advertise(APPS, {"mimeTypes": [MIME]})
    answer: dict[str, Any] = {}
    arguments = {"to": "user", "schema": FORM}
    async with (
        Client(server, extensions=[apps]) as session,
        async_playwright() as playwright,
        anyio.create_task_group() as group,
    ):
        listed = {tool.name: wire(tool) for tool in (await session.list_tools()).tools}
        uri = listed["ask"]["_meta"]["ui"]["resourceUri"]
        (content,) = wire(await session.read_resource(uri))["contents"]
        assert content["mimeType"] == MIME

        async def call(name: str, args: dict[str, Any]) -> Any:
            return wire(await session.call_tool(name, args))

        async def ask() -> None:
            answer.update(wire(await session.call_tool("ask", arguments)))

        browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.expose_function("hostCallTool", call)
            await page.set_content(HOST)
            group.start_soon(ask)
            await page.evaluate(
                "([html, input]) => window.show(html, input)", [content["text"], arguments]
            )
            frame = await (await page.wait_for_selector("#app")).content_frame()
            assert frame is not None
            form = frame.locator("article[data-form]")
            await form.wait_for()
            # Every text of the form is text: no element, no handler, no script ran.
            assert await form.locator("h2").inner_text() == HOSTILE
            assert await frame.locator("img, b, h2 script").count() == 0
            region = form.get_by_label("Region", exact=True)
            assert await region.locator("option").all_inner_texts() == [
                "—",
                "<b onmouseover=window.pwned=3>Europe</b>",
                "America",
            ]
            await form.get_by_role("button", name="Answer").click()
            error = form.locator('[data-field="owner"] .error')
            await error.wait_for(state="visible")
            assert (
                await form.get_by_label("Owner", exact=True).get_attribute("aria-invalid") == "true"
            )
            await region.select_option("eu")
            # Enter in a field answers too, in a frame sandboxed without allow-forms.
            await form.get_by_label("Owner", exact=True).fill("ada")
            await form.get_by_label("Owner", exact=True).press("Enter")
            await frame.wait_for_selector("text=Answered.")
            await until(lambda: answer, 30)
            await page.evaluate("(result) => window.finish(result)", answer)
            await frame.wait_for_selector("text=The form was answered.")
            await page.screenshot(path=str(artifacts / "ask-app-answered.png"), full_page=True)
            assert await frame.evaluate("() => window.pwned") is None
            seen = await page.evaluate("() => window.seen")
        finally:
            await browser.close()
    assert answer.get("isError", False) is False
    assert json.loads(answer["content"][0]["text"]) == {"owner": "ada", "region": "eu"}
    assert seen[:2] == ["ui/initialize", "ui/notifications/initialized"]
    assert "tools/call" in seen
