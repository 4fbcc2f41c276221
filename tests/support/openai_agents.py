"""Scripted models for the OpenAI Agents SDK, in the Responses API's terms (the SDK's default).
They record in `seen` the tools they are offered, every `function_call_output` item's `output`
the Runner put in their input (`outputs`), and the first of them (`output`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Call = Callable[[dict[str, Any], list[Any]], tuple[str, dict[str, Any]] | None]
"""(tools by name, outputs so far) -> the next call's (tool name, arguments), or None to end."""


def scripted_model(
    seen: dict[str, Any], call: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]
) -> Any:
    """A `Model` whose first response calls `call(tools by name)` -> (tool name, arguments), and
    whose next says "done"."""
    return scripted_calls(seen, lambda tools, outputs: None if outputs else call(tools))


def scripted_calls(seen: dict[str, Any], call: Call) -> Any:
    """A `Model` whose every response calls what `call` asks for, until it gives None; then it
    says "done"."""
    # Deferred: the Agents SDK is a test-only dependency, imported where a test needs it.
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class Scripted(Model):
        async def get_response(
            self,
            system_instructions: Any,
            input: Any,
            model_settings: Any,
            tools: Any,
            *args: Any,
            **kwargs: Any,
        ) -> ModelResponse:
            items = input if isinstance(input, list) else []
            seen["tools"] = {tool.name: tool for tool in tools}
            outputs = [
                item["output"]
                for item in items
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            ]
            seen["outputs"] = outputs
            if outputs:
                seen["output"] = outputs[0]
            made = call(seen["tools"], outputs)
            if made is not None:
                name, arguments = made
                request = ResponseFunctionToolCall(
                    type="function_call",
                    call_id=f"c{len(outputs) + 1}",
                    name=name,
                    arguments=json.dumps(arguments),
                )
                return ModelResponse(output=[request], usage=Usage(), response_id=None)
            text = ResponseOutputText(type="output_text", text="done", annotations=[])
            message = ResponseOutputMessage(
                id="m1", type="message", role="assistant", status="completed", content=[text]
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    return Scripted()
