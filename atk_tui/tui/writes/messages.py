"""What a write tells the app, by Textual's message passing (`App.post_message`): `Commands` and
`EditSession` never call back into the app, and never import it. The app's handlers
(`on_said`, `on_write_failed`, `on_write_worked`, `on_store_written`, `on_watch_paused`)
decide what each one does on the screen. Posted in order; handled in the same order."""

from __future__ import annotations

from textual.message import Message
from textual.notifications import SeverityLevel


class Said(Message):
    """A toast (its text is made safe by the app: it may quote the store)."""

    def __init__(self, text: str, severity: SeverityLevel = "information", timeout: float | None = None) -> None:
        super().__init__()
        self.text, self.severity, self.timeout = text, severity, timeout


class WriteFailed(Message):
    """A failure: a toast, and the status line's last error."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class WriteWorked(Message):
    """A write went through: the last failure is not the news any more."""


class StoreWritten(Message):
    """The store changed by this session's hand: the queue is loaded again and the keys'
    dimming judged again."""


class WatchPaused(Message):
    """The store watch stops (`paused`) while an edit session runs, and goes on after it
    (`paused` False): the editor's own writes do not reload the queue under it."""

    def __init__(self, paused: bool) -> None:
        super().__init__()
        self.paused = paused
