"""Limits and fixed names of the database layer."""

from __future__ import annotations

from typing import Final, get_args

from orkestrel.database.types import AggregateFunction, ColumnType, Operator

DEFAULT_PRIMARY: Final = "id"
"""Names the primary column a table uses when `primary` does not name one, `'id'`."""

OPERATORS: Final[tuple[Operator, ...]] = get_args(Operator)
"""Lists the fifteen condition operators of the query form, in their advertised order."""

AGGREGATES: Final[tuple[AggregateFunction, ...]] = get_args(AggregateFunction)
"""Lists the aggregate functions `Table.aggregate` computes."""

COLUMN_TYPES: Final[tuple[ColumnType, ...]] = get_args(ColumnType)
"""Lists the column types a table may declare."""

MAX_PATTERN_LENGTH: Final = 1024
"""Holds the longest `like` / `glob` pattern a condition may carry, in characters."""

MAX_CONDITIONS: Final = 100
"""Holds the most conditions one query may carry."""

MAX_VALUES: Final = 1000
"""Holds the most values one `any` / `none` condition may carry."""

MAX_IDENTIFIER_BYTES: Final = 63
"""Holds the longest table or column name, in UTF-8 bytes (PostgreSQL's identifier limit)."""

MAX_INTEGER: Final = 2**63 - 1
"""Holds the largest value an `integer` column stores (a signed 64-bit integer)."""

MIN_INTEGER: Final = -(2**63)
"""Holds the smallest value an `integer` column stores."""

METADATA_TABLE: Final = "_orkestrel_metadata"
"""Names the table that keeps each database's version stamp and schema."""

RESERVED_PREFIXES: Final = ("sqlite_", "pg_", "_orkestrel")
"""Lists the name prefixes (compared case-insensitively) no table may use."""

POSTGRES_SCHEMA_PREFIX: Final = "orkestrel_"
"""Starts the name of every schema `create_postgres_factory` keeps a database in, unless told
otherwise, so a database id never names a schema the factory did not create."""

POSTGRES_POOL_SIZE: Final = 10
"""The most connections `create_postgres_pool` opens unless told otherwise."""

POSTGRES_POOL_TIMEOUT: Final = 30.0
"""The seconds a unit of work waits for a pooled connection before it fails as retryable."""

POSTGRES_POOL_IDLE: Final = 600.0
"""The seconds a pooled connection may sit idle before the pool closes it."""

RESERVED_SCHEMAS: Final = ("public", "information_schema")
"""Lists the PostgreSQL schema names (compared case-insensitively, with every `pg_` name) that
no database id may name."""

KEY_BATCH: Final = 500
"""Holds how many keys one lookup statement binds; longer key lists run in several statements
inside the same transaction."""

INLINE_BUDGET: Final = 0.002
"""Seconds a SQLite table call may run on the event loop's own thread; past that its statement
is stopped, rolled back and run again in a worker thread."""

POSTGRES_INLINE_WAIT: Final = 0.002
"""Seconds a PostgreSQL lone read may wait for the server's answer on the event loop's own
thread (as a sync connection waits, at a fraction of the loop's cost) before the loop waits for
it; only while the recent reads took at most half of that."""

INLINE_ROWS: Final = 100
"""Writes (and keyed updates and removals) of more rows than this go straight to a worker
thread."""
