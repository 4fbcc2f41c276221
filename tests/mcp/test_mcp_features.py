"""Resources, prompts and completions of `orkestrel serve`, read by the SDK's own client over
stdio: workspace files through the workspace tool's own refusals, bounded completions, and the
capabilities the guide's feature table lists."""

from __future__ import annotations

import base64
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from support.mcp_client import (
    MAJOR,
    MODES,
    Session,
    connect,
    raw_session,
    stdio,
    types_module,
    until,
    wire,
)

pytestmark = pytest.mark.anyio

ORKESTREL = [sys.executable, "-m", "orkestrel"]
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "serve.md"
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


@asynccontextmanager
async def serve(tmp_path: Path, *argv: str, mode: str | None = None) -> AsyncIterator[Any]:
    state = ["--root", str(tmp_path / "root"), "--data", str(tmp_path / "data")]
    parameters = stdio(ORKESTREL[0], [*ORKESTREL[1:], "serve", *state, *argv])
    async with connect(parameters, mode=mode) as client:
        yield client


def session(client: Session) -> Any:
    return raw_session(client)


async def list_resources(client: Session, cursor: str | None = None) -> dict[str, Any]:
    params = types_module().PaginatedRequestParams(cursor=cursor)
    return wire(await session(client).list_resources(params=params))  # type: ignore[no-any-return]


async def read(client: Session, uri: str) -> Any:
    try:
        return wire(await session(client).read_resource(uri))
    except Exception as error:
        return ("error", str(getattr(error, "error", error)))


async def complete(client: Session, ref: dict[str, Any], name: str, value: str) -> Any:
    kind = "ResourceTemplateReference" if ref["type"] == "ref/resource" else "PromptReference"
    model = getattr(types_module(), kind).model_validate(ref)
    try:
        return wire(await session(client).complete(model, {"name": name, "value": value}))
    except Exception as error:
        return ("error", str(getattr(error, "error", error)))


def project(tmp_path: Path, files: int = 3) -> Path:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    for index in range(files):
        (root / "src" / f"f{index:03}.py").write_text(f"print({index})\n")
    (root / "README.md").write_text("# Project\n")
    return root


async def test_workspace_files_are_listed_in_pages_and_read_with_a_mime_type(
    tmp_path: Path,
) -> None:
    project(tmp_path, files=150)
    async with serve(tmp_path) as client:
        first = await list_resources(client)
        second = await list_resources(client, first["nextCursor"])
        templates = wire(await session(client).list_resource_templates())
        readme = await read(client, "workspace:///README.md")
    uris = [r["uri"] for r in first["resources"] + second["resources"]]
    assert len(first["resources"]) == 100
    assert "nextCursor" not in second
    assert len(uris) == len(set(uris)) == 151
    assert "workspace:///src/f149.py" in uris
    assert {t["uriTemplate"]: t["title"] for t in templates["resourceTemplates"]} == {
        "workspace:///{path}": "Workspace file",
        "database:///{id}/tables": "Database tables",
    }
    assert readme["contents"] == [
        {"uri": "workspace:///README.md", "mimeType": "text/markdown", "text": "# Project\n"}
    ]


async def test_a_forged_cursor_is_refused(tmp_path: Path) -> None:
    project(tmp_path)
    async with serve(tmp_path) as client:
        with pytest.raises(Exception, match="never issued the cursor 'abc'"):
            await list_resources(client, "abc")


