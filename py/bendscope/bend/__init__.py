"""Bendscope editor core: model, commands, layout, formats and the scene step.

Everything here is DOM-free and runs (and is tested) under CPython; only
py/bendscope/app/ touches the browser.
"""
