"""The wire seam: server-sent event frames, written and read byte for byte."""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from orkestrel.contract import number_to_string
from orkestrel.terminal.constants import SSE_BUFFER_LIMIT
from orkestrel.terminal.errors import TerminalError
from orkestrel.terminal.types import PendingForm, WireEvent

_SURROGATES = re.compile(r"[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")
_LINES = re.compile(r"\r\n|\r|\n")
_SAFE_INTEGER = 2**53


def _surrogate(match: re.Match[str]) -> str:
    text = match.group()
    if len(text) == 2:
        high, low = ord(text[0]) - 0xD800, ord(text[1]) - 0xDC00
        return chr(0x10000 + (high << 10) + low)
    return f"\\u{ord(text):04x}"


def _string(value: str) -> str:
    return _SURROGATES.sub(_surrogate, json.dumps(value, ensure_ascii=False))


def json_text(value: Any) -> str:
    """Writes JSON as JavaScript's `JSON.stringify` does: compact, keys in insertion order,
    non-ASCII text as itself, numbers in JavaScript's shortest form, and a lone surrogate as a
    `\\udXXX` escape so the text always encodes to UTF-8."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def _write(value: Any, parts: list[str]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        parts.append(_string(value))
    elif isinstance(value, int):
        parts.append(str(value) if abs(value) < _SAFE_INTEGER else number_to_string(float(value)))
    elif isinstance(value, float):
        parts.append(number_to_string(value) if math.isfinite(value) else "null")
    elif isinstance(value, dict):
        parts.append("{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                parts.append(",")
            parts.append(_string(str(key)))
            parts.append(":")
            _write(item, parts)
        parts.append("}")
    elif isinstance(value, list | tuple):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    else:
        raise TypeError(f"not JSON: {type(value).__name__}")


def serialize_pending(record: PendingForm) -> WireEvent:
    """Frames a parked form as a `pending` event whose SSE id is the form's id."""
    return {"event": "pending", "data": json_text(record), "id": record["id"]}


def serialize_expire(id: str) -> WireEvent:
    """Frames a withdrawn form as an `expire` event carrying `{"id": id}` (no SSE id)."""
    return {"event": "expire", "data": json_text({"id": id})}


def serialize_shutdown() -> WireEvent:
    """Frames the end of a stream as a `shutdown` event with empty data."""
    return {"event": "shutdown", "data": ""}


def encode_event(event: WireEvent) -> bytes:
    """Encodes one event as UTF-8 bytes: `event:`, then `id:` when present, one `data:` line per
    line of its data (split on CRLF, CR or LF), and a blank line."""
    lines = [f"event: {event['event']}"]
    if "id" in event:
        lines.append(f"id: {event['id']}")
    lines.extend(f"data: {line}" for line in _LINES.split(event["data"]))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


class SSEParser:
    """Represents an incremental server-sent event reader: `feed` it bytes or text as they
    arrive and get back the events completed so far.

    Lines may end in LF, CR or CRLF (even split across chunks); comments are skipped; several
    `data` lines join with LF. An unfinished line or event longer than `limit` characters
    raises `TerminalError` (`LIMIT`).
    """

    def __init__(self, *, limit: int = SSE_BUFFER_LIMIT) -> None:
        self._limit = limit
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._buffer = ""
        self._carriage = False
        self._event = ""
        self._data: list[str] = []
        self._size = 0
        self._id: str | None = None
        self.last_id: str | None = None
        """The id of the last event that carried one, as a reconnecting client resends it."""

    def feed(self, chunk: bytes | str) -> list[WireEvent]:
        """Reads one chunk and returns every event it completed, in order."""
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        if not text:
            return []
        if self._carriage and text.startswith("\n"):
            text = text[1:]
        self._carriage = False
        events: list[WireEvent] = []
        start = 0
        for match in _LINES.finditer(text):
            line = self._buffer + text[start : match.start()]
            self._buffer = ""
            start = match.end()
            self._line(line, events)
        self._buffer += text[start:]
        # A CR that ends a chunk has ended its line; an LF opening the next chunk belongs to it.
        self._carriage = text.endswith("\r")
        if len(self._buffer) > self._limit:
            raise TerminalError("LIMIT", f"an SSE line is longer than {self._limit} characters")
        return events

    def _line(self, line: str, events: list[WireEvent]) -> None:
        if not line:
            if self._data or self._event:
                event: WireEvent = {
                    "event": self._event or "message",
                    "data": "\n".join(self._data),
                }
                if self._id is not None:
                    event["id"] = self._id
                events.append(event)
            self._event, self._data, self._size, self._id = "", [], 0, None
            return
        if line.startswith(":"):
            return
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._size += len(value) + 1
            if self._size > self._limit:
                raise TerminalError(
                    "LIMIT", f"an SSE event is longer than {self._limit} characters"
                )
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
            self.last_id = value
