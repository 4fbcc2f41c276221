"""A small database layer on real engines: declared tables over SQLite (memory or file) or
PostgreSQL, queried with a serialized form compiled to parameterised SQL.

    size = Column("integer", optional=True)
    database = create_database(
        tables={"files": {"path": "string", "body": "string", "size": size}},
        primary={"files": "path"},
        driver=create_sqlite_driver("workspace.sqlite3"),  # memory when omitted
    )
    files = database.table("files")
    await files.set({"path": "a.txt", "body": "hello"})          # one row in, one key out
    await files.get(["a.txt", "b.txt"])                          # a list in, a list out
    await files.records({"conditions": [{"column": "path", "operator": "starts", "values": ["a"]}]})
    await database.close()

Every call is one transaction run in a worker thread; a batch write is all or nothing. A
`signal` (`orkestrel.abort`) interrupts the running statement and rolls the call back.
Failures are `DatabaseError`s with a `code`.
"""

from orkestrel.database.column import Column
from orkestrel.database.constants import (
    AGGREGATES,
    COLUMN_TYPES,
    DEFAULT_PRIMARY,
    INLINE_BUDGET,
    INLINE_ROWS,
    MAX_CONDITIONS,
    MAX_PATTERN_LENGTH,
    MAX_VALUES,
    OPERATORS,
    POSTGRES_INLINE_WAIT,
    POSTGRES_POOL_IDLE,
    POSTGRES_POOL_SIZE,
    POSTGRES_POOL_TIMEOUT,
    POSTGRES_SCHEMA_PREFIX,
)
from orkestrel.database.database import Database
from orkestrel.database.drivers import (
    PooledPostgresDriver,
    PostgresDriver,
    SQLiteDriver,
    ThreadedDriver,
)
from orkestrel.database.drivers.threads import (
    DATABASE_THREAD_LIMIT,
    FairLimiter,
    database_fair_limiter,
    database_thread_limiter,
)
from orkestrel.database.errors import (
    DATABASE_ERROR_CODES,
    DatabaseError,
    DatabaseErrorCode,
    is_database_error,
)
from orkestrel.database.factories import (
    create_database,
    create_memory_driver,
    create_postgres_driver,
    create_postgres_factory,
    create_postgres_pool,
    create_sqlite_driver,
    create_sqlite_factory,
)
from orkestrel.database.table import Table
from orkestrel.database.transaction import Transaction, TransactionTable
from orkestrel.database.types import (
    AggregateFunction,
    ColumnExport,
    ColumnType,
    Condition,
    Connector,
    DatabaseInterface,
    DatabaseStatus,
    Direction,
    DriverFactory,
    DriverInterface,
    IndexMap,
    Key,
    KeyGenerator,
    Operator,
    Order,
    PrimaryMap,
    QueryInput,
    Row,
    SessionInterface,
    TableExport,
    TableInterface,
    TableMap,
)

__all__ = [
    "AGGREGATES",
    "COLUMN_TYPES",
    "DATABASE_ERROR_CODES",
    "DATABASE_THREAD_LIMIT",
    "DEFAULT_PRIMARY",
    "INLINE_BUDGET",
    "INLINE_ROWS",
    "MAX_CONDITIONS",
    "MAX_PATTERN_LENGTH",
    "MAX_VALUES",
    "OPERATORS",
    "POSTGRES_INLINE_WAIT",
    "POSTGRES_POOL_IDLE",
    "POSTGRES_POOL_SIZE",
    "POSTGRES_POOL_TIMEOUT",
    "POSTGRES_SCHEMA_PREFIX",
    "AggregateFunction",
    "Column",
    "ColumnExport",
    "ColumnType",
    "Condition",
    "Connector",
    "Database",
    "DatabaseError",
    "DatabaseErrorCode",
    "DatabaseInterface",
    "DatabaseStatus",
    "Direction",
    "DriverFactory",
    "DriverInterface",
    "FairLimiter",
    "IndexMap",
    "Key",
    "KeyGenerator",
    "Operator",
    "Order",
    "PooledPostgresDriver",
    "PostgresDriver",
    "PrimaryMap",
    "QueryInput",
    "Row",
    "SQLiteDriver",
    "SessionInterface",
    "Table",
    "TableExport",
    "TableInterface",
    "TableMap",
    "ThreadedDriver",
    "Transaction",
    "TransactionTable",
    "create_database",
    "create_memory_driver",
    "create_postgres_driver",
    "create_postgres_factory",
    "create_postgres_pool",
    "create_sqlite_driver",
    "create_sqlite_factory",
    "database_fair_limiter",
    "database_thread_limiter",
    "is_database_error",
]
