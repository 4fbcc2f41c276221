"""The conversation stores: in memory, and in one table of the database layer."""
