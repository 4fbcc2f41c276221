"""An engine failure without text of its own (a `MemoryError` under an address-space cap)
still reads as a one-line error that names what failed, on every engine."""

from __future__ import annotations

from typing import Any

import pytest

from database.conftest import MakeDriver
from orkestrel.database import DatabaseError

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("error", [MemoryError(), RuntimeError("  ")])
async def test_an_engine_failure_without_text_is_reported_with_its_type_name(
    make_driver: MakeDriver, engine: str, error: Exception
) -> None:
    driver = make_driver()

    def work(session: Any) -> None:
        raise error

    with pytest.raises(DatabaseError) as caught:
        await driver.run(work, write=True)
    await driver.close()
    kind = "PostgreSQL" if engine in ("postgres", "pooled") else "sqlite"
    assert str(caught.value) == f"{kind} failed: {type(error).__name__}"
