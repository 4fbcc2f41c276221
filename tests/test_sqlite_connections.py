"""A SQLite connection collected unclosed is a `ResourceWarning` (an error in this suite) on
every version, as it is from Python 3.13, so a leak fails the tests wherever they run."""

from __future__ import annotations

import gc
import sqlite3
import warnings

import pytest


def open_and_drop() -> None:
    sqlite3.connect(":memory:")  # dropped unclosed
    gc.collect()  # before 3.13 a connection is in a cycle with its statement cache


def test_a_connection_collected_unclosed_warns_on_every_version() -> None:
    with pytest.warns(ResourceWarning, match="unclosed database"):
        open_and_drop()


def test_a_closed_connection_collected_does_not_warn() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        connection = sqlite3.connect(":memory:")
        connection.close()
        del connection
        gc.collect()
    assert [w.message for w in caught if issubclass(w.category, ResourceWarning)] == []
