"""Throttles (DRF's SimpleRateThrottle machinery, counters in the `api` cache).

Failed Basic-auth attempts are counted per client address and per username; once either
passes its rate, every Basic-auth attempt from that address (or for that user) is answered
429 with Retry-After until the window has room again, a correct password included — so
guessing costs the attacker the window, not one request. Successful requests cost one cache
read and are never counted. DRF runs throttle classes only after authentication has
succeeded, so these are called by the authentication class itself.

Writes are limited per user (`writes`); reads are not throttled (they are cheap and cached).
"""

from django.core.cache import caches
from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle


class _FailureThrottle(SimpleRateThrottle):
    """Counts failures only: `wait_for(ident)` says how long `ident` is blocked (None when
    not), `fail(ident)` records a failure."""

    cache = caches["api"]

    def get_cache_key(self, request, view):
        return None  # never installed as a view throttle: see the module docstring

    def _history(self, ident: str) -> tuple[str, list[float]]:
        key = self.cache_format % {"scope": self.scope, "ident": ident}
        now = self.timer()
        history = [t for t in self.cache.get(key, []) if t > now - self.duration]
        return key, history

    def wait_for(self, ident: str) -> float | None:
        _key, history = self._history(ident)
        if len(history) < self.num_requests:
            return None
        return max(self.duration - (self.timer() - history[-self.num_requests]), 1.0)

    def fail(self, ident: str) -> None:
        key, history = self._history(ident)
        history.append(self.timer())
        self.cache.set(key, history[-self.num_requests :], self.duration)


class FailedAuthByAddress(_FailureThrottle):
    scope = "basic_auth_ip"


class FailedAuthByUsername(_FailureThrottle):
    scope = "basic_auth_user"


class WriteRateThrottle(UserRateThrottle):
    """Unsafe methods per authenticated user (reads pass without touching the cache)."""

    scope = "writes"
    cache = caches["api"]

    def allow_request(self, request, view):
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)
