"""A scripted model for the OpenAI Agents SDK: the first turn makes one tool call built from the
tools it is offered, the next ends the run with "done". It records the tools and the call's
output in `seen`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def scripted_model(
    seen: dict[str, Any], call: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]
) -> Any:
    """A `Model` whose first response calls `call(tools by name)` -> (tool name, arguments)."""
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
                item
                for item in items
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            ]
            if not outputs:
                name, arguments = call(seen["tools"])
                made = ResponseFunctionToolCall(
                    type="function_call", call_id="c1", name=name, arguments=json.dumps(arguments)
                )
                return ModelResponse(output=[made], usage=Usage(), response_id=None)
            seen["output"] = outputs[0]["output"]
            text = ResponseOutputText(type="output_text", text="done", annotations=[])
            message = ResponseOutputMessage(
                id="m1", type="message", role="assistant", status="completed", content=[text]
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    return Scripted()
