"""Runnable examples of orkestrel."""
