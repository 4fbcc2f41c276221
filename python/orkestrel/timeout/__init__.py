"""A re-armable deadline whose `AbortSignal` aborts when it expires."""

from orkestrel.timeout.constants import MAX_TIMEOUT_MS
from orkestrel.timeout.factories import create_timeout
from orkestrel.timeout.helpers import validate_timeout_options
from orkestrel.timeout.timeout import Timeout
from orkestrel.timeout.types import TimeoutInterface, TimeoutOptions
from orkestrel.timeout.validators import is_timeout_duration, is_timeout_signal

__all__ = [
    "MAX_TIMEOUT_MS",
    "Timeout",
    "TimeoutInterface",
    "TimeoutOptions",
    "create_timeout",
    "is_timeout_duration",
    "is_timeout_signal",
    "validate_timeout_options",
]
