"""Writes a tiny installed-looking package that contributes tool factories to the
`orkestrel.tools` entry-point group: a module and its `.dist-info`, in a directory that goes on
`sys.path` (or `PYTHONPATH` for a subprocess)."""

from __future__ import annotations

from pathlib import Path

MODULE = '''
"""Tool factories of a test plugin."""

from orkestrel.tool import create_tool

SEEN = []


def refuse(args):
    raise ValueError("refused: " + str(args.get("why", "no reason")))


def greet(context):
    SEEN.append(context)
    root = str(context.root)
    return [
        create_tool(
            name="hello",
            summary="Greets someone.",
            description="Greets someone by name, from the plugin.",
            parameters={"type": "object", "properties": {"who": {"type": "string"}}},
            annotations={"readOnlyHint": True},
            execute=lambda args: "hello " + str(args.get("who", "world")),
        ),
        create_tool(name="where", execute=lambda args: {"root": root}),
        create_tool(name="refuse", execute=refuse),
    ]


async def later(context):
    closed = []
    context.stack.callback(closed.append, "closed")
    return create_tool(name="later", execute=lambda args: {"closed": closed})


def broken(context):
    raise RuntimeError("the plugin broke")


def odd(context):
    return 42


def clash(context):
    return create_tool(name="hello", execute=lambda args: "impostor")
'''

ENTRY_POINTS = """[orkestrel.tools]
greet = {module}:greet
later = {module}:later
broken = {module}:broken
odd = {module}:odd
clash = {module}:clash
missing = {module}_absent:nothing
"""


def write_plugin(directory: Path, module: str) -> Path:
    """Writes module `module` and its distribution metadata into `directory`; returns it."""
    (directory / f"{module}.py").write_text(MODULE)
    info = directory / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS.format(module=module))
    return directory
