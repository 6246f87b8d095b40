"""Live runs: a run in the background, followed as it fills, cancelled, resumed."""

from .run import LiveRun, WatchedRun, start, watch

__all__ = ["LiveRun", "WatchedRun", "start", "watch"]
