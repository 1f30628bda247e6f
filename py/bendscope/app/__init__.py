"""The thin browser layer: the only code that imports ``js`` / ``pyodide``.

Painter (canvas), DOM widgets (HUD, menus, dialogs, inspector), input wiring,
storage and the automation API. Decisions live in ``bend``; this layer renders
them and forwards events.
"""
