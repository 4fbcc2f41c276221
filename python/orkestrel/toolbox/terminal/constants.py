"""The names and teaching texts of the prompt and answer tools."""

from __future__ import annotations

import json
from typing import Final

PROMPT_TOOL_NAME: Final = "ask"
"""Holds the name `create_prompt_tool` advertises by default, `'ask'`: the key a model calls and
a `ToolManager` registers under."""

ANSWER_TOOL_NAME: Final = "answer"
"""Holds the name `create_answer_tool` advertises by default, `'answer'`: the key a model calls
and a `ToolManager` registers under."""

PROMPT_TOOL_SUMMARY: Final = "Ask a person to fill in a form. See describe('ask')."
"""Holds the lean summary `create_prompt_tool` advertises in place of `PROMPT_TOOL_DESCRIPTION`:
one sentence offering the blocking multi-field ask and pointing at `describe` for the schema."""

ANSWER_TOOL_SUMMARY: Final = (
    "List the forms waiting for your answer (operation 'pending') or answer one of them "
    "(operation 'answer' with its id and values). Call describe('answer') for the fields each "
    "takes."
)
"""Holds the lean summary `create_answer_tool` advertises in place of `ANSWER_TOOL_DESCRIPTION`:
one sentence offering the pending listing and the answer call, and pointing at `describe` for the
fields each takes."""

_ASK_EXAMPLE = json.dumps(
    {
        "to": "user",
        "schema": {
            "label": "Deploy settings",
            "fields": [
                {
                    "control": "select",
                    "name": "region",
                    "label": "Region",
                    "choices": [
                        {"value": "eu", "label": "Europe"},
                        {"value": "us", "label": "America"},
                    ],
                    "rule": {"required": True},
                },
                {
                    "control": "number",
                    "name": "replicas",
                    "label": "Replicas",
                    "default": 2,
                    "rule": {"minimum": 1, "maximum": 9, "integer": True},
                },
                {"control": "confirm", "name": "approved", "label": "Deploy now?"},
            ],
        },
    },
    separators=(",", ":"),
)

PROMPT_TOOL_DESCRIPTION: Final = f"""Ask a person a whole form and wait until they answer it. \
The call blocks until every field is answered together, then returns one record keyed by field \
name, such as {{"region":"eu","replicas":3,"approved":true}}.

Arguments:
- to: the terminal to ask (who answers), for example "user".
- schema: the form, {{label?, help?, groups?, fields}}. fields is a list in the order shown; \
each field is {{control, name, label?, help?, group?, hidden?, disabled?, locked?, rule?}} plus \
its control's own keys. Names are unique.

Controls and the value each answers with:
- text, editor (many lines): a string; optional default, placeholder.
- password: a string; never a default.
- number: a number; optional default, placeholder.
- date "YYYY-MM-DD", time "HH:MM", datetime "YYYY-MM-DDTHH:MM", color "#rrggbb": a string.
- confirm: true or false.
- select: one choice's value; choices [{{value, label, help?, disabled?}}] required; \
open: true also admits other values.
- checkbox: a list of choice values; choices required.
- file: a list of file names; accept [types], multiple: true for several.

rule (all optional): required: true; minimum and maximum (a length for text, a count for \
checkbox and file, a value for number, a date or time string for the temporal controls); step \
(number); pattern (a regular expression the whole answer must match; no look-around or \
backreferences); email, url, integer, alphanumeric: true.

A form that breaks these rules is refused before anyone is asked. If nobody answers in time the \
call fails with "expired"; asking a terminal that is waiting on you fails as a cycle.

Example: {_ASK_EXAMPLE}"""
"""Holds the form protocol `create_prompt_tool` advertises: the required `to` and `schema`, how a
field declares its control and its rules, and a worked example."""

ANSWER_TOOL_DESCRIPTION: Final = """Answer the forms other agents ask you. Each call is one JSON \
object whose "operation" field names the action.

- pending {}: the forms waiting for you, as [{id, from, schema}]; from names who asks, schema is \
the form (its fields, their controls and rules).
- answer {id, values}: answer the form with that id. values is one record keyed by field name \
holding every answer at once: a string for text-like fields, a number for number, true or false \
for confirm, a choice's value for select, a list of values for checkbox and file. A field left \
out stays unanswered.

An answer that breaks a field's rules is refused with the failing fields named, and the form \
stays waiting so you can answer again.

Examples: {"operation":"pending"} then \
{"operation":"answer","id":"<id from pending>","values":{"approved":true,"notes":"Ship it."}}"""
"""Holds the protocol `create_answer_tool` advertises: the `pending` and `answer` operations and
the `values` record an answer supplies, each with a worked example."""
