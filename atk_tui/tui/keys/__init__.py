"""The keys: declared once (`bindings`), remapped (`keymap`), typed as a dialog closes
(`key_guard`), and found by name in the command palette (`palette`)."""
