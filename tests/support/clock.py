"""The frozen time every test store and app is made at."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


def frozen_clock() -> datetime:
    return NOW


class SteppingClock:
    """A little before `NOW`, then one second later at every call: each added item gets its
    own filename."""

    def __init__(self, start: datetime = NOW - timedelta(hours=6)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now
