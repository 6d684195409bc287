"""Everything Qt: the window, its models and widgets. Nothing below this layer imports PySide6."""
