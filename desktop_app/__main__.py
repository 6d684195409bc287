"""`python -m desktop_app` behaves exactly like the `gander` command."""

import sys

from desktop_app.cli import main

sys.exit(main())
