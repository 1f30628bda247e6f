"""``python -m bendscope.memory``: see bendscope.memory.cli."""

import sys

from .cli import main

sys.exit(main())
