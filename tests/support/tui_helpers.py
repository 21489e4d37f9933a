"""Helpers for the dashboard tests (imported by conftest.py and the test modules).

The app builder and `settle` are `support.apps`'s (re-exported here for the dashboard tests).
"""

from __future__ import annotations

from atk_tui.tui.app import AtkApp
from support.apps import DEMO, STORE_LABEL, THEME, build_app, press, screen_text, settle  # noqa: F401 (re-exported)
from support.clock import NOW, frozen_clock  # noqa: F401 (re-exported)
from support.storekit import git  # noqa: F401 (re-exported)


def keys_of_pane(app: AtkApp, name: str) -> list[str]:
    """The filenames listed in a pane (`needs`, `inbox`, `processing`, `hold`), top to bottom."""
    from atk_tui.tui.widgets.item_list import ItemList

    return [row.key for row in app.main.query_one(f"#{name}", ItemList).rows]
