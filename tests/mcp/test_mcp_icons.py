"""Icons of `orkestrel serve --icon` (and `create_server(icons=)`), read by the official client
on both SDK lines and by the `fastmcp` client: announced in the server's info and on every
tool, resource template and prompt; unsafe ones refused at start with one line."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from orkestrel.cli.serve import run_serve
from orkestrel.mcp import create_server
from orkestrel.mcp.errors import IconError
from orkestrel.mcp.icons import ICON_CHARS_TOTAL, ICON_SRC_CHARS, MAX_ICONS
from orkestrel.tool import ToolManager
from support.mcp_client import MAJOR, MODES, connect, raw_session, stdio, types_module, wire
from support.serve_http import parse_serve
from support.serve_process import ServeProcess

pytestmark = pytest.mark.anyio

ORKESTREL = [sys.executable, "-m", "orkestrel"]
PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAIAAAUAAeIm"
    "BZsAAAAASUVORK5CYII="
)
ICONS = [
    "https://icons.example/orkestrel.svg,sizes=any,mimeType=image/svg+xml,theme=dark",
    PNG + ",sizes=1x1 48x48",
]
WIRE = [
    {
        "src": "https://icons.example/orkestrel.svg",
        "mimeType": "image/svg+xml",
        "sizes": ["any"],
        "theme": "dark",
    },
    {"src": PNG, "mimeType": "image/png", "sizes": ["1x1", "48x48"]},
]


@asynccontextmanager
async def serve(tmp_path: Path, *argv: str, mode: str | None = None) -> AsyncIterator[Any]:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    (root / "README.md").write_text("# Project\n")
    state = ["--root", str(root), "--data", str(tmp_path / "data"), "--workflow"]
    icons = [part for text in ICONS for part in ("--icon", text)]
    parameters = stdio(ORKESTREL[0], [*ORKESTREL[1:], "serve", *state, *icons, *argv])
    async with connect(parameters, mode=mode) as client:
        yield client


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_client_reads_the_icons_in_the_server_info_and_every_listing(
    tmp_path: Path, mode: str
) -> None:
    async with serve(tmp_path, mode=None if MAJOR < 2 else mode) as client:
        info = client.server_info()
        tools = await client.list_tools()
        session = raw_session(client)
        templates = wire(await session.list_resource_templates())["resourceTemplates"]
        prompts = wire(await session.list_prompts())["prompts"]
        files = wire(await session.list_resources())["resources"]
    # The 1.x line's Icon model has no `theme`; it carries it through as an extra member.
    assert info["icons"] == WIRE
    assert {tool["name"] for tool in tools} >= {"database", "workspace", "workflow"}
    for entry in [*tools, *templates, *prompts]:
        assert entry["icons"] == WIRE, entry["name"]
    # A workspace file is the user's, not the server's: it lists no server icon.
    assert [(r["uri"], "icons" in r) for r in files] == [("workspace:///README.md", False)]


async def test_an_http_server_process_announces_its_icons_and_caps_its_completions(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    for name in ("a.md", "b.md", "c.md", "d.md"):
        (root / name).write_text(name)
    icons = [part for text in ICONS for part in ("--icon", text)]
    argv = ["--root", str(root), *icons, "--completion-values", "2"]
    server = ServeProcess(argv, tmp_path / "home")
    try:
        async with connect(server.url) as client:
            info = client.server_info()
            tools = await client.list_tools()
            ref = types_module().ResourceTemplateReference(
                type="ref/resource", uri="workspace:///{path}"
            )
            completed = wire(await raw_session(client).complete(ref, {"name": "path", "value": ""}))
    finally:
        server.stop()
    assert info["icons"] == WIRE
    assert all(tool["icons"] == WIRE for tool in tools)
    assert completed["completion"] == {"values": ["a.md", "b.md"], "total": 4, "hasMore": True}


async def test_without_icons_nothing_lists_any(tmp_path: Path) -> None:
    state = ["--root", str(tmp_path), "--data", str(tmp_path / "data")]
    parameters = stdio(ORKESTREL[0], [*ORKESTREL[1:], "serve", *state])
    async with connect(parameters) as client:
        info = client.server_info()
        tools = await client.list_tools()
        prompts = wire(await raw_session(client).list_prompts())["prompts"]
    assert "icons" not in info
    assert not any("icons" in entry for entry in [*tools, *prompts])


async def test_the_fastmcp_client_reads_the_icons(tmp_path: Path) -> None:
    pytest.importorskip("fastmcp", reason="the fastmcp client needs the 2.x SDK line")
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    icons = [part for text in ICONS for part in ("--icon", text)]
    state = ["--root", str(tmp_path), "--data", str(tmp_path / "data"), *icons]
    transport = StdioTransport(
        ORKESTREL[0], [*ORKESTREL[1:], "serve", *state], env=dict(os.environ)
    )
    async with Client(transport) as client:
        info = client.server_info
        tools = await client.list_tools()
        templates = await client.list_resource_templates()
    assert info is not None
    assert [wire(icon) for icon in info.icons or []] == WIRE
    assert all([wire(icon) for icon in tool.icons or []] == WIRE for tool in tools)
    assert all([wire(icon) for icon in t.icons or []] == WIRE for t in templates)


HOSTILE = [
    ("javascript:alert(1)", "is not an https: URL or a data:image/... URI"),
    ("http://icons.example/i.png", "is not an https: URL or a data:image/... URI"),
    ("file:///etc/passwd", "is not an https: URL or a data:image/... URI"),
    ("data:text/html;base64,PGI+", "is not a data:image/... URI"),
    ("data:image/png;base64,@@@@", "whose base64 does not decode"),
    ("https://user:secret@icons.example/i.png", "is not an https://HOST/... URL (no user info)"),
    ("https:///i.png", "is not an https://HOST/... URL"),
    ("https://icons.example:99999/i.png", "is not an https://HOST/... URL"),
    ("https://icons.example/a b.png", "holds a space, a control or non-ASCII character"),
    ("https://icons.example/\u00e9.png", "holds a space, a control or non-ASCII character"),
    ("https://icons.example/" + "a" * ICON_SRC_CHARS, f"expected at most {ICON_SRC_CHARS}"),
    ("https://icons.example/i.png,mimeType=text/html", "is not an image/... media type"),
    (PNG + ",mimeType=image/jpeg", "is not the data URI's 'image/png'"),
    ("https://icons.example/i.png,sizes=huge", "is not WxH (such as 48x48) or any"),
    ("https://icons.example/i.png,theme=neon", "is not 'light' or 'dark'"),
    ("https://icons.example/i.png,theme=dark,theme=light", "theme given twice"),
]


@pytest.mark.parametrize(("icon", "message"), HOSTILE, ids=[m for _, m in HOSTILE])
async def test_an_unsafe_icon_stops_serve_with_one_line_naming_the_option(
    tmp_path: Path, icon: str, message: str
) -> None:
    err = io.StringIO()
    options = parse_serve("--root", str(tmp_path), "--icon", "https://ok.example/i.png")
    options.icon.append(icon)
    status = await run_serve(options, stderr=err)
    (line,) = err.getvalue().splitlines()
    assert status == 2
    assert line.startswith("orkestrel serve: --icon '"), line
    assert message in line
    assert len(line) < 300  # a hostile value is shown cut, not whole


async def test_more_icons_than_the_cap_are_refused(tmp_path: Path) -> None:
    err = io.StringIO()
    many = [f"https://icons.example/{index}.png" for index in range(MAX_ICONS + 1)]
    options = parse_serve("--root", str(tmp_path), *(f"--icon={src}" for src in many))
    status = await run_serve(options, stderr=err)
    assert (status, err.getvalue()) == (
        2,
        f"orkestrel serve: --icon: {MAX_ICONS + 1} icons; expected at most {MAX_ICONS}\n",
    )


async def test_icons_over_the_total_cap_are_refused_though_each_is_within_its_own(
    tmp_path: Path,
) -> None:
    src = "https://icons.example/" + "a" * (ICON_SRC_CHARS - 30)
    count = ICON_CHARS_TOTAL // len(src) + 1
    assert count <= MAX_ICONS
    err = io.StringIO()
    options = parse_serve("--root", str(tmp_path), *(f"--icon={src}{i}" for i in range(count)))
    status = await run_serve(options, stderr=err)
    total = count * (len(src) + 1)
    assert (status, err.getvalue()) == (
        2,
        f"orkestrel serve: --icon: the icons' src hold {total} characters; "
        f"expected at most {ICON_CHARS_TOTAL}\n",
    )
    within = [{"src": f"{src[: ICON_CHARS_TOTAL // MAX_ICONS - 1]}{i}"} for i in range(MAX_ICONS)]
    assert sum(len(icon["src"]) for icon in within) == ICON_CHARS_TOTAL
    create_server(ToolManager(), icons=within)


@pytest.mark.parametrize(
    ("icons", "message"),
    [
        ([{"src": "javascript:alert(1)"}], "icons[0]: src 'javascript:alert(1)' is not an https"),
        ([{"src": "https://a.example/i.png", "onload": "x"}], "icons[0]: unknown member 'onload'"),
        ([WIRE[0], {"src": PNG, "sizes": "48x48"}], "icons[1]: sizes '48x48' is not a list"),
        ([{"src": 7}], "icons[0]: src 7 is not a URI"),
        ("https://a.example/i.png", "icons: expected a list of icons, got str"),
    ],
)
def test_the_python_factory_refuses_unsafe_icons_naming_the_member(
    icons: Any, message: str
) -> None:
    with pytest.raises(IconError) as refused:
        create_server(ToolManager(), icons=icons)
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)
