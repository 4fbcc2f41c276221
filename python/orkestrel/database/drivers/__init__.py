"""The engine drivers: SQLite (a file or memory) and PostgreSQL (one connection, or a pool)."""

from orkestrel.database.drivers.base import ThreadedDriver
from orkestrel.database.drivers.pooled import PooledPostgresDriver
from orkestrel.database.drivers.postgres import PostgresDriver
from orkestrel.database.drivers.sqlite import SQLiteDriver

__all__ = ["PooledPostgresDriver", "PostgresDriver", "SQLiteDriver", "ThreadedDriver"]
