"""Names and teaching texts of the infer tool."""

from typing import Final

INFER_TOOL_NAME: Final = "infer"
"""Holds the name `create_infer_tool` advertises by default, `'infer'`."""

INFER_TOOL_SUMMARY: Final = "Infer a JSON Schema from examples. See describe('infer')."
"""Holds the lean summary `create_infer_tool` advertises in place of `INFER_TOOL_DESCRIPTION`."""

INFER_TOOL_DESCRIPTION: Final = """\
Infer a JSON Schema from example values.
Fields:
- samples (required): a non-empty list of example values, usually objects.
- format (optional, default false): tag strings as email, uuid, date, date-time, time or uri.
- enum (optional, default false): turn a repeated small set of strings or numbers into an enum.
- candidates (optional): values to check against the inferred schema.
Without candidates the answer is the schema. A non-object sample is wrapped as {"value": ...}.
Example: in {"samples": [{"id": 1, "name": "Ada"}]}
out {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
     "required": ["id", "name"], "additionalProperties": false}
With candidates the answer is {"parameters": <schema>, "checks": [...]}, one check per candidate:
{"index", "valid", "coercible", "faults"?}. valid means the value matches exactly. coercible means
it would be accepted after conversion, e.g. 7 for a string field becomes "7": valid false,
coercible true, faults []. faults explain a value that cannot be accepted at all.
"""
"""Holds the schema-inference protocol `create_infer_tool` advertises: the fields it takes and a
worked example of the bare and of the checked answer."""

INFER_TOOL_PROGRESS_SAMPLES: Final = 10_000
"""Holds the size of the steps a large inference reports its progress by, `10_000`: when the
caller listens for progress and a call holds more samples and candidates than this, the samples
are inferred (and the candidates checked) this many at a time, with a report after each step.
"""
