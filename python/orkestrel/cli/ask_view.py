"""The `ask` form as an MCP App: the view a host that negotiated MCP Apps renders inline when
the model asks, and the two tools only that view calls, through the host, to see and answer
the forms asked on its own client's calls."""

from __future__ import annotations

from typing import Any

from orkestrel.mcp.apps import McpApp
from orkestrel.mcp.elicitation import ElicitingTerminalManager, current_request
from orkestrel.mcp.principal import principal
from orkestrel.tool import Tool
from orkestrel.toolbox import create_ask_app_html

ASK_VIEW_URI = "ui://orkestrel/ask"
"""The `ui://` resource of the ask form's view."""

FORMS_TOOL = "ask_forms"
"""The view's tool listing the forms waiting for the person at the calling client."""

ANSWER_TOOL = "ask_answer"
"""The view's tool answering one of those forms."""


def ask_view(manager: ElicitingTerminalManager) -> McpApp:
    """The ask form's view over `manager`: a form is seen and answered only by whom the call
    that asked it acted for (the same bearer token or JWT subject over HTTP; the one client
    over stdio), and answering settles the waiting ask as the page and elicitation do
    (the form's own rules checked, a rejected answer leaving it open)."""

    def mine() -> list[Any]:
        served = current_request()
        return [] if served is None else manager.asked_by(principal(served.context))

    async def forms(args: Any) -> dict[str, Any]:
        return {"forms": mine()}

    async def answer(args: Any) -> Any:
        id, values = args["id"], args["values"]
        if not isinstance(id, str):
            raise TypeError(f"id: expected the string id of a waiting form, got {_kind(id)}")
        if not isinstance(values, dict):
            raise TypeError(f"values: expected an object of answers, got {_kind(values)}")
        if id not in {record["id"] for record in mine()}:
            return {"success": False, "error": {"reason": "unknown"}}
        return manager.answer(manager.client_terminal, id, values)

    listing = Tool(
        name=FORMS_TOOL,
        description="Lists the forms waiting for the person at this client.",
        annotations={"title": "Waiting forms"},
        parameters={"type": "object", "properties": {}, "additionalProperties": False},
        execute=forms,
    )
    answering = Tool(
        name=ANSWER_TOOL,
        description="Answers one waiting form with the person's values.",
        annotations={"title": "Answer a form"},
        parameters={
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "The form's id, from ask_forms."},
                "values": {"type": "object", "description": "The answers, by field name."},
            },
            "required": ["id", "values"],
            "additionalProperties": False,
        },
        execute=answer,
    )
    return McpApp(ASK_VIEW_URI, "Answer a form", create_ask_app_html(), (listing, answering))


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__
