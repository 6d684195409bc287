"""Gander: a desktop browser for the chat history that AI agents keep."""

__version__ = "0.1.0"
