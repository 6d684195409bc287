"""goose's shared `sessions.db`: read faithfully, written only for rename and archive."""

from desktop_app.sources.goose.source import GooseSource

__all__ = ["GooseSource"]
