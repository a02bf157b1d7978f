"""MCP rate limits (mcp_endpoint/transports/ratelimit.py): a client over
its budget — all POSTs, or calls of one tool — gets HTTP 429 with Retry-After and a JSON-RPC
error (-32029, in the server range JSON-RPC 2.0 §5.1 leaves to implementations) saying which
limit and when to come back, cached answers included; the counts are
shared between processes through the cache; the check costs no query; loopback is exempt."""

import json

import pytest
from django.conf import settings
from django.core.cache import caches

from mcp_endpoint.transports import ratelimit
from mcp_endpoint.transports.ratelimit import Limiter, Rate, parse_rate
from tests.factories import make_term
from tests.mcp.helpers import MCP_URL, meta, modern_headers, post
from tests.wsgi_client import MCP, call

CLIENT = "203.0.113.50"


class Clock:
    def __init__(self, now=1_000_040.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.mark.parametrize(
    ("text", "rate"),
    [("600/min", Rate(600, 60)), ("20/s", Rate(20, 1)), ("5000/hour", Rate(5000, 3600)),
     ("100/10s", Rate(100, 10)), (" 7 / m ", Rate(7, 60)), ("off", None), ("0", None),
     ("", None)],
)  # fmt: skip
def test_rates_are_written_like_drf_throttle_rates(text, rate):
    """Rates read as count/period; 'off', '0' or nothing switch a limit off."""
    assert parse_rate(text) == rate


def test_a_malformed_rate_is_refused_at_startup():
    """A typo in MCP_RATE_LIMIT_* is an error naming it, not a silent 'no limit'."""
    with pytest.raises(ValueError, match="600 per minute"):
        parse_rate("600 per minute")


def test_the_client_budget_holds_for_its_window_and_then_refills():
    """`limit` requests per window pass, the next is refused with the seconds left in the
    window; the next window starts from zero."""
    clock = Clock()  # 20 s into a minute window
    limiter = Limiter(client=Rate(3, 60), tool=None, clock=clock, background=False)
    assert [limiter.check(CLIENT) for _ in range(3)] == [None, None, None]
    refused = limiter.check(CLIENT)
    assert refused.code == -32029 and refused.http_status == 429 == refused.legacy_http_status
    assert refused.retry_after == 40 and refused.data == {"retryAfter": 40, "limit": "client"}
    assert "3 requests per 60 s" in refused.message and "Retry in 40 s" in refused.message
    assert limiter.check("198.51.100.1") is None  # another client has its own budget
    clock.now += 40
    assert limiter.check(CLIENT) is None


def test_the_tool_budget_is_per_client_and_tool():
    """One tool's budget does not spend another's, nor another client's."""
    limiter = Limiter(client=None, tool=Rate(2, 60), clock=Clock(), background=False)
    assert limiter.check(CLIENT, "search_term") is None
    assert limiter.check(CLIENT, "search_term") is None
    refused = limiter.check(CLIENT, "search_term")
    assert refused.data["limit"] == "tool" and "'search_term' 2 times per 60 s" in refused.message
    assert limiter.check(CLIENT, "get_term") is None
    assert limiter.check("198.51.100.1", "search_term") is None


def test_exempt_networks_and_in_process_callers_are_not_counted():
    """Loopback (the default MCP_RATE_LIMIT_EXEMPT) and callers without an address pass."""
    limiter = Limiter(client=Rate(1, 60), tool=None, exempt=("127.0.0.0/8", "::1"),
                      clock=Clock(), background=False)  # fmt: skip
    for address in ("127.0.0.1", "127.8.0.1", "::1", "", "127.0.0.1"):
        assert limiter.check(address) is None
    assert limiter.check(CLIENT) is None and limiter.check(CLIENT) is not None
    assert settings.MCP_RATE_LIMIT_EXEMPT == ["127.0.0.0/8", "::1"]


@pytest.mark.django_db
def test_counts_are_shared_between_processes_through_the_cache():
    """Two processes (two limiters over the same shared cache): after a sync each sees the
    other's count, so together they allow the limit, not twice it."""
    assert settings.CACHES["default"]["BACKEND"] in (
        "django.core.cache.backends.db.DatabaseCache",
        "django.core.cache.backends.redis.RedisCache",
    )
    caches["default"].clear()
    clock = Clock()
    one, two = (Limiter(client=Rate(4, 60), tool=None, clock=clock, background=False)
                for _ in range(2))  # fmt: skip
    assert one.check(CLIENT) is None and one.check(CLIENT) is None
    assert two.check(CLIENT) is None
    one.sync()
    two.sync()
    one.sync()  # one learns two's count
    assert one.check(CLIENT) is None  # the 4th of 4
    assert one.check(CLIENT) is not None
    one.sync()
    two.sync()
    assert two.check(CLIENT) is not None  # two knows the budget is spent


@pytest.mark.django_db
def test_a_window_that_ended_is_forgotten_by_the_sync():
    """Counts of finished windows leave memory at the next sync."""
    clock = Clock()
    limiter = Limiter(client=Rate(5, 60), tool=None, clock=clock, background=False)
    limiter.check(CLIENT)
    clock.now += 120
    limiter.sync()
    assert limiter._counts == {}


# --- over HTTP -------------------------------------------------------------------------------
@pytest.fixture
def limiter(monkeypatch):
    """A limiter with small budgets and no exemption, used by the endpoint."""
    made = Limiter(client=Rate(3, 60), tool=Rate(2, 60), clock=Clock(), background=False)
    monkeypatch.setattr(ratelimit, "get_limiter", lambda: made)
    return made


def _get_term(client, rid=1, modern=False):
    params = {"name": "get_term", "arguments": {"slug": "mcp"}}
    headers = {}
    if modern:
        params["_meta"] = meta()
        headers = modern_headers("tools/call", "get_term")
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    return post(client, body, headers=headers, **{})


@pytest.mark.parametrize("modern", [False, True], ids=["legacy", "2026-07-28"])
def test_over_the_tool_budget_is_429_with_retry_after(client, content, limiter, modern):
    """The third get_term of a client in a window: 429, Retry-After, a JSON-RPC error with the
    request's id; a ping still passes (the client budget is not spent)."""
    client.defaults["REMOTE_ADDR"] = CLIENT
    assert _get_term(client, 1, modern).status_code == 200
    assert _get_term(client, 2, modern).status_code == 200
    response = _get_term(client, 3, modern)
    assert response.status_code == 429
    assert response["Retry-After"] == "40" and response["Content-Type"] == "application/json"
    body = response.json()
    assert body["id"] == 3 and body["error"]["code"] == -32029
    assert body["error"]["data"] == {"retryAfter": 40, "limit": "tool"}


def test_over_the_client_budget_every_post_is_429(client, db, limiter):
    """Any POST counts against the client budget, even one that is not valid MCP."""
    client.defaults["REMOTE_ADDR"] = CLIENT
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert post(client, ping).status_code == 200
    assert post(client, b"{broken").status_code == 400
    assert post(client, ping).status_code == 200
    response = post(client, ping)
    assert response.status_code == 429 and response["Retry-After"] == "40"
    assert response.json()["error"]["data"]["limit"] == "client"


def test_loopback_clients_are_not_limited_by_default(client, db):
    """With the default settings the test client (127.0.0.1) is exempt: the documented
    benchmarks and local tools are never throttled."""
    ratelimit.get_limiter.cache_clear()
    try:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        for _ in range(5):
            assert post(client, ping).status_code == 200
        assert ratelimit.get_limiter()._counts == {}
    finally:
        ratelimit.get_limiter.cache_clear()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_cached_answers_count_too(limiter, era, monkeypatch):
    """Through the production WSGI entry, a call the result cache would answer counts like
    any other: the third get_term is 429 although its answer is cached."""
    from config import wsgi

    seen = []
    handler = wsgi.mcp_application
    monkeypatch.setattr(wsgi, "mcp_application", lambda env, sr: seen.append(1) or handler(env, sr))
    make_term("MCP", slug="mcp")
    params = {"name": "get_term", "arguments": {"slug": "mcp"}}
    headers = {"REMOTE_ADDR": CLIENT}
    extra = {}
    if era == "modern":
        params["_meta"] = meta()
        extra = {"mcp_protocol_version": "2026-07-28", "mcp_method": "tools/call",
                 "mcp_name": "get_term"}  # fmt: skip
    answers = []
    for rid in (1, 2, 3):
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                           "params": params}).encode()  # fmt: skip
        answers.append(call(MCP, method="POST", body=body, environ=headers, **extra))
    assert [status for status, _h, _b in answers] == [200, 200, 429]
    _status, response_headers, content = answers[2]
    assert response_headers["retry-after"] == "40"
    assert json.loads(content)["id"] == 3
    assert json.loads(content)["error"]["data"]["limit"] == "tool"
    assert len(seen) == 3
    assert sum(entry[0] for key, entry in limiter._counts.items() if key[0] == "client") == 3


def test_the_check_costs_no_query(client, content, monkeypatch, django_assert_num_queries):
    """Counting happens in memory; the shared cache is written by the sync thread only."""
    made = Limiter(client=Rate(10, 60), tool=Rate(10, 60), clock=Clock(), background=False)
    monkeypatch.setattr(ratelimit, "get_limiter", lambda: made)
    client.defaults["REMOTE_ADDR"] = CLIENT
    _get_term(client, 1)  # first sight
    _get_term(client, 2)  # stored in the result cache
    with django_assert_num_queries(1):  # the content state; the answer is cached
        assert _get_term(client, 3).status_code == 200
    assert made._counts


def test_the_endpoint_url_is_the_one_limited(client, db, limiter):
    """Pages are not counted: the limits are the MCP endpoint's."""
    client.defaults["REMOTE_ADDR"] = CLIENT
    for _ in range(5):
        client.get("/")
    assert post(client, {"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code == 200
    assert MCP_URL.endswith("/mcp")
