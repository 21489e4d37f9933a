"""Writing the store: transitions, edits and dependencies (`writes`), a new item (`adding`), edit
sessions (`editing`), answers and comments (`answers`), set-aside conflicts and undo
(`conflicts`), plan files (`plans`), cooldown and urgency (`itemmeta`), a question's digest
(`digest`)."""
