"""Rate limits: a token bucket per key (a player, a client address), in this process.

>>> limiter = RateLimiter(rate=1.0, burst=2)
>>> [limiter.take("a", now=0.0) for _ in range(3)]
[0.0, 0.0, 1.0]

Each server process keeps its own buckets, so behind a load balancer a client gets the
limit once per process it reaches; the limits are there to stop floods, not to meter.
"""

from __future__ import annotations

import time

#: Buckets kept at most; the fullest (idle longest) are forgotten first when past it.
MAX_KEYS = 100_000


class RateLimiter:
    """``rate`` actions a second per key, bursts of ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str, now: float | None = None) -> float:
        """Spend one action of ``key``: 0 when allowed, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        level, last = self._buckets.get(key, (self.burst, now))
        level = min(self.burst, level + (now - last) * self.rate)
        if level < 1.0:
            self._buckets[key] = (level, now)
            return (1.0 - level) / self.rate
        self._buckets[key] = (level - 1.0, now)
        if len(self._buckets) > MAX_KEYS:
            self._forget(now)
        return 0.0

    def _forget(self, now: float) -> None:
        full = [
            k for k, (lv, t) in self._buckets.items() if lv + (now - t) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]
        while len(self._buckets) > MAX_KEYS:  # all busy: drop the oldest
            del self._buckets[next(iter(self._buckets))]
