"""atk-tui: a terminal dashboard and CLI over a git-backed queue of work items."""

__version__ = "0.1.0"
