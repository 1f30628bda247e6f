"""Bendscope editor core, DOM-free: ``model`` (the document), ``editor`` (``Editor``, the front
object, and its parts), ``pointer`` and ``keys`` (input as plain records), ``actions`` and
``menus`` (commands and what menus offer), ``render`` (what is drawn), ``layout``, ``kappa_view``
(κ in the editor), ``persist`` (autosave, links, clipboard) and ``live`` (the live editor's sync).

Everything here runs (and is tested) under CPython; only py/bendscope/app/ touches the browser.
"""
