"""Pure rules, no I/O: states, transitions, readiness, graphs, filters."""
