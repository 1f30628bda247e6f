"""``python -m kappa``: see kappa.cli."""

import sys

from .cli import main

sys.exit(main())
