"""Where the memory is kept: the store interface (``base``), its backends (``sqlite``, the
embedded default; ``postgres``, one database shared by many processes; ``inmemory``, for tests
and ``:memory:``) and ``opening``, which opens the one a path or URL names."""
