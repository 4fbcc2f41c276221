"""Ready-made tools for a `ToolManager`, each advertising a schema compiled from a contract."""

from orkestrel.toolbox import (
    agent,
    database,
    describe,
    errors,
    inference,
    relation,
    server,
    terminal,
    workflow,
    workspace,
)
from orkestrel.toolbox.agent import *  # noqa: F403
from orkestrel.toolbox.database import *  # noqa: F403
from orkestrel.toolbox.describe import *  # noqa: F403
from orkestrel.toolbox.errors import *  # noqa: F403
from orkestrel.toolbox.inference import *  # noqa: F403
from orkestrel.toolbox.relation import *  # noqa: F403
from orkestrel.toolbox.server import *  # noqa: F403
from orkestrel.toolbox.terminal import *  # noqa: F403
from orkestrel.toolbox.workflow import *  # noqa: F403
from orkestrel.toolbox.workspace import *  # noqa: F403

__all__: list[str] = []
__all__ += errors.__all__
__all__ += describe.__all__
__all__ += inference.__all__
__all__ += database.__all__
__all__ += relation.__all__
__all__ += workspace.__all__
__all__ += agent.__all__
__all__ += workflow.__all__
__all__ += terminal.__all__
__all__ += server.__all__
