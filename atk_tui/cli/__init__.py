"""`atk`, the agent-facing command line."""
