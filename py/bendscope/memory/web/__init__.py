"""The memory on the web: the streamable HTTP transport, the editor's site on the same origin,
the page's writes and the change feed that wakes it."""
