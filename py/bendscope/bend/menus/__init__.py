"""The menus' contents (context menus, the menu bar) and menu aim (a submenu kept open while the
pointer heads for it)."""
