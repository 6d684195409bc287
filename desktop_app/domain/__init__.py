"""Plain-Python model of agent chat histories.

Everything above this package (sources, search, rendering, ui) speaks these types, so a new history
format only has to produce them. Nothing here imports anything else of ours or any third-party
library, which keeps the model usable from a worker thread, a CLI or a test without Qt.
"""
