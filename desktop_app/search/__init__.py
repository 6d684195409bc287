"""Gander's own full-text index beside a history (SQLite FTS5), and its query language.

Nothing here writes to the history it indexes; the index is a separate file in Gander's data
directory, rebuilt rather than trusted whenever it looks wrong.
"""
