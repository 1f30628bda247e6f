"""The memory in and out: Bendscope documents (``documents``) and JSON Lines dumps (``dump``)."""
