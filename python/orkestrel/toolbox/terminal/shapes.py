"""The contract shapes the prompt and answer tools are advertised and parsed with."""

from __future__ import annotations

from orkestrel.contract import (
    ObjectShape,
    UnionShape,
    json_shape,
    literal_shape,
    object_shape,
    record_shape,
    string_shape,
    union_shape,
)

prompt_tool_shape: ObjectShape = object_shape(
    {
        "to": string_shape(min=1, description="Who answers."),
        "schema": record_shape(
            json_shape(),
            description="The form.",
        ),
    }
)
"""Describes the shape of `create_prompt_tool`'s call arguments: `to` names the terminal identity
and `schema` carries the complete multi-field form document."""

answer_tool_shape: UnionShape = union_shape(
    object_shape(
        {"operation": literal_shape(["pending"], description="List the forms waiting for you.")}
    ),
    object_shape(
        {
            "operation": literal_shape(["answer"], description="Answer one form by its id."),
            "id": string_shape(min=1, description="The id of the form, from pending."),
            "values": record_shape(
                json_shape(), description="Every answer at once, keyed by field name."
            ),
        }
    ),
)
"""Describes the shape of `create_answer_tool`'s call arguments, discriminated by `operation`:
`pending` lists the forms addressed to this tool's terminal, while `answer` resolves one by `id`
with a complete `values` record."""
