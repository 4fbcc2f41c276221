"""PostgreSQL failures become one-line `DatabaseError`s of our own: the SQLSTATE and what went
wrong, never the server's text (which quotes the statement and the schema)."""

from __future__ import annotations

import pytest

from orkestrel.database import PostgresDriver

psycopg = pytest.importorskip("psycopg")

SERVER_TEXT = 'relation "orkestrel_shop.items" does not exist\nLINE 1: SELECT * FROM "items"'


@pytest.mark.parametrize(
    ("state", "code", "retryable"),
    [
        ("42P01", "MIGRATION", False),
        ("42703", "MIGRATION", False),
        ("3F000", "MIGRATION", False),
        ("23505", "CONFLICT", False),
        ("54000", "VALIDATION", False),
        ("25006", "DRIVER", False),
        ("22P02", "DRIVER", False),
        ("40001", "DRIVER", True),
        ("40P01", "DRIVER", True),
        ("55P03", "DRIVER", True),
        ("57P01", "DRIVER", True),
        ("08006", "DRIVER", True),
        ("57014", "DRIVER", False),
        ("XX000", "DRIVER", False),
    ],
)
def test_a_postgres_failure_is_a_typed_line_without_the_servers_text(
    state: str, code: str, retryable: bool
) -> None:
    error = psycopg.errors.lookup(state)(SERVER_TEXT)
    translated = PostgresDriver("postgresql://nowhere/none")._translate(error)
    assert translated.code == code
    assert "\n" not in translated.message
    for raw in ("SELECT", "LINE", "orkestrel_shop", "relation"):
        assert raw not in translated.message
    assert translated.context is not None
    assert translated.context["retryable"] is retryable
    assert translated.context["cause"] == repr(error)
    if code in ("MIGRATION", "DRIVER", "VALIDATION"):
        assert f"SQLSTATE {state}" in translated.message
    assert translated.context.get("stale", False) is (code == "MIGRATION")


def test_a_failed_connection_says_postgres_cannot_be_reached() -> None:
    error = psycopg.OperationalError('connection to server at "10.0.0.1", port 5432 failed')
    translated = PostgresDriver("postgresql://nowhere/none")._translate(error)
    assert (translated.code, translated.message) == ("DRIVER", "cannot reach PostgreSQL")
    assert translated.context is not None
    assert translated.context["retryable"] is True
