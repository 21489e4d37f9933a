"""`python bench/fuzz.py …`: the command line of `tests/support/fuzz.py` (the library the
tests import lives there; see its docstring for the options)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.fuzz import main

if __name__ == "__main__":
    main()
