"""The memory's core: records and their rules, the service (``Memory``), retrieval, the κ
router, learning, consolidation, the loop index and telemetry — everything that does not
depend on a storage engine or a transport."""
