"""What the app follows beside the store's files, off the UI thread, and what it tells the
person outside the screen: the remote (`remote_watch`), a write's slow steps (`activity`),
GitHub (`elsewhere_feed`), the desktop and the bell (`alerts`)."""
