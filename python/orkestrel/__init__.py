"""orkestrel: a tool runtime and a box of ready tools for LLM agents, with a Rust core."""

from orkestrel._core import __version__

__all__ = ["__version__"]
