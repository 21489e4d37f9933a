"""What the dashboard shows, apart from any screen: the rows of a list and how an item looks
(`present`, `rows`), the filter's rules (`filtering`), the status line's text (`status`), and
store text made safe and legible on the screen (`safe`, `legible`)."""
