"""`atk-tui`'s start-up: no cycle collection until the dashboard's first frame is drawn.

Everything made before that frame (the modules, Textual, the app and its widgets) lives as long
as the app: the collector's passes over it (a full one among them, over every module imported)
cost ~20 ms of the first frame and freed next to nothing. `atk-tui` pauses the collector before
it imports the app (`pause_gc`); the app resumes it once the first frame is drawn (`resume_gc`).

Resuming only turns it back on: from there it runs as it always did (its first full pass sizes
the heap it compares later passes to). Not `gc.freeze` here: with no full pass behind it the
collector would take the empty old generation as the heap, and run a full pass on every tenth
young one while a cold start parses 10,000 items (seconds). The app freezes the heap once the
queue is shown (`AtkApp.freeze_gc`). Nothing else pauses it: the tests, the screenshot script
and `--serve` collect as before.
"""

from __future__ import annotations

import gc

_paused = False


def pause_gc() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_gc() -> None:
    """After the first frame (a no-op unless `pause_gc` paused the collector)."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()
