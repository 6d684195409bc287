"""Histories kept as one file per session, read through one reader (`history.FileHistory`)."""
