"""Fixtures of the workflow tests: anyio backends, and database drivers for the table store
(shared with the workspace tests)."""

from __future__ import annotations

from workspace.conftest import anyio_backend, make_driver, postgres_dsn

__all__ = ["anyio_backend", "make_driver", "postgres_dsn"]
