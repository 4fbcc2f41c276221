"""The icons a server announces (MCP `Icon`: `src`, `mimeType`, `sizes`, `theme`), checked
before anything is served: a client renders them, so only an `https:` URL or a `data:image/`
URI of bounded length, with an image media type, gets through."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from orkestrel.mcp.errors import IconError

MAX_ICONS = 8
"""The most icons one server announces."""

ICON_SRC_CHARS = 8192
"""The longest icon `src` accepted, in characters (a `data:` URI included): the icons go out
with the server's info and on every tool, template and prompt listed."""

ICON_CHARS_TOTAL = 16384
"""The most `src` characters all of a server's icons hold together: each is copied onto every
tool, template and prompt listed, so this bounds what the icons add to a listing (about 16 KiB
per listed item, not `MAX_ICONS` times `ICON_SRC_CHARS`)."""

MAX_ICON_SIZES = 16
"""The most `sizes` one icon lists."""

KEYS = ("src", "mimeType", "sizes", "theme")
"""The members an icon may have."""

_MEDIA = re.compile(r"image/[a-z0-9][a-z0-9.+-]{0,99}")
_SIZE = re.compile(r"any|[1-9][0-9]{0,4}x[1-9][0-9]{0,4}")
_DATA = re.compile(r"data:(image/[a-z0-9][a-z0-9.+-]{0,99})((?:;[a-z0-9=.+-]+)*),(.+)", re.I)
_KEYED = re.compile(r"(sizes|mimeType|theme)=(.*)", re.S)


def check_icons(icons: Sequence[Mapping[str, Any]], option: str = "icons") -> list[dict[str, Any]]:
    """The wire form of `icons`, each checked; raises `IconError` naming `option[i].member`
    for the first one that is not a safe icon: a `src` that is not an `https:` URL with a host
    (and no user info) nor a `data:image/...` URI, or is over `ICON_SRC_CHARS` characters or
    holds a space, a control or non-ASCII character; a `mimeType` that is not `image/...` (or
    not the data URI's own); `sizes` that are not `WxH` or `any`; a `theme` other than `light`
    or `dark`; another member; more than `MAX_ICONS` icons, or more than `ICON_CHARS_TOTAL`
    `src` characters in all."""
    if isinstance(icons, str | bytes | Mapping) or not isinstance(icons, Sequence):
        raise IconError(option, f"expected a list of icons, got {type(icons).__name__}")
    if len(icons) > MAX_ICONS:
        raise IconError(option, f"{len(icons)} icons; expected at most {MAX_ICONS}")
    checked = [_check(icon, f"{option}[{index}]") for index, icon in enumerate(icons)]
    total = sum(len(icon["src"]) for icon in checked)
    if total > ICON_CHARS_TOTAL:
        raise IconError(
            option, f"the icons' src hold {total} characters; expected at most {ICON_CHARS_TOTAL}"
        )
    return checked


def parse_icon(text: str, option: str = "--icon") -> dict[str, Any]:
    """The icon one `--icon SRC[,sizes=WxH WxH][,mimeType=image/...][,theme=light|dark]`
    names, checked as `check_icons` does. The members follow the source after commas and are
    read from the end, so a `data:` URI keeps its own comma."""
    src, members = text, {}
    while True:
        head, comma, tail = src.rpartition(",")
        keyed = _KEYED.fullmatch(tail) if comma else None
        if keyed is None:
            break
        key, value = keyed.groups()
        if key in members:
            raise IconError(f"{option} {_shown(text)}", f"{key} given twice")
        members[key] = value.split() if key == "sizes" else value
        src = head
    return _check({"src": src, **members}, f"{option} {_shown(text)}")


def _check(icon: Any, where: str) -> dict[str, Any]:
    if not isinstance(icon, Mapping):
        raise IconError(where, f"expected an icon object, got {type(icon).__name__}")
    stray = [str(key) for key in icon if key not in KEYS]
    if stray:
        raise IconError(where, f"unknown member {_shown(stray[0])}; expected {', '.join(KEYS)}")
    src = icon.get("src")
    media = _src(src, where)
    checked: dict[str, Any] = {"src": src}
    mime = icon.get("mimeType")
    if mime is not None:
        if not isinstance(mime, str) or not _MEDIA.fullmatch(mime.lower()):
            raise IconError(where, f"mimeType {_shown(mime)} is not an image/... media type")
        if media is not None and mime.lower() != media:
            raise IconError(where, f"mimeType {_shown(mime)} is not the data URI's {media!r}")
        checked["mimeType"] = mime.lower()
    elif media is not None:
        checked["mimeType"] = media
    sizes = icon.get("sizes")
    if sizes is not None:
        if isinstance(sizes, str) or not isinstance(sizes, Sequence) or not sizes:
            raise IconError(where, f"sizes {_shown(sizes)} is not a list such as ['48x48']")
        if len(sizes) > MAX_ICON_SIZES:
            raise IconError(where, f"{len(sizes)} sizes; expected at most {MAX_ICON_SIZES}")
        for size in sizes:
            if not isinstance(size, str) or not _SIZE.fullmatch(size):
                raise IconError(where, f"size {_shown(size)} is not WxH (such as 48x48) or any")
        checked["sizes"] = list(sizes)
    theme = icon.get("theme")
    if theme is not None:
        if theme not in ("light", "dark"):
            raise IconError(where, f"theme {_shown(theme)} is not 'light' or 'dark'")
        checked["theme"] = theme
    return checked


def _src(src: Any, where: str) -> str | None:
    """Checks an icon's `src`; gives a `data:` URI's media type (`None` for an URL)."""
    if not isinstance(src, str) or not src:
        raise IconError(where, f"src {_shown(src)} is not a URI")
    if len(src) > ICON_SRC_CHARS:
        raise IconError(where, f"src is {len(src)} characters; expected at most {ICON_SRC_CHARS}")
    if not src.isascii() or not src.isprintable() or " " in src:
        raise IconError(where, f"src {_shown(src)} holds a space, a control or non-ASCII character")
    scheme = src.partition(":")[0].lower()
    if scheme == "https":
        try:
            parts = urlsplit(src)
            parts.port  # noqa: B018 - a port that is not a number raises here
        except ValueError:
            parts = None
        if parts is None or not parts.hostname or "@" in parts.netloc:
            raise IconError(
                where, f"src {_shown(src)} is not an https://HOST/... URL (no user info)"
            )
        return None
    if scheme == "data":
        data = _DATA.fullmatch(src)
        if data is None:
            raise IconError(where, f"src {_shown(src)} is not a data:image/... URI")
        media, parameters, payload = data.groups()
        if ";base64" in parameters.lower():
            try:
                base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError):
                raise IconError(where, "src is a data URI whose base64 does not decode") from None
        return media.lower()
    raise IconError(
        where, f"src {_shown(src)} is not an https: URL or a data:image/... URI (only those)"
    )


def _shown(value: Any) -> str:
    """`value` as a short repr for an error line (a hostile value may be long)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
