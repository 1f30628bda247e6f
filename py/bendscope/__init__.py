"""Bendscope: the cyclicity invariant κ, one engine under two faces.

- :mod:`bendscope.kappa` — the κ engine (pure Python, standard library only; a library and a CLI)
- :mod:`bendscope.bend` — the editor core (DOM-free)
- :mod:`bendscope.memory` — the agent memory (server side: stores, retrieval, MCP)
- :mod:`bendscope.app` — the page's browser layer (Pyodide only; not installed)
"""

import os as _os
import sys as _sys

# ``python -m bendscope.…`` puts the working folder first on sys.path, so a stray file
# there (a ``bisect.py``) would shadow the standard library for every module imported
# from now on. While ``-m`` is being resolved (sys.argv[0] is "-m"), that entry is
# dropped; this package's own modules are found through its __path__ regardless. The
# console scripts (``kappa``, ``bendscope-memory``) never put the working folder there.


def _is_working_folder(entry: str) -> bool:
    try:
        return entry == "" or _os.path.samefile(entry, _os.getcwd())
    except OSError:  # a folder gone or unreadable: leave it
        return False


if _sys.argv[:1] == ["-m"] and _sys.path and _is_working_folder(_sys.path[0]):
    del _sys.path[0]
