"""The keys: declared once (`bindings`), and the keys typed as a dialog closes (`key_guard`).
Remapping them is `tui.keymap`; the command palette, `tui.palette`."""
