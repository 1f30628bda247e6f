"""Conversations in the memory: ``turns`` (a conversation's turns as nodes, with their sessions,
the names they mention and their dates in words, derived at write) and ``recall`` (the seeds
retrieval starts from when a question is about a conversation)."""
