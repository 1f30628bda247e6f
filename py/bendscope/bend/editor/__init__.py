"""The editor: ``Editor``, the front object the UI, keyboard and automation go through, over its
parts (camera, hit-testing, selection, the layout and κ drivers); fitting the view, find, the
page's URL parameters."""
