"""What every part of the service shares: the write core (`writecore.py`'s `WriteCore`, held by
every part as `self.core`: find an item, read it from its file, write one commit, the guards),
`ServiceBase` (`base.py`: construction, the listeners, who holds what), what an agent may push
(`pushguard`), who holds a held item (`holds`)."""
