"""Widgets with one job each; the main window only lays them out and wires them."""
