"""`os.environ` changed for a block and put back after it (for code that runs outside a test's
`monkeypatch`: fault scenarios and fuzz checks the bench scripts also run)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def patched_environ(**changes: str | None) -> Iterator[None]:
    """Set each variable (None: unset it) for the block; restore every one afterwards."""
    old = {k: os.environ.get(k) for k in changes}
    for k, v in changes.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
