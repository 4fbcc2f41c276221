"""The pure classification step of the terminal tools' error handling."""

from __future__ import annotations

from orkestrel.terminal import TerminalError
from orkestrel.toolbox.errors import ToolboxErrorCode


def infer_terminal_code(error: object) -> ToolboxErrorCode | None:
    """Maps a caught error to the `ToolboxErrorCode` the terminal tools raise with: `DEADLOCK`
    and `EXPIRE` to themselves, `CANCEL` (the person declined) to `ANSWER`, every other terminal
    code to `TOOL`, and `None` for an error that is not a `TerminalError`."""
    if not isinstance(error, TerminalError):
        return None
    if error.code in ("DEADLOCK", "EXPIRE"):
        return error.code
    if error.code == "CANCEL":
        return "ANSWER"
    return "TOOL"
