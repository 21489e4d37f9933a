"""What the tests share (issue 11: one place for each helper).

- `clock`: the frozen time every test store is made at (`NOW`) and clocks built on it;
- `storekit`: stores in tmp_path (real git repos, a bare repo as remote) and item texts;
- `apps`: the app as `make_app` builds it, made deterministic, and `settle` (public APIs only);
- `tmux`: the real binaries driven in tmux;
- `tui_helpers`, `actions_support`, `graph_support`: demo stores and helpers per test folder;
- `hostile_text`, `faults`, `fuzz`: hostile item text, fault scenarios and fuzz strategies (the
  bench scripts run the last two from the command line);
- `serve`: the real `atk-tui --serve`, its HTTP and WebSocket clients, and what a foreign web
  page could send it (`SERVE_ATTACKS`).

`tests/` is on `sys.path` (`pythonpath` in pyproject.toml): `from support.storekit import git`.
"""
