"""A fresh PostgreSQL database on the server `ORKESTREL_POSTGRES_DSN` names, for the tests that
run `orkestrel serve --database` against it."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def fresh_database(prefix: str = "serve") -> Iterator[str]:
    """Creates a database of its own on the configured server and yields its DSN, dropping it
    afterwards; skips without a server (fails when `ORKESTREL_REQUIRE_POSTGRES=1`)."""
    base = os.environ.get("ORKESTREL_POSTGRES_DSN")
    if not base:
        message = "no PostgreSQL server: set ORKESTREL_POSTGRES_DSN or run .ci/postgres start"
        if os.environ.get("ORKESTREL_REQUIRE_POSTGRES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_conninfo(**{**conninfo_to_dict(base), "dbname": name})
    finally:
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
