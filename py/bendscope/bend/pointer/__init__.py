"""The pointer state machine: what a press, move and release do, one class per state."""
