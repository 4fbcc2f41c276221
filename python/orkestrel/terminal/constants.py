"""Defaults of the terminal layer and the names of its wire events."""

from __future__ import annotations

from typing import Final

HEADER_TOKEN: Final = "x-orkestrel-token"
"""Holds the request header a client presents its token in, on the stream and on the answer."""

DEFAULT_PROMPT_TIMEOUT_MS: Final = 300_000
"""Holds how long a parked form waits for an answer before it expires, in milliseconds."""

SSE_EVENTS: Final[tuple[str, ...]] = ("pending", "expire", "shutdown")
"""Lists the events a terminal stream carries: a form to answer, a form withdrawn, the end."""

SSE_BUFFER_LIMIT: Final = 1_048_576
"""Holds the most characters `SSEParser` buffers for one unfinished line or event."""

KEEPALIVE_FRAME: Final = b": \n\n"
"""Holds the comment frame a stream sends to keep an idle connection open; parsers skip it."""

DEFAULT_RECONNECT_MS: Final = 2000
"""Holds how long a `PromptClient` waits before it reconnects a dropped stream, in
milliseconds."""
