"""Domain objects → text for people and programs: Markdown, JSON, (later) HTML. No Qt, no SQL."""
