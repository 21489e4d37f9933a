"""The hub: one resident process on the person's side that follows the store and reaches
the person while they are away (notifications through apprise, deadlines and escalation, and
the answer page of `atk_tui.hub.web` in the same process).

It reaches the store and the caches only through the service, and is imported by the CLI
lazily (`atk hub`), never on the CLI's start-up path.
"""
