"""A tool plugin for a server started as a process: a module and its `.dist-info`, found by
`importlib.metadata` through `PYTHONPATH`."""

from __future__ import annotations

import os
import uuid
from pathlib import Path


def tool_plugin(directory: Path, source: str, factory: str) -> dict[str, str]:
    """Writes `source` as a fresh module in `directory` whose function `factory` is listed
    under the `orkestrel.tools` entry points as `factory`; gives the environment that finds
    it."""
    module = f"orkestrel_{factory}_{uuid.uuid4().hex[:8]}"
    (directory / f"{module}.py").write_text(source)
    info = directory / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[orkestrel.tools]\n{factory} = {module}:{factory}\n")
    paths = [str(directory), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {"PYTHONPATH": os.pathsep.join(paths)}
