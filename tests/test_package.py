"""The package imports and reports the version of its native core."""

from __future__ import annotations

import orkestrel
from orkestrel import _core


def test_version_comes_from_the_native_core() -> None:
    assert orkestrel.__version__ == _core.__version__
    assert orkestrel.__version__.count(".") == 2
