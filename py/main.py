import sys

import js
from pyodide.ffi import to_js

js.window.bendscope = to_js({"ready": True, "version": sys.version}, dict_converter=js.Object.fromEntries)