async def test_hostile_uris_get_the_workspace_tools_answers(tmp_path: Path) -> None:
    root = project(tmp_path)
    (tmp_path / "secret.txt").write_text("outside\n")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    async with serve(tmp_path) as client:
        tool = await client.call_tool("workspace", {"operation": "read", "path": "../secret.txt"})
        traversal = await read(client, "workspace:///../secret.txt")
        encoded = await read(client, "workspace:///%2e%2e/secret.txt")
        linked = await read(client, "workspace:///link.txt")
        linked_tool = await client.call_tool("workspace", {"operation": "read", "path": "link.txt"})
        foreign = await read(client, "file:///etc/passwd")
    # The tool refuses a path out of the root, naming it; the resource says so for each spelling.
    assert (tool.get("isError"), tool["content"][0]["text"]) == (
        True,
        "Path must be relative and normalized (no empty, '.' or '..' parts): '../secret.txt'",
    )
    assert traversal[0] == encoded[0] == linked[0] == "error"
    # The 1.x line's URL model resolves the dot segments first (to workspace:///secret.txt,
    # which names no file); on 2.x the path reaches the tool, which refuses it.
    outside = (
        "Path must be relative and normalized (no empty, '.' or '..' parts): '../secret.txt'"
        if MAJOR >= 2
        else "workspace:///secret.txt names no file under the root"
    )
    assert outside in traversal[1]
    assert outside in encoded[1]
    assert (linked_tool.get("isError"), linked_tool["content"][0]["text"]) == (
        True,
        "Path leads outside the workspace folder: 'link.txt'",
    )
    assert "Path leads outside the workspace folder: 'link.txt'" in linked[1]
    assert foreign[0] == "error"
    assert "'file:///etc/passwd' is not a served resource" in foreign[1]


HOSTILE_URIS = {
    # URI after workspace:/// -> the path the workspace tool is asked for
    "..%2Fsecret.txt": "../secret.txt",
    "%2Fetc%2Fpasswd": "/etc/passwd",
    "/etc/passwd": "/etc/passwd",
    "src%00/f000.py": "src\x00/f000.py",
    "..%5Csecret.txt": "..\\secret.txt",
    "linkdir/secret.txt": "linkdir/secret.txt",
    "linkdir%2Fsecret.txt": "linkdir/secret.txt",
    ".orkestrel/definitions.sqlite3": ".orkestrel/definitions.sqlite3",
    "a" * 200_000: "a" * 200_000,
}
"""Spellings of a path out of the root, or into what the workspace hides, each answered as the
tool answers the path it decodes to (the data folder is `.orkestrel` under the root)."""


