"""goose's pre-database sessions folder: one `<id>.jsonl` per session."""
