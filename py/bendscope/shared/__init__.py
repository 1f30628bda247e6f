"""What both faces read, the editor (``bend``) and the memory, neither importing the other:
the document format (``docformat``), other graph formats (``graphformats``), JSON read with
limits (``jsonsafe``) and the live editor's write operations (``live_ops``). Standard library
only, like the engine."""
