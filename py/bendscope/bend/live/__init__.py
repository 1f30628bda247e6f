"""The live editor's page side: the sync with the agent's memory."""
