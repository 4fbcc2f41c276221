"""Constants of the timeout module."""

from typing import Final

MAX_TIMEOUT_MS: Final = 2_147_483_647
"""Names the largest timeout duration the package accepts, `2_147_483_647` milliseconds."""
