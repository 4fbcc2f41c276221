"""Every ```python block of the README runs against the installed package."""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT
from support.fences import run_file


def test_readme_blocks_run() -> None:
    assert run_file(ROOT / "README.md") >= 6


def _extras(command: str) -> set[str]:
    found = re.search(r"pip install '\.\[([a-z0-9,-]+)\]'", command)
    assert found is not None, command
    return set(found.group(1).split(","))


def _brought(extras: set[str]) -> set[str]:
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*table["dependencies"]]
    for extra in extras:
        wanted += table["optional-dependencies"][extra]
    return {re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0] for requirement in wanted}


def test_readme_install_command_brings_what_agent_flag_needs() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "`--agent openai:MODEL`" in readme
    # `--agent` builds its provider on httpx (orkestrel.agent.providers.base imports it).
    first = next(line for line in readme.splitlines() if line.startswith("pip install"))
    assert {"mcp", "httpx"} <= _brought(_extras(first))


def test_readme_database_flag_names_an_install_that_brings_psycopg() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    at = readme.index("`--database postgresql://...`")
    install = readme[at:].split("needs `", 1)[1].split("`", 1)[0]
    assert {"psycopg", "psycopg-pool"} <= _brought(_extras(install))
