"""The document model: its elements (planes, cards, edges, camera; guarded mutators), the format's
records into the model and back, the loader's limits kept while editing, diff-based undo,
geometry, the demo graph."""
