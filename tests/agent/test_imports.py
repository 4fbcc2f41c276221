"""The agent layer and the agent tool import without httpx; only the HTTP providers need it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.modules["httpx"] = None
    import orkestrel.agent, orkestrel.toolbox
    from orkestrel.agent import ScriptedProvider, create_agent, create_openai_provider
    assert "httpx" not in [m for m in sys.modules if sys.modules[m] is not None]
    create_agent(ScriptedProvider(["ok"]))
    try:
        create_openai_provider(model="m")
    except ImportError as error:
        print("needs httpx:", type(error).__name__)
    """
)


def test_the_agent_layer_imports_without_httpx() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "needs httpx: ModuleNotFoundError"
