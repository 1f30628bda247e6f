"""An mkdocs hook: warnings stay warnings under ``--quiet``.

``mkdocs build --quiet`` raises the ``mkdocs`` logger to ERROR ("silence warnings"), and the
counter ``--strict`` relies on hangs on that logger: a quiet strict build passes whatever it
warns about (a broken link, a missing anchor, a docstring the API reference cannot read). This
hook lowers the logger back to WARNING, so a quiet build still hides the INFO lines but prints
every warning and, in strict mode, fails on it. Loaded by ``mkdocs.yml`` (``hooks``).
"""

from __future__ import annotations

import logging
from typing import Any


def on_config(config: Any, **kwargs: Any) -> Any:
    logger = logging.getLogger("mkdocs")
    if logger.level > logging.WARNING:
        logger.setLevel(logging.WARNING)
    return config
