"""The memory served over the Model Context Protocol: the tools (defined once, typed), the
server and its stdio transport."""
