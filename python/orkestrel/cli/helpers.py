"""Input helpers for the command line: JSON vs JSON Lines detection from a bounded peek, and
a re-joined stream."""

from __future__ import annotations

from orkestrel._core import infer_json

TYPE_CHECKING = False  # `typing` stays unimported at run time: it is start-up time for `infer`
if TYPE_CHECKING:
    from typing import Any, Literal, Protocol, TypedDict

    Layout = Literal["json", "jsonl"]

    class InferenceOptions(TypedDict):
        """The inference options `orkestrel infer` reads from its flags."""

        format: bool
        enum: bool
        closed: bool
        max_depth: int | float
        max_properties: int | float
        merge: bool

    class Reader(Protocol):
        """A binary stream, as far as the readers here use one."""

        def read(self, size: int = -1, /) -> bytes: ...


PEEK_BYTES = 1 << 20
"""How much of an input is read, at most, to tell JSON Lines from one JSON document."""

_BLANK = b" \t\r\n"
_CHUNK = 1 << 16
_STARTS = {bytes([byte]) for byte in b'{["-0123456789tfn'}


def inference_options(args: Any) -> InferenceOptions:
    """The inference options of `orkestrel infer`'s parsed flags, as `SchemaBuilder` takes them."""
    return {
        "format": args.format,
        "enum": args.enum,
        "closed": not args.open,
        "max_depth": args.max_depth,
        "max_properties": args.max_properties,
        "merge": args.merge,
    }


class Peek:
    """What a peek at the head of an input found: the bytes read (to be read again first),
    the layout, and whether the layout is certain (the first line ended within the peek)."""

    __slots__ = ("certain", "head", "layout")

    def __init__(self, head: bytes, layout: Layout, certain: bool) -> None:
        self.head = head
        self.layout: Layout = layout
        self.certain = certain


def peek(stream: Reader, limit: int = PEEK_BYTES) -> Peek:
    """Reads at most `limit` bytes of `stream`, up to the end of its first non-blank line, and
    tells the layout from them: JSON Lines when that line is a whole JSON value by itself.

    A first line longer than `limit` is taken for one JSON document, uncertainly; a head that
    cannot begin any JSON value raises its `JSONInputError` at once, so an endless input of
    garbage (`/dev/zero`) is refused without being read to its end.
    """
    head = b""
    while len(head) < limit:
        chunk = stream.read(min(_CHUNK, limit - len(head)))
        if not chunk:
            return Peek(head, detect(head), True)
        head += chunk
        text = head.lstrip(b"\xef\xbb\xbf").lstrip(_BLANK)
        end = text.find(b"\n")
        if end >= 0:
            return Peek(head, detect(text[:end]), True)
    start = head.lstrip(b"\xef\xbb\xbf").lstrip(_BLANK)[:1]
    if start not in _STARTS:
        infer_json(head)  # raises the parser's own error, at the offending byte
    return Peek(head, "json", False)


def detect(head: bytes) -> Layout:
    """JSON Lines when the first non-blank line is a whole JSON value by itself, else JSON."""
    line = head.lstrip(b"\xef\xbb\xbf").strip(_BLANK)
    if not line:
        return "jsonl"
    try:
        infer_json(line)
    except ValueError as error:
        from orkestrel.contract import JSONInputError  # loaded only when a line fails

        if not isinstance(error, JSONInputError):
            raise
        return "json"
    return "jsonl"


class Prefixed:
    """A binary stream that yields `head` first and then the rest of `stream`."""

    def __init__(self, head: bytes, stream: Reader) -> None:
        self.head = head
        self.stream = stream

    def read(self, size: int = -1) -> bytes:
        """Reads up to `size` bytes (all when negative)."""
        if self.head:
            if size < 0:
                data, self.head = self.head + self.stream.read(), b""
                return data
            data, self.head = self.head[:size], self.head[size:]
            return data
        return self.stream.read(size)


def render_json(value: object, indent: int, ascii: bool = False) -> str:
    """What `json.dumps(value, indent=indent or None, ensure_ascii=ascii)` gives for plain data
    (str-keyed dicts, lists, str, int, float, bool, None), without importing `json`, which
    pulls in `re` and `enum`: a third of `orkestrel infer`'s start-up.
    """
    try:
        # Deferred for start-up time (above); the accelerator's fallback is `json`.
        from _json import encode_basestring, encode_basestring_ascii
    except ImportError:  # an interpreter without CPython's accelerator
        import json

        return json.dumps(value, indent=indent or None, ensure_ascii=ascii)
    quote = encode_basestring_ascii if ascii else encode_basestring
    parts: list[str] = []

    def emit(node: object, level: int) -> None:
        if isinstance(node, str):
            parts.append(quote(node))
        elif node is None or isinstance(node, bool):
            parts.append({None: "null", True: "true", False: "false"}[node])
        elif isinstance(node, int):
            parts.append(int.__repr__(node))
        elif isinstance(node, float):
            special = {float("inf"): "Infinity", float("-inf"): "-Infinity"}
            parts.append("NaN" if node != node else special.get(node) or float.__repr__(node))
        elif isinstance(node, dict | list):
            if not node:
                parts.append("{}" if isinstance(node, dict) else "[]")
                return
            inner = "\n" + " " * (indent * (level + 1)) if indent else ""
            parts.append(("{" if isinstance(node, dict) else "[") + inner)
            separator = "," + inner if indent else ", "
            pairs = node.items() if isinstance(node, dict) else ((None, item) for item in node)
            for at, (key, item) in enumerate(pairs):
                if at:
                    parts.append(separator)
                if isinstance(node, dict):
                    parts.append(quote(key) + ": ")
                emit(item, level + 1)
            outer = "\n" + " " * (indent * level) if indent else ""
            parts.append(outer + ("}" if isinstance(node, dict) else "]"))
        else:
            raise TypeError(f"Object of type {type(node).__name__} is not JSON serializable")

    emit(value, 0)
    return "".join(parts)
