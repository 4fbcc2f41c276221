"""The engine drivers: SQLite (a file or memory) and PostgreSQL."""

from orkestrel.database.drivers.base import ThreadedDriver
from orkestrel.database.drivers.postgres import PostgresDriver
from orkestrel.database.drivers.sqlite import SQLiteDriver

__all__ = ["PostgresDriver", "SQLiteDriver", "ThreadedDriver"]
