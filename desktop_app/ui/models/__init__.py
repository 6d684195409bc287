"""Qt models: thin adapters over plain-Python data delivered by the task runner."""
