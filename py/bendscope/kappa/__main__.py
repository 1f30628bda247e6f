"""``python -m bendscope.kappa``: see bendscope.kappa.cli."""

import sys

from .cli import main

sys.exit(main())
