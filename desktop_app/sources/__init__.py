"""Readers of stored histories. Each turns one format into `desktop_app.domain` objects."""
