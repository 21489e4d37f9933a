"""The `atk-tui` App: global bindings, command palette, live refresh, the app factory.

Every read and write goes through `service.Service`, in thread workers; results come
back to the UI thread with `call_from_thread`. `make_app` is the one factory the CLI, the
tests and the screenshot script use.
"""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

from textual import events, work
from textual.app import App, SystemCommand
from textual.filter import ANSIToTruecolor, Monochrome
from textual.screen import ModalScreen, Screen
from textual.signal import Signal
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from atk_tui.domain.model import SHOWN
from atk_tui.host.config import is_agent_env
from atk_tui.service import QueueView, Service, utc_now
from atk_tui.service.notices import attention
from atk_tui.service.reading.watch import dashboard_signature
from atk_tui.tui.config import TuiConfig, load_tui_config
from atk_tui.tui.display.safe import safe_line, safe_text
from atk_tui.tui.feeds.activity import Activity, LockWait, Spinner
from atk_tui.tui.feeds.alerts import Alerts
from atk_tui.tui.feeds.elsewhere_feed import ElsewhereFeed
from atk_tui.tui.feeds.remote_watch import RemoteWatch
from atk_tui.tui.feeds.view_keeper import ViewKeeper
from atk_tui.tui.keys import bindings
from atk_tui.tui.keys.key_guard import DIALOG_KEY_GRACE, KeyGuard
from atk_tui.tui.palette import ItemProvider, WriteProvider, palette_action, system_commands
from atk_tui.tui.screens.base import ItemActionsScreen
from atk_tui.tui.screens.main import MainScreen
from atk_tui.tui.screens.notices import NoticesScreen
from atk_tui.tui.startup import resume_gc
from atk_tui.tui.widgets.item_list import ItemList
from atk_tui.tui.widgets.notices import NoticeStrip
from atk_tui.tui.writes import messages as wrote
from atk_tui.tui.writes.commands import Commands

WATCH_INTERVAL = 0.5
PROGRESS_INTERVAL = 0.12  # seconds between two progress counts on a cold start
#: worker groups that run no git: quitting does not wait for them (a graph layout gives up
#: once cancelled, which quitting does)
NO_GIT_WORKERS = frozenset({"graph-layout", "elsewhere"})  # (quitting kills gh: `ElsewhereFeed.stop`)


