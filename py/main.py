"""Bendscope entry point (loaded by PyScript): boot the app or show why it could not."""

import js

try:
    from bendscope.app.app import App

    app = App()
    app.install_api()
    await app.start()  # noqa: F704 - PyScript runs this module with top-level await
    app.mark_ready()
    js.window.bendscopeStarted()  # (withdraws a slow start's note, if one was shown)
except Exception as exc:
    import traceback

    js.console.warn(traceback.format_exc())
    js.window.bendscopeBootError(f"{type(exc).__name__}: {exc}")
