"""The dialogs a command opens over a screen (confirm, move, text forms, commit, the in-app
editor, the answer form, the dependency editor, the conflicts list). They return what the
person chose and know nothing of the screens or the commands that open them, so
`tui.writes.commands` and `tui.writes.edit_session` import them without an import circle."""
