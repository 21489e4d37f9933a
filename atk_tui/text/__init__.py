"""Text on its way to a terminal: the one sanitiser, cell widths."""
