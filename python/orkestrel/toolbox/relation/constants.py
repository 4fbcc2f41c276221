"""The relation tool's names, caps and teaching texts."""

from __future__ import annotations

from typing import Final

from orkestrel.toolbox.relation.types import RelationOperation

RELATION_TOOL_NAME: Final = "relation"
"""Holds the name `create_relation_tool` advertises by default, `'relation'`: the key a model
calls and a `ToolManager` registers under.
"""

RELATION_TOOL_LIMIT: Final = 1000
"""Holds the default cap on rows a `find` or `links` call returns when the caller omits
`limit`, `1000`: the relation tool's default row ceiling.
"""

RELATION_TOOL_DEPTH: Final = 3
"""Holds the default cap on how many `include` path segments deep a `load` or `find` call may
traverse, `3`: the relation tool's default include-depth ceiling.
"""

RELATION_TOOL_MUTATIONS: Final[tuple[RelationOperation, ...]] = ("link", "unlink")
"""Lists the relation-tool operations that write (junction rows); the others only read."""

RELATION_TOOL_SUMMARY: Final = "Rows with related rows, links. See describe('relation')."
"""Holds the lean summary `create_relation_tool` advertises in place of
`RELATION_TOOL_DESCRIPTION`: one sentence offering the `operation`-keyed relationship traversal
and pointing at `describe` for the include-path syntax (a renamed tool names itself there).
"""

RELATION_TOOL_DESCRIPTION: Final = """\
Read rows together with their related rows, and manage many-to-many links. Every call names an
`operation` and the `model` (a table); `manager` names which set of models to use and may be
left out when there is only one.

Operations:
- load: {operation, model, key, include?} reads the row with that key, answering {"row": ...}
  (null when there is none); a list of keys answers {"rows": [...]} in the same order, and is
  refused when the rows are too large to return together: ask for fewer keys or includes.
- find: {operation, model, include?, limit?, offset?, sort?, direction?} reads a page of rows,
  answering {rows, count, truncated, limit}. `sort` names a column, `direction` is "ascending"
  (default) or "descending". `truncated` is true when more rows exist than were returned: read
  the next page with `offset`.
- link: {operation, model, key, relation, target} pairs the row `key` with the related row
  `target` through a many-to-many relation; linking twice changes nothing.
- unlink: {operation, model, key, relation, target} removes that pair.
- links: {operation, model, key, relation} lists the related keys linked to the row, answering
  {keys, count, truncated, limit}.
link, unlink and links work only on many-to-many (through) relations.

`include` is a list of dot paths naming relations to attach, one segment per level: "contacts"
attaches each row's contacts, "contacts.account" also each contact's account.
A path has at most 3 segments, and every segment must be a relation of the model it is read
from.

Example:
{"operation": "load", "model": "accounts", "key": "acc1", "include": ["contacts.account"]}
answers
{"row": {"id": "acc1", "name": "Acme", "contacts": [{"id": "c1", "name": "Ada",
 "accountId": "acc1", "account": {"id": "acc1", "name": "Acme"}}]}}
"""
"""Holds the description `create_relation_tool` advertises: a multi-line guide that teaches a
small model the operation list and the flat dot-path `include` syntax.
"""
