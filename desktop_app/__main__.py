"""`python -m desktop_app` behaves exactly like the `gander` command; it is also the entry of
the PyInstaller bundle, where the worker processes Gander starts (catalogues of large folders,
first index builds) re-run this executable: `freeze_support` turns those into workers."""

import sys

from desktop_app.cli import main

if __name__ == "__main__":
    if getattr(sys, "frozen", False):
        import multiprocessing  # only a bundle's workers need it; `python -m` starts faster

        multiprocessing.freeze_support()
    sys.exit(main())
