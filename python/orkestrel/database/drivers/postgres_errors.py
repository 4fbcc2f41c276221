"""PostgreSQL failures as one-line `DatabaseError`s: the message names what went wrong and the
SQLSTATE, never the server's own text, which quotes the statement and the schema it ran in."""

from __future__ import annotations

from typing import Any

from orkestrel.database.errors import DatabaseError

_RETRYABLE = frozenset({"40001", "40P01", "55P03", "57P01", "57P02", "57P03", "53300"})
_STALE = frozenset({"42P01", "42703", "3F000"})
"""Undefined table, undefined column, undefined schema: storage no longer holds what the
declaration names, because it was dropped or re-created outside this database handle."""

_CLASSES = {
    "08": "the connection to PostgreSQL failed",
    "22": "PostgreSQL refused a value",
    "23": "PostgreSQL refused the row (a stored constraint)",
    "40": "PostgreSQL rolled the transaction back (a serialization failure or deadlock)",
    "42": "PostgreSQL refused the statement",
    "53": "PostgreSQL ran out of resources",
    "54": "a PostgreSQL limit was exceeded",
    "55": "a PostgreSQL object was busy or not ready",
    "57": "PostgreSQL stopped the statement",
}


def missing_module(user: str, module: str) -> DatabaseError:
    """The refusal of `user` (what needs the module) when `module`, a dependency of the
    `postgres` extra, is not installed."""
    return DatabaseError(
        "DRIVER",
        f"{user} needs {module}: pip install 'orkestrel[postgres]'",
        {"engine": "postgres", "retryable": False},
    )


STALE_MESSAGE = (
    "the stored tables no longer match the declaration: a table, column or schema it names is "
    "missing (dropped or re-created elsewhere)"
)
"""The message of a statement that met storage changed outside the database handle."""


def translate_postgres(error: Exception) -> DatabaseError:
    """Maps a psycopg failure to a `DatabaseError`; `context["cause"]` keeps the server's
    text for logs, the message never does."""
    state = str(getattr(error, "sqlstate", None) or "")
    context: dict[str, Any] = {"engine": "postgres", "cause": repr(error), "retryable": False}
    if state == "23505":
        return DatabaseError("CONFLICT", "a row with this key already exists", context)
    if state == "54000":
        return DatabaseError(
            "VALIDATION",
            "a value is too large for an index of this table (SQLSTATE 54000)",
            context,
        )
    if state == "25006":
        context["readonly"] = True
        return DatabaseError("DRIVER", "the database is read-only (SQLSTATE 25006)", context)
    if state in _STALE:
        context["stale"] = True
        return DatabaseError("MIGRATION", f"{STALE_MESSAGE} (SQLSTATE {state})", context)
    operational = type(error).__name__ == "OperationalError"
    if state in _RETRYABLE or state.startswith("08") or operational:
        context["retryable"] = True
    if not state:
        # Without a SQLSTATE the failure is ours or the client library's: its type says what
        # failed, and its text, which may quote the server, stays in the context.
        what = (
            "cannot reach PostgreSQL"
            if operational
            else f"PostgreSQL failed: {type(error).__name__}"
        )
        return DatabaseError("DRIVER", what, context)
    what = _CLASSES.get(state[:2], "PostgreSQL failed")
    return DatabaseError("DRIVER", f"{what} (SQLSTATE {state})", context)
