"""The native extension: the Rust core of orkestrel."""

__version__: str
