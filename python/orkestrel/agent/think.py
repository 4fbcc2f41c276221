"""`ThinkSplitter`: separates `<think>` reasoning from the answer in a stream of content deltas."""

from __future__ import annotations

from orkestrel.agent.constants import THINK_CLOSE, THINK_OPEN

_LEADING = (THINK_OPEN, THINK_CLOSE)
_OPENING = (THINK_OPEN,)


def _held(text: str, tags: tuple[str, ...]) -> int:
    """How many trailing characters of `text` could begin one of `tags`."""
    for size in range(min(len(text), max(len(tag) for tag in tags) - 1), 0, -1):
        tail = text[-size:]
        if any(tag.startswith(tail) for tag in tags):
            return size
    return 0


def _earliest(text: str, tags: tuple[str, ...]) -> tuple[int, str] | None:
    found = [(index, tag) for tag in tags if (index := text.find(tag)) >= 0]
    return min(found) if found else None


class ThinkSplitter:
    """Splits raw content deltas into clean content and the reasoning inside `<think>…</think>`.

    One splitter serves one stream. A tag cut across deltas is held back until it can be told
    apart from text. A `</think>` that comes before any `<think>` (chat templates that open the
    span themselves) turns everything seen so far into reasoning. Whitespace right after a
    closing tag is dropped. `flush()` ends the stream: an unclosed span counts as reasoning and
    an unfinished tag as content.
    """

    __slots__ = ("_content", "_held", "_inside", "_tagged", "_thinking", "_trim")

    def __init__(self) -> None:
        self._content: list[str] = []
        self._thinking: list[str] = []
        self._held = ""
        self._inside = False
        self._tagged = False
        self._trim = False

    @property
    def content(self) -> str:
        """The clean content so far: the authoritative answer once the stream is flushed."""
        return "".join(self._content)

    @property
    def thinking(self) -> str:
        """The reasoning gathered so far, without surrounding whitespace."""
        return "".join(self._thinking).strip()

    def split(self, delta: str) -> str:
        """Takes one raw content delta and returns its clean content, possibly empty."""
        text = self._held + delta
        self._held = ""
        out: list[str] = []
        while text:
            if self._inside:
                index = text.find(THINK_CLOSE)
                if index >= 0:
                    self._thinking.append(text[:index])
                    text = text[index + len(THINK_CLOSE) :]
                    self._inside = False
                    self._trim = True
                    continue
                keep = _held(text, (THINK_CLOSE,))
                self._thinking.append(text[: len(text) - keep])
                self._held = text[len(text) - keep :]
                break
            tags = _OPENING if self._tagged else _LEADING
            found = _earliest(text, tags)
            if found is None:
                keep = _held(text, tags)
                self._emit(out, text[: len(text) - keep])
                self._held = text[len(text) - keep :]
                break
            index, tag = found
            self._emit(out, text[:index])
            text = text[index + len(tag) :]
            self._tagged = True
            if tag == THINK_OPEN:
                self._inside = True
            else:
                self._thinking.append("".join(self._content))
                self._content.clear()
                out.clear()
                self._trim = True
        return "".join(out)

    def flush(self) -> str:
        """Ends the stream and returns the clean content still held back, possibly empty."""
        held, self._held = self._held, ""
        if self._inside:
            self._thinking.append(held)
            return ""
        out: list[str] = []
        self._emit(out, held)
        return "".join(out)

    def _emit(self, out: list[str], piece: str) -> None:
        if self._trim:
            piece = piece.lstrip()
            if not piece:
                return
            self._trim = False
        if piece:
            out.append(piece)
            self._content.append(piece)

    def __repr__(self) -> str:
        state = "inside" if self._inside else "outside"
        return f"<ThinkSplitter {state} content={len(self.content)} thinking={len(self.thinking)}>"
