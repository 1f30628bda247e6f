"""The commands: one object per command, and the dispatcher's ask/confirm protocol."""
