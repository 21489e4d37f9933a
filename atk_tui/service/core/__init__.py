"""The write core every part of the service shares: `ServiceBase` (construction, the write wrapper,
the guards every write runs), what an agent may push (`pushguard`), who holds a held item (`holds`)."""
