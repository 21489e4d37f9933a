"""The store, item model, readiness and the service facade. Never imports Textual."""
