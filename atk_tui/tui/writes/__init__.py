"""Every write a key starts (`commands`), the edit session (`edit_session`), and the messages
they send the app (`messages`): they never call back into the app."""