class AtkApp(App):
    CSS_PATH = ["app.tcss", "nocolor.tcss"]  # nocolor.tcss: NO_COLOR only (`:nocolor` rules)
    TITLE = "atk-tui"
    COMMANDS = App.COMMANDS | {ItemProvider, WriteProvider}
    ENABLE_COMMAND_PALETTE = True

    BINDINGS = bindings.APP

    def __init__(
        self,
        service: Service,
        *,
        config: TuiConfig | None = None,
        read_only: bool = False,
        watch: bool = True,
        editor: Callable[[Path], int] | None = None,
        store_label: str | None = None,
        look_elsewhere: bool = True,
    ) -> None:
        self.tui_config = config or TuiConfig()
        super().__init__()
        self.service = service
        # what the status line calls the store (tests and screenshots pass a fixed name)
        self.store_label = store_label or str(service.root)
        self.agent_env = service.actor == "agent"
        if self.agent_env:
            reason = "agent environment detected (AI_AGENT/CODEX_CI/CLAUDECODE/CURSOR_AGENT): writes are the user's"
        else:
            reason = "opened with --read-only"
        self.commands = Commands(
            self, service, view=lambda: self.queue, editor=editor, store_label=self.store_label,
            read_only=read_only or self.agent_env, read_only_reason=reason,
        )  # fmt: skip
        #: the active queue, loaded last; screens subscribe to `queue_signal` for the next one
        self.queue: QueueView | None = None
        self.queue_signal: Signal[QueueView] = Signal(self, "queue")
        self.watch_enabled = watch
        self.editor = editor
        self.last_pull: datetime | None = None  # the last time this clone was in step with the remote
        self.last_error = ""
        #: `[tui.keys]` as applied (binding id -> keys; `set_keymap` keeps its copy private)
        self.key_overrides: dict[str, str] = {}
        self.sync_error = ""  # why the last look at the remote or pull failed ("" when it worked)
        self.unpushed = 0
        self.behind = 0  # commits fetched from the remote and not yet pulled
        self.conflicts = 0  # commits `atk wi commit` set aside (SPEC §11); `C` resolves them
        self._signature: tuple | None = None
        self._watch_paused = 0
        self.last_move = 0.0  # time.monotonic() of the last cursor move (`MainScreen._select`)
        self._quit_requested = False
        self._frozen = False  # `freeze_gc` done
        self.kept = ViewKeeper(self, service, lambda: self.queue)  # the view kept for the next run
        self.main = MainScreen()
        self.notices: list = []  # service.notices.Notice, oldest first
        self.loop_status: dict | None = None  # a running `atk wi process-loop`, if any
        cfg = self.tui_config
        self.alerts = Alerts(self, desktop=cfg.desktop_notifications, bell=cfg.bell, title_count=cfg.title_count)
        self._apply_key_overrides()
        from atk_tui.tui.display.present import set_monochrome, use_glyphs

        use_glyphs(self.tui_config.glyphs)
        set_monochrome(self.no_color)  # NO_COLOR: attention states reversed, not greyed
        #: the last look at GitHub (`E`); looks by itself unless `look_elsewhere` is off (the demo)
        self.elsewhere = ElsewhereFeed(self, service, lambda: self.queue, auto=look_elsewhere)
        from atk_tui.tui.display.legible import Legible

        self._legible = Legible()
        from atk_tui.tui.display.no_color import Plain

        self._plain = Plain()
        if self.no_color:
            from atk_tui.tui.textual_compat import keep_reverse_in_visual_styles

            keep_reverse_in_visual_styles()
        self.lock_wait: str | None = None  # "waiting for the store lock…" while a write waits
        service.set_lock_wait_listener(lambda msg: self.post_message(LockWait(msg)))  # from the writing thread
        service.set_activity_listener(lambda what: self.post_message(Activity(what)))
        #: the slow step a write runs (a hook), shown in the status line
        self.spinner = Spinner(self, self._status_changed)
        #: `DIALOG_KEY_GRACE`, or 0 (tests that press keys faster than anyone reads)
        self.dialog_key_grace = DIALOG_KEY_GRACE
        self.key_guard = KeyGuard(self, grace=lambda: self.dialog_key_grace)  # keys typed as a dialog closes
        self.remote = RemoteWatch(
            self, service, self.tui_config, synced=self._synced, counts=self._load_sync_counts,
            paused=lambda: bool(self._watch_paused), last_move=lambda: self.last_move,
        )  # fmt: skip

    # -- keys typed as a dialog closes ------------------------------------------------------------

    def pop_screen(self):  # type: ignore[override]
        self.key_guard.dialog_changed()  # every dialog and sub-screen closes here (`Screen.dismiss` too)
        return super().pop_screen()

    def push_screen(self, screen, *args, **kw):  # type: ignore[override]
        from atk_tui.tui.modals.dialogs import ChoiceScreen

        if isinstance(screen, ChoiceScreen):  # a question answered by one key: not by keys typed for another
            self.key_guard.dialog_changed()
        return super().push_screen(screen, *args, **kw)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded and not self.key_guard.typed(event):
            return
        await super().on_event(event)

    async def _on_key(self, event: events.Key) -> None:
        """A key back from the screen it was sent to, none of its widgets took it: looked up in
        the bindings only if that screen is still there (`KeyGuard.came_back`). (Textual then
        runs `App._on_key` itself, unless prevented.)"""
        if not self.key_guard.came_back(event):
            event.prevent_default()

    def get_line_filters(self):  # type: ignore[override]
        """Textual's filters (ANSI to true colour), then every text made legible against what
        is behind it, in every theme (legible.py). Under NO_COLOR (no-color.org) no colour at
        all: not Textual's greys (`Monochrome`, 24-bit) nor its ANSI colours made true, and
        nothing that puts a colour back (`Legible` would): `Plain` (display/no_color.py), the
        terminal's own foreground and background. What colour told is shown by reverse, bold,
        underline, strike and heavy frames (nocolor.tcss)."""
        filters = super().get_line_filters()
        if self.no_color:
            return [*(f for f in filters if not isinstance(f, (Monochrome, ANSIToTruecolor))), self._plain]
        return [*filters, self._legible]

    @property
    def read_only(self) -> bool:
        return self.commands.read_only

    @property
    def read_only_reason(self) -> str:
        return self.commands.read_only_reason

    def _apply_key_overrides(self) -> None:
        if self.tui_config.keys:
            from atk_tui.tui.keymap import binding_ids, checked_keymap

            keymap, errors = checked_keymap(self.tui_config.keys, binding_ids())
            self.tui_config.errors.extend(errors)
            try:
                self.set_keymap(keymap)
                self.key_overrides = keymap
            except Exception as exc:
                self.tui_config.errors.append(f"config: bad [tui.keys]: {exc}")

    def get_default_screen(self) -> Screen:
        """The dashboard is the first screen: no blank screen under it, composed, styled and
        then restyled when the dashboard was pushed over it, before the first frame."""
        return self.main

    def on_mount(self) -> None:
        try:
            self.theme = self.tui_config.theme
        except Exception:
            themes = ", ".join(sorted(self.available_themes))
            self.tui_config.errors.append(f"config: unknown theme {self.tui_config.theme!r}; themes: {themes}")
        self._remembered_theme = self.theme  # the initial theme is not a choice to remember
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        for err in self.tui_config.errors:
            self.notify(err, severity="warning", markup=False, timeout=8)
        self.call_after_refresh(resume_gc)  # paused by `atk-tui` until the first frame (startup.py)
        # load after the first frame: the loading thread would hold the GIL while it is drawn
        self._signature = self._store_signature()
        self.call_after_refresh(self._load_queue)
        if self.watch_enabled:
            self.set_interval(WATCH_INTERVAL, self.check_store)
            self.call_after_refresh(self.remote.start_later)  # git, started after the first frame

    # -- loading -------------------------------------------------------------------------

    def _store_signature(self) -> tuple:
        return dashboard_signature(self.service.root)

    def check_store(self) -> None:
        """Load the queue again when the store changed since it was loaded (the folders' and
        files' stat: `dashboard_signature`); every `WATCH_INTERVAL`, and when a screen opens
        that shows what the last load may have missed (the history)."""
        if self._watch_paused:
            return
        sig = self._store_signature()
        if sig != self._signature:
            self.reload()

    def pause_watch(self) -> None:
        self._watch_paused += 1

    def resume_watch(self) -> None:
        self._watch_paused = max(self._watch_paused - 1, 0)

    def reload(self) -> None:
        self._signature = self._store_signature()
        self._load_queue()

    @work(thread=True, exclusive=True, group="queue", exit_on_error=False)
    def _load_queue(self) -> None:
        first = self.queue is None
        last = [0.0]

        def progress(done: int, total: int) -> None:
            # a cold start parses every file: say how far it got (at most ~8 times a second)
            now = time.monotonic()
            if first and now - last[0] >= PROGRESS_INTERVAL:
                last[0] = now
                self.call_from_thread(self._show_progress, done, total)

        # the first load makes every object the app keeps (~10,000 items and their
        # judgements): no cycle collection over them while they are made; they are frozen
        # (`freeze_gc`) once shown, before collection resumes
        collecting = first and gc.isenabled()
        if collecting:
            gc.disable()
        try:
            # planning: visible, not actionable. The last view (this run's, or the one the last
            # run kept): only what changed since is read and judged
            previous = self.queue
            if previous is None:
                previous = self.kept.read()
            view = self.service.queue(SHOWN, progress=progress, previous=previous)
            notices = self.service.notices()
            loop = self.service.loop_status()
            # the rows (and the title's count) at once, frozen before collection resumes
            self.call_from_thread(self._queue_loaded, view, notices, loop)
        except Exception as exc:
            self.call_from_thread(self.report_error, f"could not read the store: {exc}")
            return
        finally:
            if collecting:
                gc.enable()
        # git's counts (unpushed, set aside) once the rows are drawn (its processes would share
        # the machine with that frame)
        self.call_from_thread(self.call_after_refresh, self._load_sync_counts)

    @work(thread=True, exclusive=True, group="sync", exit_on_error=False)
    def _load_sync_counts(self) -> None:
        try:
            sync = self.service.sync_status()
        except Exception as exc:
            self.call_from_thread(self.report_error, f"could not read the store: {exc}")
            return
        self.call_from_thread(self._sync_counts, sync.unpushed, sync.conflicts, sync.behind)

    def _sync_counts(self, unpushed: int, conflicts: int, behind: int = 0) -> None:
        self.unpushed, self.conflicts, self.behind = unpushed, conflicts, behind
        self.main.update_status()

    def _show_progress(self, done: int, total: int) -> None:
        if self.queue is not None:
            return
        text = f"Loading… parsed {done:,} / {total:,}"
        for lst in self.main.query(ItemList):
            lst.empty_text = text
            lst.refresh()

    def _queue_loaded(self, view: QueueView, notices: list | None = None, loop: dict | None = None) -> None:
        self.notices = notices or []
        self.loop_status = loop
        for strip in self.main.query(NoticeStrip):
            strip.show_notices(self.notices)
        for screen in self.screen_stack:
            if isinstance(screen, NoticesScreen):
                screen.show(self.notices)
        self.alerts.update(attention(view, self.notices))
        self.show_queue(view)
        if not self.elsewhere.started:  # GitHub after the first rows are drawn, never before
            self.call_after_refresh(self.elsewhere.start)
        if not self._frozen and not self.is_headless:  # (tests run many apps in one process: none is frozen)
            self.freeze_gc()
        self.kept.changed(view)  # kept for the next run, a moment later

    def freeze_gc(self) -> None:
        """Once the first queue is shown: everything alive now (Textual, the widgets, the
        queue's ~10,000 items) lives as long as the app. `gc.freeze` moves it out of the
        collector's sight: a full collection over it took 60-80 ms on a 10,000-item store,
        a stall whenever one fell between two key presses. Objects made later are collected
        as before."""
        self._frozen = True
        gc.freeze()

    def show_queue(self, view: QueueView) -> None:
        """The queue every screen shows from now on: kept here, published to subscribers."""
        self.queue = view
        self.queue_signal.publish(view)

    @property
    def pull_timer(self) -> Timer | None:
        return self.remote.pull_timer

    @property
    def remote_timer(self) -> Timer | None:
        return self.remote.remote_timer

    def pull(self) -> Worker:
        """Pull now (`r`, and the remote watch when the remote moved)."""
        return self.remote.pull()

    def _synced(self, error: str, warnings: list[str] | None = None) -> None:
        """The outcome of a look at the remote or a pull, in the status line: when this clone
        was last in step with the remote, or why it is not (kept until a sync works)."""
        if error:
            said = safe_text(self.dashboard_words(error))
            if said != self.sync_error:  # a toast when it starts failing (or why changes), not every look
                self.notify(f"sync failed: {said}", severity="warning", timeout=8)
            self.sync_error = said
        else:
            self.sync_error = ""
            self.last_pull = utc_now()
            if self.last_error.startswith(("could not pull", "not pulling", "push failed")):
                self.last_error = ""
        for w in warnings or ():
            self.report_error(w)
        self.main.update_status()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.report_worker_error(event)

    def report_worker_error(self, event: Worker.StateChanged) -> None:
        """A worker that raised (an action whose read or write failed in a way it did not
        expect) is reported as a readable error; the app keeps running. The message does not
        bubble: screens that run workers forward it here."""
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        what = (event.worker.name or "action").removeprefix("action_").replace("_", " ").strip() or "action"
        self.report_error(f"{what} failed: {error}" if str(error) else f"{what} failed: {type(error).__name__}")

    def _remember_theme(self, theme) -> None:
        """A theme picked in the command palette is the one the next start uses."""
        from atk_tui.tui.state import save_state

        if theme.name == self._remembered_theme:
            return
        self._remembered_theme = theme.name
        error = save_state(theme=theme.name)
        if error:
            self.notify(error, severity="warning", timeout=8)

    def on_lock_wait(self, event: LockWait) -> None:
        self.lock_wait = event.text
        if event.text:
            self.notify(event.text, severity="warning", timeout=4)
        self._status_changed()

    def on_activity(self, event: Activity) -> None:
        """A slow hook shows progress: after a moment, a spinner with the hook's name in the
        status line until it ends (`feeds.activity.Spinner`)."""
        self.spinner.show(event.what)
        self._status_changed()

    def _status_changed(self) -> None:
        if self.main.is_mounted:
            self.main.update_status()

    # -- what the commands and the edit session tell the app (writes/messages.py) ----------------

    def on_said(self, event: wrote.Said) -> None:
        self.notify(event.text, severity=event.severity, timeout=event.timeout)

    def on_write_failed(self, event: wrote.WriteFailed) -> None:
        self.report_error(event.text)

    def on_write_worked(self, _event: wrote.WriteWorked) -> None:
        self.last_error = ""

    def on_store_written(self, _event: wrote.StoreWritten) -> None:
        self.reload()
        self.screen.refresh_bindings()

    def on_watch_paused(self, event: wrote.WatchPaused) -> None:
        (self.pause_watch if event.paused else self.resume_watch)()

    def report_error(self, message: str) -> None:
        self.last_error = safe_text(self.dashboard_words(message))
        self.notify(message, severity="error", timeout=8)
        self.main.update_status()

    def notify(self, message: str, *, title: str = "", markup: bool = False, **kw) -> None:  # type: ignore[override]
        """Every toast, whoever raises it (a screen, a widget, a worker): its text may quote
        the store (a filename, a title, git's stderr), so it is made safe and never parsed as
        markup (SPEC §14)."""
        if title == "Screenshot" and "[$" in str(message):  # Textual's own toast, written in its markup
            message = re.sub(r"\[/?\$[\w-]*\]", "", str(message))
        super().notify(safe_text(self.dashboard_words(str(message))), title=safe_line(str(title)), markup=False, **kw)

    def key_for(self, binding_id: str) -> str:
        """The key that does `binding_id` now (after `[tui.keys]`), as the footer shows it."""
        from atk_tui.tui.keymap import key_label

        return key_label(binding_id, self.key_overrides)

    def dashboard_words(self, message: str) -> str:
        """A core message with the CLI commands it suggests replaced by this app's keys
        (`press P`, not `run atk wi commit`)."""
        from atk_tui.domain.hints import for_dashboard

        return for_dashboard(message, self.key_for)

    # -- quitting ------------------------------------------------------------------------

    def _busy_workers(self) -> list[Worker]:
        """Workers still running git (a write, a pull, a push, a read). A write parked on its
        dialog runs nothing; a graph layout runs no git (and gives up once cancelled: quitting
        never waits for it)."""
        parked = isinstance(self.screen, ModalScreen)
        return [
            w for w in self.workers
            if not w.is_finished and not (parked and w.group == "write") and w.group not in NO_GIT_WORKERS
        ]

    async def action_quit(self) -> None:
        """`q`: quit; while git runs (a hook, a push), say so and quit when it ends. A second
        `q` (or Ctrl+C) stops it now: the store rolls the write back (SPEC §14). On a sub-screen
        or a dialog, `q` backs out of it as its Esc does, the same everywhere (issue 29)."""
        screen = self.screen
        if screen is not self.main and not self._quit_requested:
            esc = screen.active_bindings.get("escape")
            if esc is not None and esc.node is not self:
                await esc.node.run_action(esc.binding.action)
                return
            if len(self.screen_stack) > 1:
                self.pop_screen()
                return
        if self._quit_requested or not self._busy_workers():
            self.action_quit_now()
            return
        self.elsewhere.stop()  # gh is never waited for (git is: a write rolls back or completes)
        self._quit_requested = True
        self.notify("waiting for git to finish (a hook, a pull or a push): q again or Ctrl+C stops it and quits now", severity="warning", timeout=30)
        self.set_interval(0.1, self._quit_when_idle)

    def _quit_when_idle(self) -> None:
        if not self._busy_workers():
            self.exit()

    def action_quit_now(self) -> None:
        """Quit without waiting: every child git and hook is killed, so the write that ran them
        fails at once and rolls back (its journal is recovered by the next command if not)."""
        self._quit_requested = True
        if self._busy_workers():
            self.service.interrupt()
        self.elsewhere.stop()
        self.exit()

    # -- actions -------------------------------------------------------------------------

    def jump_to(self, filename: str) -> None:
        if self.screen is not self.main:
            self.pop_screen()
        self.main.jump_to(filename)

    def action_push(self) -> None:
        """`atk wi commit` from the dashboard: commit stray files (listed and confirmed
        first), push unpushed commits."""
        if self.read_only:
            self.notify(f"read-only: {self.read_only_reason}", severity="warning", markup=False)
            return
        if any(w.name == "push" and not w.is_finished for w in self.workers):
            return  # one at a time (P pressed twice)
        self.commands.run("push", self.commands.commit)

    def action_open_palette(self) -> None:
        self.action_command_palette()

    def action_refresh(self) -> None:
        self.reload()
        if self.service.upstream():
            self.pull()

    def _toggle(self, kind: type[Screen], make: Callable[[], Screen]) -> None:
        """A sub-screen's key opens it, and on it closes it."""
        if isinstance(self.screen, kind):
            self.pop_screen()
        else:
            self.push_screen(make())

    def action_notices(self) -> None:
        self._toggle(NoticesScreen, lambda: NoticesScreen(self.notices))

    def on_notice_strip_opened(self, _event: NoticeStrip.Opened) -> None:
        self.action_notices()

    def action_help(self) -> None:
        from atk_tui.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_elsewhere(self) -> None:
        from atk_tui.tui.screens.elsewhere import ElsewhereScreen

        self._toggle(ElsewhereScreen, ElsewhereScreen)

    def action_stats(self) -> None:
        from atk_tui.tui.screens.stats import StatsScreen

        if not isinstance(self.screen, StatsScreen):
            self.push_screen(StatsScreen(now=self.service.clock()))  # the app's clock, as every age

    def action_history(self) -> None:
        from atk_tui.tui.screens.history import HistoryScreen

        self._toggle(HistoryScreen, HistoryScreen)

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """The palette's Screenshot: saved in Downloads, else the home folder, the toast saying
        where (or where not, and why); in a browser, the browser downloads it."""
        if self.is_web or path is not None:
            super().action_screenshot(filename, path)
            return
        from atk_tui.tui.display.screenshot import save_screenshot

        message, severity = save_screenshot(self, filename)
        self.notify(message, title="Screenshot", severity=severity, markup=False)  # type: ignore[arg-type]

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from system_commands(self, self.main, self.key_for)  # (keys as [tui.keys] remapped them)

    def palette_action(self, screen: ItemActionsScreen, action: str) -> None:
        """A write chosen in the palette: as its key would."""
        palette_action(screen, action)


def make_app(
    root: Path | str,
    *,
    theme: str | None = None,
    read_only: bool = False,
    clock: Callable[[], datetime] = utc_now,
    watch: bool = True,
    editor: Callable[[Path], int] | None = None,
    actor: str | None = None,
    config: TuiConfig | None = None,
    store_label: str | None = None,
    look_elsewhere: bool = True,
) -> AtkApp:
    """The one way to build the app (CLI, tests, screenshots)."""
    service = Service(root, clock=clock, actor=actor or ("agent" if is_agent_env() else "user"))
    if config is None:
        from textual.theme import BUILTIN_THEMES

        config = load_tui_config(set(BUILTIN_THEMES))
    if theme:
        config.theme = theme
    return AtkApp(service, config=config, read_only=read_only, watch=watch, editor=editor, store_label=store_label,
                  look_elsewhere=look_elsewhere)  # fmt: skip
