"""Rate limits of the MCP endpoint: per client, and per client and tool.

Fixed windows aligned on the clock (the same windows in every process): a client may send
`MCP_RATE_LIMITS["client"]` POSTs per window, and call one tool `MCP_RATE_LIMITS["tool"]`
times; over either it is answered 429 with Retry-After (the seconds left in the window) and
a JSON-RPC error saying which limit it hit. The tool is the `Mcp-Name` header when the
client sends it (2026-07-28: cheap, no body to read), else the validated `tools/call` name.

Shared across processes without a query on the request path: each process counts in memory,
and a daemon thread adds its new counts to the shared Django cache (`MCP_RATE_LIMIT_CACHE`:
the default cache, the database cache or Redis; config/settings.py) every
`MCP_RATE_LIMIT_SYNC_SECONDS` and brings back every process's totals. A request is checked
against the last shared total plus this process's unsynced count, so across N processes a
client can overshoot a limit by what the others counted in one sync interval. Redis adds
atomically; the database cache's increment is a read and a write, so two processes syncing
the same counter in the same instant may lose one delta (an undercount by one interval's
worth, at worst). A cache outage leaves every process counting alone until it is back.
Clients in `MCP_RATE_LIMIT_EXEMPT` (loopback by default: the operator's own tools, health
checks and the benchmarks) are not counted at all.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import re
import threading
import time
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.core.cache import caches
from django.db import connections

from ..core.errors import RateLimited

logger = logging.getLogger("mcp_endpoint")

_RATE = re.compile(r"\s*(\d+)\s*/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour)\s*")
_UNITS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hour": 3600}


@dataclass(frozen=True)
class Rate:
    limit: int
    window: int  # seconds

    def __str__(self) -> str:
        return f"{self.limit}/{self.window}s"


def parse_rate(text: str | None) -> Rate | None:
    """'600/min', '20/s', '5000/h', '100/10s'; '', '0' or 'off' switch the limit off."""
    if text is None or text.strip().lower() in ("", "0", "off", "none"):
        return None
    match = _RATE.fullmatch(text)
    if not match:
        raise ValueError(f"Not a rate: {text!r} (write e.g. '600/min', '20/s' or 'off')")
    count, multiple, unit = match.groups()
    return Rate(int(count), int(multiple or 1) * _UNITS[unit])


def client_address(meta) -> str:
    """The REST API's rule for the client's address (REST_FRAMEWORK["NUM_PROXIES"], DRF's
    `get_ident`): X-Forwarded-For only behind as many proxies as configured."""
    remote = meta.get("REMOTE_ADDR") or ""
    proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES")
    forwarded = meta.get("HTTP_X_FORWARDED_FOR")
    if not proxies or not forwarded:
        return remote
    hops = forwarded.split(",")
    return hops[-min(proxies, len(hops))].strip()


class Limiter:
    """In-process counts per (scope, identity, window), synced with the shared cache."""

    def __init__(
        self,
        *,
        client: Rate | None,
        tool: Rate | None,
        exempt: tuple = (),
        cache_alias: str = "default",
        sync_seconds: float = 1.0,
        clock=time.time,
        background: bool = True,
    ) -> None:
        self.client, self.tool = client, tool
        self.exempt = tuple(ipaddress.ip_network(net, strict=False) for net in exempt)
        self.cache_alias, self.sync_seconds = cache_alias, sync_seconds
        self.clock, self.background = clock, background
        # key -> [unsynced local count, last shared total]
        self._counts: dict[tuple, list[int]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._exempt_seen: dict[str, bool] = {}  # parsing an address costs more than the rest

    @property
    def enabled(self) -> bool:
        return self.client is not None or self.tool is not None

    def _exempt(self, address: str) -> bool:
        if not address:
            return True  # no REMOTE_ADDR: an in-process caller, not a network client
        known = self._exempt_seen.get(address)
        if known is not None:
            return known
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            exempt = False
        else:
            exempt = any(ip in net for net in self.exempt)
        if len(self._exempt_seen) > 10_000:
            self._exempt_seen.clear()
        self._exempt_seen[address] = exempt
        return exempt

    def check(
        self, address: str, tool: str | None = None, *, client: bool = True
    ) -> RateLimited | None:
        """Count one request of `address` (against the client budget unless `client` is
        false; calling `tool`, if given); the error to answer if it is over a limit (then it
        is not counted), else None."""
        if not self.enabled or self._exempt(address):
            return None
        now = self.clock()
        checks = []
        if client and self.client is not None:
            checks.append(("client", (address,), self.client))
        if tool is not None and self.tool is not None:
            checks.append(("tool", (address, tool), self.tool))
        keys = []
        with self._lock:
            for scope, ident, rate in checks:
                start = int(now // rate.window) * rate.window
                key = (scope, *ident, start, rate.window)
                entry = self._counts.get(key)
                if entry is None:
                    entry = self._counts[key] = [0, 0]
                if entry[0] + entry[1] >= rate.limit:
                    return self._refusal(scope, tool, rate, start + rate.window - now)
                keys.append(entry)
            for entry in keys:
                entry[0] += 1
        if self.background and self.sync_seconds > 0 and self._thread is None:
            self._start()
        return None

    @staticmethod
    def _refusal(scope: str, tool: str | None, rate: Rate, left: float) -> RateLimited:
        retry = max(1, math.ceil(left))
        if scope == "client":
            what = f"this client may send {rate.limit} requests per {rate.window} s"
        else:
            what = f"this client may call {tool!r} {rate.limit} times per {rate.window} s"
        return RateLimited(
            f"Too many requests: {what}. Retry in {retry} s (Retry-After).",
            retry_after=retry,
            limit=scope,
        )

    # --- sharing with the other processes (off the request path) ---------------------------
    def _start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="mcp-ratelimit", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self.sync_seconds)
            try:
                self.sync()
            except Exception:  # a cache outage must not end the thread; counts stay local
                logger.exception("MCP rate limits: syncing with the shared cache failed")
            finally:
                connections.close_all()  # this thread's own (database cache) connection

    def sync(self) -> None:
        """Add this process's new counts to the shared cache and read back every
        process's totals for the current windows; forget windows that ended."""
        now = self.clock()
        with self._lock:
            for key in [k for k in self._counts if k[-2] + k[-1] <= now]:
                del self._counts[key]
            pending = {key: entry[0] for key, entry in self._counts.items()}
            for entry in self._counts.values():
                entry[0] = 0
        if not pending:
            return
        cache_ = caches[self.cache_alias]
        totals = {}
        quiet = []
        for key, delta in pending.items():
            name = "mcp-rl:" + ":".join(map(str, key))
            if not delta:
                quiet.append((key, name))
                continue
            timeout = key[-1] + int(self.sync_seconds) + 1
            if cache_.add(name, delta, timeout=timeout):
                totals[key] = delta
            else:
                try:
                    totals[key] = cache_.incr(name, delta)
                except ValueError:  # expired between add and incr
                    cache_.set(name, delta, timeout=timeout)
                    totals[key] = delta
        if quiet:
            found = cache_.get_many([name for _key, name in quiet])
            for key, name in quiet:
                if name in found:
                    totals[key] = int(found[name])
        with self._lock:
            for key, total in totals.items():
                entry = self._counts.get(key)
                if entry is not None:
                    entry[1] = total


@cache
def get_limiter() -> Limiter:
    """The process's limiter, built from settings (tests call `get_limiter.cache_clear()`)."""
    rates = settings.MCP_RATE_LIMITS
    return Limiter(
        client=parse_rate(rates.get("client")),
        tool=parse_rate(rates.get("tool")),
        exempt=tuple(settings.MCP_RATE_LIMIT_EXEMPT),
        cache_alias=settings.MCP_RATE_LIMIT_CACHE,
        sync_seconds=settings.MCP_RATE_LIMIT_SYNC_SECONDS,
    )


def check_client(request) -> RateLimited | None:
    """The view's first check, for every POST before its body is read: the client budget."""
    return get_limiter().check(client_address(request.META))


def check_tool(request, tool: str) -> RateLimited | None:
    """The view's second check, once `tools/call` params were validated: the tool budget."""
    return get_limiter().check(client_address(request.META), tool, client=False)
