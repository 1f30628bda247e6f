"""``python -m memory``: see memory.cli."""

import sys

from .cli import main

sys.exit(main())
