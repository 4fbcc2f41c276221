"""The database tool's names, caps and teaching texts."""

from __future__ import annotations

from typing import Final

from orkestrel.toolbox.database.types import DatabaseOperation

DATABASE_TOOL_NAME: Final = "database"
"""Holds the name `create_database_tool` advertises by default, `'database'`: the key a model
calls and a `ToolManager` registers under.
"""

DATABASE_TOOL_LIMIT: Final = 1000
"""Holds the default cap on rows a `records` call returns when the caller omits `query.limit`,
`1000`: the database tool's default row ceiling.
"""

DATABASE_TOOL_KEYS: Final = 100
"""Holds the default cap on the keys an `add` or `set` of many rows answers, `100`: beyond the
seed, which answers every key (20,000 rows answered 780 KB of keys); a cut answer carries the
first keys with `count` and `truncated: true`.
"""

DATABASE_TOOL_PROGRESS_ROWS: Final = 1000
"""Holds the size of the steps a write of many rows reports its progress by, `1000`: when the
caller listens for progress, an `add`, `set`, `update` or `remove` of more rows (or keys) than
this writes them this many at a time, still in one transaction, and says how many are done.
"""

DATABASE_TOOL_SIZE: Final = 262_144
"""Holds the default cap on the size of a `records` answer, and of a `get` answer of more than
one row, `262_144` bytes of JSON: beyond the seed, so that no answer can flood a model's
context whatever its rows hold.
"""

DATABASE_TOOL_MUTATIONS: Final[tuple[DatabaseOperation, ...]] = (
    "create",
    "add",
    "set",
    "update",
    "remove",
    "destroy",
)
"""Lists the immutable database-tool mutation names disabled by the `readonly` option."""

DATABASE_TOOL_SUMMARY: Final = "Small databases. See describe('database')."
"""Holds the lean summary `create_database_tool` advertises in place of
`DATABASE_TOOL_DESCRIPTION`: one sentence offering the `operation`-keyed database call and
pointing at `describe` for the operation list, the query form, and the column DSL.
"""

_DESCRIPTION: Final = """\
Work with databases of flat tables. Every call names an `operation` and the database `id`
(`create` chooses it), and row operations name the `table`.

Operations:
- create: {operation, id, tables, driver?, primary?, indexes?, version?} makes a database.
  `tables` maps a table name to {"columns": {column: type}}; a type is "string", "integer",
  "number" or "boolean", or {"primitive": type, "optional": true} for a column a row may leave
  out. Each table's key column is "id" unless `primary` names another ({"products": "sku"}); an
  undeclared "id" is added as a string and filled in when a row has none. `indexes` lists
  column groups to index per table ({"products": [["name"], ["price", "name"]]}).
- tables: {operation, id} lists the tables with their key column and row schema.
- get: {operation, id, table, key} reads one row by key; a list of keys reads many, and is
  refused when the rows are too large to return together: ask for fewer keys.
- records: {operation, id, table, query?} reads matching rows, answering
  {rows, count, truncated, limit}. `truncated` is true when more rows matched than were returned:
  narrow the query or page with `offset`. A row too large to return at all can still be read
  with `get`.
- count: {operation, id, table, query?} counts matching rows.
- aggregate: {operation, id, table, function, column, query?} computes count, sum, average,
  minimum or maximum over matching rows.
- add: {operation, id, table, row} inserts one row (or a list of rows) and answers the key(s);
  an existing key is an error and nothing is written. A list of more than KEY_CAP rows is
  answered {count, keys, truncated: true}: every row was written, keys holds the first KEY_CAP.
- set: {operation, id, table, row} inserts or fully replaces one row or a list of rows,
  answered like add.
- update: {operation, id, table, key, changes} changes some columns of the row(s) with the
  key(s); answers whether each row existed.
- remove: {operation, id, table, key} deletes the row(s); answers whether each existed.
- destroy: {operation, id} deletes the database: its rows, its tables and its definition.

Query form: {"conditions": [...], "order": [...], "limit": n, "offset": n}, every part
optional. A condition is {"column", "operator", "values", "connector"?}; `values` is always a
list, even for one value. Operators: equals, not, above, below, from (>=), to (<=), between
(two values, inclusive), any (one of the values), none (none of them), like (% any run, _ one
character, ignoring case), glob (* and ?, matching case), starts, ends, absent (no value),
present. `connector` ("and" or "or", default "and") joins a condition to the NEXT one, and
conditions combine strictly left to right: [A or, B and, C] means (A or B) and C. `order` is a
list of {"column", "direction": "ascending" | "descending"}; ties keep key order.

Example:
{"operation": "records", "id": "shop", "table": "products",
 "query": {"conditions": [{"column": "price", "operator": "below", "values": [50],
 "connector": "or"}, {"column": "name", "operator": "starts", "values": ["Wid"]}],
 "order": [{"column": "price", "direction": "descending"}], "limit": 20}}
"""


def database_description(keys: int = DATABASE_TOOL_KEYS) -> str:
    """The database tool's teaching text, naming the cap on the keys an `add` or `set` of many
    rows answers (`create_database_tool(keys=)`)."""
    return _DESCRIPTION.replace("KEY_CAP", str(keys))


DATABASE_TOOL_DESCRIPTION: Final = database_description()
"""Holds the description `create_database_tool` advertises: a multi-line guide that teaches a
small model the operation list, the serialized query form, and the `TableSpec` column DSL.
"""
