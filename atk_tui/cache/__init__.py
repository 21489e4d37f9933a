"""The caches: every one a miss-safe optimisation (delete it and all still works)."""
