"""Needs you, elsewhere (read-only, GitHub through `gh`): the service's part (`view`), afkkit's
escalations and reviews (`afkkit`, its rules `afkrules`, the `gh` client `ghclient`)."""
