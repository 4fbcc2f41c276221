"""Snapshot stores for workspaces: memory, a real directory, and a database table."""