async def test_encoded_absolute_nul_and_symlinked_folder_uris_get_the_tools_own_answers(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    (tmp_path / "secret.txt").write_text("outside\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("outside\n")
    os.symlink(tmp_path / "outside", root / "linkdir")
    state = ["--root", str(root)]  # the data folder in its default place, under the root
    parameters = stdio(ORKESTREL[0], [*ORKESTREL[1:], "serve", *state])
    async with connect(parameters) as client:
        await create_databases(client, ["shop"])
        answers = {}
        for uri, path in HOSTILE_URIS.items():
            tool = await client.call_tool("workspace", {"operation": "read", "path": path})
            answers[uri] = (tool, await refusal(client, "workspace:///" + uri))
        double = await refusal(client, "workspace:///%252e%252e/secret.txt")
        database = await refusal(client, "database:///..%2F..%2Fetc/tables")
    for uri, (tool, line) in answers.items():
        assert tool.get("isError") is True, uri[:40]
        # The tool's own line, no more (a 200,000-character path is named cut, not echoed).
        assert line == tool["content"][0]["text"], uri[:40]
        assert len(line) < 400
    # Decoded once only: %252e is the literal name '%2e', which is no file under the root.
    assert (
        double == "resources/read: workspace:///%252e%252e/secret.txt names no file under the root"
    )
    assert database == "unknown database '../../etc'"


async def refusal(client: Session, uri: str) -> str:
    """The message of the error `resources/read` of `uri` answers."""
    try:
        answer = await session(client).read_resource(uri)
    except Exception as error:
        return str(error.error.message)  # type: ignore[attr-defined]
    raise AssertionError(f"{uri[:60]} was read: {wire(answer)}")


async def test_completions_are_paths_under_the_root_bounded_and_huge_prefixes_refused(
    tmp_path: Path,
) -> None:
    project(tmp_path, files=150)
    ref = {"type": "ref/resource", "uri": "workspace:///{path}"}
    async with serve(tmp_path) as client:
        some = await complete(client, ref, "path", "src/f14")
        many = await complete(client, ref, "path", "src/")
        prompt = await complete(client, {"type": "ref/prompt", "name": "edit_files"}, "path", "REA")
        huge = await complete(client, ref, "path", "a" * 100_000)
    assert some["completion"]["values"] == [f"src/f14{i}.py" for i in range(10)]
    assert len(many["completion"]["values"]) == 100
    assert many["completion"]["total"] == 150
    assert many["completion"]["hasMore"] is True
    assert prompt["completion"]["values"] == ["README.md"]
    assert huge[0] == "error"
    assert "100000 characters; expected at most 1024" in huge[1]


@pytest.mark.parametrize("mode", MODES)
async def test_prompts_are_served_with_titles_and_arguments_on_each_era(
    tmp_path: Path, mode: str
) -> None:
    project(tmp_path)
    async with serve(tmp_path, "--workflow", mode=None if MAJOR < 2 else mode) as client:
        listed = wire(await session(client).list_prompts())
        got = wire(await session(client).get_prompt("edit_files", {"path": "README.md"}))
    assert {p["name"]: p["title"] for p in listed["prompts"]} == {
        "explore_database": "Explore a database",
        "edit_files": "Edit files safely",
        "author_workflow": "Author a workflow",
    }
    assert "Edit README.md with the workspace tool" in got["messages"][0]["content"]["text"]


async def test_tools_selection_applies_to_resources_and_prompts(tmp_path: Path) -> None:
    project(tmp_path)
    async with serve(tmp_path, "--tools", "database") as client:
        resources = await list_resources(client)
        templates = wire(await session(client).list_resource_templates())
        prompts = wire(await session(client).list_prompts())
        refused = await read(client, "workspace:///README.md")
    assert resources["resources"] == []
    assert [t["name"] for t in templates["resourceTemplates"]] == ["database-tables"]
    assert [p["name"] for p in prompts["prompts"]] == ["explore_database"]
    assert refused[0] == "error"


async def test_readonly_still_reads_resources(tmp_path: Path) -> None:
    project(tmp_path)
    async with serve(tmp_path, "--readonly") as client:
        readme = await read(client, "workspace:///README.md")
    assert readme["contents"][0]["text"] == "# Project\n"


async def test_the_guides_feature_table_matches_the_announced_capabilities(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    # With the workflow tool, whose calls can run as tasks.
    async with serve(tmp_path, "--workflow") as client:
        capabilities = client.capabilities()
    table = GUIDE.read_text().split("<!-- features -->")[1]
    rows = re.findall(r"^\| `(\w+)` \| (yes|no) \| (yes|no) \|", table, re.MULTILINE)
    assert rows
    for feature, served, _ in rows:
        if feature == "extensions" and MAJOR < 2:
            continue  # the 1.x line declares no extensions
        assert (feature in capabilities) == (served == "yes"), feature
    named = re.findall(r"^\| `extensions` \| yes \| no \| `([\w./-]+)`", table, re.MULTILINE)
    if MAJOR >= 2:
        assert list(capabilities["extensions"]) == named
    if MAJOR >= 2:
        # The resources row says the fastmcp client cannot subscribe: it has no such call.
        from fastmcp import Client

        assert "fastmcp` 4.2 client has no call to subscribe" in table
        assert not [name for name in dir(Client) if "subscribe" in name.lower()]
    if MAJOR >= 2:
        # The SDK's `MCPServer` with one tool, resource, prompt and completion handler each.
        from mcp.server.mcpserver import MCPServer

        reference = MCPServer("reference")

        def echo() -> str:
            return "x"

        async def no_completion(*_: Any) -> None:
            return None

        reference.tool()(echo)
        reference.resource("note://x")(echo)
        reference.prompt()(echo)
        reference.completion()(no_completion)
        async with connect(reference) as sdk_client:
            announced = sdk_client.capabilities()
        for feature, _, sdk_serves in rows:
            assert (feature in announced) == (sdk_serves == "yes"), feature


async def test_a_databases_table_definitions_are_a_resource(tmp_path: Path) -> None:
    project(tmp_path)
    shop = {"products": {"columns": {"name": "string", "price": "number"}}}
    async with serve(tmp_path) as client:
        await client.call_tool("database", {"operation": "create", "id": "shop", "tables": shop})
        tool = await client.call_tool("database", {"operation": "tables", "id": "shop"})
        tables = await read(client, "database:///shop/tables")
    (content,) = tables["contents"]
    assert content["uri"] == "database:///shop/tables"
    assert content["mimeType"] == "application/json"
    assert json.loads(content["text"]) == json.loads(tool["content"][0]["text"])
    assert "products" in content["text"]


async def test_the_fastmcp_client_reads_resources_prompts_and_completions(tmp_path: Path) -> None:
    pytest.importorskip("fastmcp", reason="the fastmcp client needs the 2.x SDK line")
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    (project(tmp_path) / "logo.png").write_bytes(PNG)
    state = ["--root", str(tmp_path / "root"), "--data", str(tmp_path / "data")]
    transport = StdioTransport(
        ORKESTREL[0], [*ORKESTREL[1:], "serve", *state], env=dict(os.environ)
    )
    async with Client(transport) as client:
        resources = await client.list_resources()
        contents = await client.read_resource("workspace:///README.md")
        image = await client.read_resource("workspace:///logo.png")
        prompt = await client.get_prompt("edit_files", {"path": "README.md"})
        completed = await client.complete(
            {"type": "ref/resource", "uri": "workspace:///{path}"}, {"name": "path", "value": "R"}
        )
    assert "workspace:///README.md" in [str(r.uri) for r in resources]
    assert [getattr(c, "text", None) for c in contents] == ["# Project\n"]
    assert "Edit README.md" in prompt.messages[0].content.text  # type: ignore[union-attr]
    assert completed.values == ["README.md"]
    assert [(c.mime_type, base64.b64decode(getattr(c, "blob", ""))) for c in image] == [
        ("image/png", PNG)
    ]


async def test_a_written_file_announces_a_changed_resource_list(tmp_path: Path) -> None:
    project(tmp_path)
    async with serve(tmp_path, mode="legacy" if MAJOR >= 2 else None) as client:
        resources = client.capabilities()["resources"]
        await client.call_tool("workspace", {"operation": "read", "path": "README.md"})
        quiet = [n["method"] for n in client.notifications]
        write = {"operation": "write", "path": "new.md", "content": "new\n"}
        await client.call_tool("workspace", write)
        await until(
            lambda: (
                "notifications/resources/list_changed"
                in [n["method"] for n in client.notifications]
            )
        )
        listed = await list_resources(client)
    assert resources["listChanged"] is True
    assert "notifications/resources/list_changed" not in quiet
    assert "workspace:///new.md" in [r["uri"] for r in listed["resources"]]


async def test_bad_prompt_requests_get_one_line_refusals(tmp_path: Path) -> None:
    project(tmp_path)

    async def get(name: str, arguments: dict[str, str]) -> Any:
        try:
            return wire(await session(client).get_prompt(name, arguments))
        except Exception as error:
            return ("error", str(getattr(error, "error", error)))

    async with serve(tmp_path) as client:
        unknown = await get("nope", {})
        missing = await get("edit_files", {})
        huge = await get("edit_files", {"path": "a" * 100_000})
    assert "prompts/get: no prompt named 'nope'" in unknown[1]
    assert "prompts/get edit_files: argument 'path' is required" in missing[1]
    assert "argument 'path' is 100000 characters; expected at most 4096" in huge[1]


async def test_a_kept_workflow_runs_snapshot_is_a_resource_read_in_pages(tmp_path: Path) -> None:
    project(tmp_path)
    steps = [{"name": "infer", "input": {"samples": [index]}} for index in range(60)]
    async with serve(tmp_path, "--workflow") as client:
        templates = wire(await session(client).list_resource_templates())
        await client.call_tool("workflow", {"name": "many", "steps": steps})
        tool = await client.call_tool("workflow", {"run": "many"})
        first = await read(client, "workflow:///runs/many")
        rest = await read(client, "workflow:///runs/many?offset=50")
        unknown = await read(client, "workflow:///runs/nothing")
        hostile = [
            await read(client, uri)
            for uri in (
                "workflow:///runs/many?offset=-1",
                "workflow:///runs/many?offset=99999999999999",
                "workflow:///runs/many?limit=5000",
                "workflow:///runs/..%2F..%2Fetc%2Fpasswd",
            )
        ]
    assert "workflow:///runs/{id}" in [t["uriTemplate"] for t in templates["resourceTemplates"]]
    (content,) = first["contents"]
    assert content["mimeType"] == "application/json"
    page = json.loads(content["text"])
    assert page == tool["structuredContent"]
    assert (page["run"], page["status"], page["total"], len(page["tasks"]), page["more"]) == (
        "many",
        "completed",
        60,
        50,
        10,
    )
    tail = json.loads(rest["contents"][0]["text"])
    assert (tail["offset"], len(tail["tasks"]), "more" in tail) == (50, 10, False)
    assert unknown[0] == "error"
    assert "run: no stored run 'nothing'" in unknown[1]
    assert [answer[0] for answer in hostile] == ["error"] * 4
    assert "expected ?offset=N" in hostile[0][1]
    assert "expected ?offset=N" in hostile[1][1]
    assert "expected ?offset=N" in hostile[2][1]
    assert "run: no stored run '../../etc/passwd'" in hostile[3][1]


# The 2.x client deprecates `resources/subscribe`, which the 2025 era this test speaks still has.
@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
async def test_a_subscribed_file_written_through_the_tool_announces_its_update(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    async with serve(tmp_path, mode="legacy" if MAJOR >= 2 else None) as client:
        resources = client.capabilities()["resources"]
        raw = session(client)
        await raw.subscribe_resource("workspace:///README.md")
        await raw.subscribe_resource("workspace:///src/f000.py")
        refused = []
        for uri in ("database:///shop/tables", "file:///etc/passwd", "workspace:///" + "a" * 5000):
            try:
                await raw.subscribe_resource(uri)
            except Exception as error:
                refused.append(str(getattr(error, "error", error)))
        other = {"operation": "write", "path": "other.md", "content": "x\n"}
        await client.call_tool("workspace", other)
        write = {"operation": "write", "path": "README.md", "content": "# Changed\n"}
        await client.call_tool("workspace", write)
        moved = {"operation": "move", "from": "src/f000.py", "to": "src/g.py"}
        await client.call_tool("workspace", moved)

        def updated() -> list[str]:
            return [
                n["params"]["uri"]
                for n in client.notifications
                if n["method"] == "notifications/resources/updated"
            ]

        await until(lambda: len(updated()) >= 2)
        await raw.unsubscribe_resource("workspace:///README.md")
        await client.call_tool("workspace", write)
        await client.call_tool("workspace", other)
        after = list(updated())
    assert resources["subscribe"] is True
    assert after == ["workspace:///README.md", "workspace:///src/f000.py"]
    assert len(refused) == 3
    assert all("only workspace files announce updates" in line for line in refused)


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
async def test_subscribing_without_the_workspace_tool_is_refused(tmp_path: Path) -> None:
    project(tmp_path)
    async with serve(tmp_path, "--tools", "database", mode="legacy" if MAJOR >= 2 else None) as c:
        try:
            await session(c).subscribe_resource("workspace:///README.md")
            refused = ""
        except Exception as error:
            refused = str(getattr(error, "error", error))
    assert "this server serves no workspace tool, so no workspace file" in refused


@pytest.mark.skipif(MAJOR < 2, reason="subscriptions/listen is the 2026 era, on the 2.x line")
async def test_a_listen_stream_hears_of_its_subscribed_files_updates(tmp_path: Path) -> None:
    project(tmp_path)
    async with (
        serve(tmp_path, mode="auto") as client,
        client.client.listen(resource_subscriptions=["workspace:///README.md"]) as stream,
    ):
        await client.call_tool(
            "workspace", {"operation": "write", "path": "other.md", "content": "x\n"}
        )
        await client.call_tool(
            "workspace", {"operation": "replace", "query": "Project", "replacement": "P"}
        )
        with anyio.fail_after(10):
            event = await stream.__anext__()
    assert event.uri == "workspace:///README.md"


async def test_an_image_is_read_as_a_base64_blob_and_the_model_still_gets_no_bytes(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    (root / "logo.png").write_bytes(PNG)
    async with serve(tmp_path) as client:
        listed = await list_resources(client)
        image = await read(client, "workspace:///logo.png")
        text = await read(client, "workspace:///README.md")
        tool = await client.call_tool("workspace", {"operation": "read", "path": "logo.png"})
    entry = next(r for r in listed["resources"] if r["uri"] == "workspace:///logo.png")
    assert (entry["mimeType"], entry["size"]) == ("image/png", len(PNG))
    (content,) = image["contents"]
    assert content["mimeType"] == "image/png"
    assert "text" not in content
    assert base64.b64decode(content["blob"]) == PNG
    assert text["contents"][0]["text"] == "# Project\n"
    assert "blob" not in text["contents"][0]
    assert "iVBOR" not in json.dumps(tool)


async def create_databases(client: Session, ids: list[str]) -> None:
    tables = {"products": {"columns": {"name": "string"}}, "prices": {"columns": {"x": "number"}}}
    for id in ids:
        created = await client.call_tool(
            "database", {"operation": "create", "id": id, "tables": tables}
        )
        assert created.get("isError") is not True, created


async def test_database_ids_and_table_names_complete_bounded_and_hostile_prefixes_answer_cleanly(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    template = {"type": "ref/resource", "uri": "database:///{id}/tables"}
    prompt = {"type": "ref/prompt", "name": "explore_database"}
    odd = ["shop", "shipping", "50%_off", "naïve café", "other"]
    async with serve(tmp_path) as client:
        await create_databases(client, [*odd, *(f"bulk{i:03}" for i in range(110))])
        some = await complete(client, template, "id", "sh")
        every = await complete(client, template, "id", "")
        bulk = await complete(client, template, "id", "bulk10")
        wildcard = await complete(client, template, "id", "50%")
        like = await complete(client, template, "id", "%")
        underscore = await complete(client, template, "id", "_")
        accented = await complete(client, prompt, "id", "naïve")
        nul = await complete(client, template, "id", "sh\x00")
        huge = await complete(client, template, "id", "s" * 100_000)
        params = types_module().PromptReference.model_validate(prompt)
        tables = wire(
            await session(client).complete(
                params, {"name": "table", "value": "pr"}, context_arguments={"id": "shop"}
            )
        )
        one = wire(
            await session(client).complete(
                params, {"name": "table", "value": "pri"}, context_arguments={"id": "shop"}
            )
        )
        unknown = wire(
            await session(client).complete(
                params, {"name": "table", "value": "p"}, context_arguments={"id": "nope"}
            )
        )
        without = await complete(client, prompt, "table", "p")
        got = wire(
            await session(client).get_prompt("explore_database", {"id": "shop", "table": "prices"})
        )
    assert some["completion"]["values"] == ["shipping", "shop"]
    assert len(every["completion"]["values"]) == 100
    assert every["completion"]["total"] == 115
    assert every["completion"]["hasMore"] is True
    assert bulk["completion"]["values"] == [f"bulk{i}" for i in range(100, 110)]
    # A prefix is text, never a pattern: % and _ match only themselves.
    assert wildcard["completion"]["values"] == ["50%_off"]
    assert like["completion"]["values"] == []
    assert underscore["completion"]["values"] == []
    assert accented["completion"]["values"] == ["naïve café"]
    assert nul["completion"] == {"values": [], "total": 0, "hasMore": False}
    assert huge[0] == "error"
    assert "100000 characters; expected at most 1024" in huge[1]
    assert tables["completion"]["values"] == ["prices", "products"]
    assert one["completion"]["values"] == ["prices"]
    assert unknown["completion"]["values"] == []
    assert without["completion"]["values"] == []
    assert "the table prices" in got["messages"][0]["content"]["text"]


async def test_the_fastmcp_client_completes_database_ids_and_reads_a_binary_blob(
    tmp_path: Path,
) -> None:
    pytest.importorskip("fastmcp", reason="the fastmcp client needs the 2.x SDK line")
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    (project(tmp_path) / "bundle.zip").write_bytes(b"PK\x03\x04\xff\x00")
    state = ["--root", str(tmp_path / "root"), "--data", str(tmp_path / "data")]
    transport = StdioTransport(
        ORKESTREL[0], [*ORKESTREL[1:], "serve", *state], env=dict(os.environ)
    )
    template = {"type": "ref/resource", "uri": "database:///{id}/tables"}
    prompt = {"type": "ref/prompt", "name": "explore_database"}
    async with Client(transport) as client:
        for id in ("shop", "shipping", "other"):
            await client.call_tool(
                "database",
                {"operation": "create", "id": id, "tables": {"products": {"columns": {}}}},
            )
        ids = await client.complete(template, {"name": "id", "value": "sh"})
        tables = await client.complete(
            prompt,
            {"name": "table", "value": "p"},
            context_arguments={"id": "shop"},
        )
        bundle = await client.read_resource("workspace:///bundle.zip")
    assert [(c.mime_type, base64.b64decode(getattr(c, "blob", ""))) for c in bundle] == [
        ("application/zip", b"PK\x03\x04\xff\x00")
    ]
    assert ids.values == ["shipping", "shop"]
    assert tables.values == ["products"]


async def test_a_binary_file_that_is_no_image_is_listed_and_read_as_a_blob_within_the_caps(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    archive = bytes(range(256)) * 4
    (root / "bundle.zip").write_bytes(archive)
    raw = b"\xff\xfe\x00binary"
    (root / "blob.bin").write_bytes(raw)
    (root / "latin1.txt").write_bytes("café".encode("latin-1"))
    (root / ".git").mkdir()
    (root / ".git" / "index").write_bytes(b"\xff\x00ignored")
    (root / "huge.bin").write_bytes(b"\xff" * (8 * 1024 * 1024 + 1))
    (tmp_path / "outside.bin").write_bytes(b"\xff\x00secret")
    os.symlink(tmp_path / "outside.bin", root / "link.bin")
    async with serve(tmp_path) as client:
        listed = await list_resources(client)
        bundle = await read(client, "workspace:///bundle.zip")
        blob = await read(client, "workspace:///blob.bin")
        latin = await read(client, "workspace:///latin1.txt")
        ignored = await read(client, "workspace:///.git/index")
        huge = await read(client, "workspace:///huge.bin")
        linked = await read(client, "workspace:///link.bin")
        tool = await client.call_tool("workspace", {"operation": "read", "path": "bundle.zip"})
        model_list = await client.call_tool("workspace", {"operation": "list"})
    entries = {r["uri"]: (r["mimeType"], r["size"]) for r in listed["resources"]}
    assert entries["workspace:///bundle.zip"] == ("application/zip", len(archive))
    assert entries["workspace:///blob.bin"] == ("application/octet-stream", len(raw))
    assert "workspace:///huge.bin" not in entries
    assert "workspace:///.git/index" not in entries
    assert "workspace:///link.bin" not in entries
    assert [(c["mimeType"], base64.b64decode(c["blob"])) for c in bundle["contents"]] == [
        ("application/zip", archive)
    ]
    assert [(c["mimeType"], base64.b64decode(c["blob"])) for c in blob["contents"]] == [
        ("application/octet-stream", raw)
    ]
    assert [(c["mimeType"], base64.b64decode(c["blob"])) for c in latin["contents"]] == [
        ("text/plain", "café".encode("latin-1"))
    ]
    # A refused file's resource answers the workspace store's own line, as the tool does.
    for refused, line in (
        (ignored, "Path enters an ignored name '.git': '.git/index'"),
        (huge, "File is over the 8388608-byte limit: 'huge.bin'"),
        (linked, "Path leads outside the workspace folder: 'link.bin'"),
    ):
        assert refused[0] == "error"
        assert line in refused[1]
    # The model reads no bytes, is told why, and lists only the files it can read.
    assert (tool.get("isError"), tool["content"][0]["text"]) == (
        True,
        "File is neither UTF-8 text nor a supported image: 'bundle.zip'",
    )
    assert "bundle.zip" not in json.dumps(model_list)


async def test_completion_values_caps_every_completion_with_the_true_total_and_has_more(
    tmp_path: Path,
) -> None:
    project(tmp_path, files=150)
    path = {"type": "ref/resource", "uri": "workspace:///{path}"}
    ids = {"type": "ref/resource", "uri": "database:///{id}/tables"}
    prompt = {"type": "ref/prompt", "name": "explore_database"}
    async with serve(tmp_path, "--completion-values", "3") as client:
        await create_databases(client, [f"db{i:02}" for i in range(12)])
        wide = {f"p{i}": {"columns": {"x": "number"}} for i in range(5)}
        await client.call_tool("database", {"operation": "create", "id": "wide", "tables": wide})
        paths = await complete(client, path, "path", "src/")
        one = await complete(client, path, "path", "src/f149")
        found = await complete(client, ids, "id", "db")
        edit = await complete(client, {"type": "ref/prompt", "name": "edit_files"}, "path", "")
        tables = wire(
            await session(client).complete(
                types_module().PromptReference.model_validate(prompt),
                {"name": "table", "value": "p"},
                context_arguments={"id": "wide"},
            )
        )
    assert paths["completion"] == {
        "values": ["src/f000.py", "src/f001.py", "src/f002.py"],
        "total": 150,
        "hasMore": True,
    }
    assert one["completion"] == {"values": ["src/f149.py"], "total": 1, "hasMore": False}
    assert found["completion"] == {"values": ["db00", "db01", "db02"], "total": 12, "hasMore": True}
    assert (len(edit["completion"]["values"]), edit["completion"]["total"]) == (3, 151)
    assert tables["completion"] == {"values": ["p0", "p1", "p2"], "total": 5, "hasMore": True}


@pytest.mark.parametrize("value", ["0", "101", "-1", "many"])
def test_completion_values_out_of_range_stops_serve(tmp_path: Path, value: str) -> None:
    import subprocess

    state = ["--root", str(tmp_path), "--data", str(tmp_path / "data")]
    ran = subprocess.run(
        [*ORKESTREL, "serve", *state, "--completion-values", value],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert ran.returncode == 2
    assert ran.stderr.splitlines()[-1].startswith("orkestrel serve: error: argument --completion")
    assert f"got '{value}'" in ran.stderr


def test_a_lone_surrogate_in_a_completion_prefix_completes_nothing_and_the_server_serves_on(
    tmp_path: Path,
) -> None:
    import httpx

    from support.serve_http import INITIALIZE
    from support.serve_process import ServeProcess

    project(tmp_path)
    server = ServeProcess(["--root", str(tmp_path / "root")], tmp_path / "home")
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    ref = {"type": "ref/resource", "uri": "workspace:///{path}"}

    def completion(value: str) -> str:
        params = {"ref": ref, "argument": {"name": "path", "value": value}}
        return json.dumps(
            {"jsonrpc": "2.0", "id": 5, "method": "completion/complete", "params": params}
        )

    try:
        with httpx.Client() as http:
            opened = http.post(server.url, content=json.dumps(INITIALIZE), headers=accept)
            headers = {**accept, "mcp-session-id": opened.headers["mcp-session-id"]}
            headers["mcp-protocol-version"] = "2025-06-18"
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            http.post(server.url, json=initialized, headers=headers)
            surrogate = http.post(server.url, content=completion("REA\ud800"), headers=headers)
            after = http.post(server.url, content=completion("REA"), headers=headers)
    finally:
        server.stop()
    if MAJOR >= 2:
        # The 2.x SDK's JSON reader refuses the text before any handler sees it.
        assert surrogate.status_code == 400
        assert surrogate.json()["error"]["code"] == -32700
    else:
        assert surrogate.status_code == 200
        assert '"values":[],"total":0,"hasMore":false' in surrogate.text
    assert after.status_code == 200
    assert '"values":["README.md"]' in after.text
