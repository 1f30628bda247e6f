"""Keeping and moving graphs: the autosave's decisions, share links, the clipboard."""
