"""Gander's own files and the files it writes for the user: where they live, and writing an
export without ever touching a history or leaving half a file behind."""
