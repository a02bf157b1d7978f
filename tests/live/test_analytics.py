"""Analytics in a real production process (granian's WSGI interface over config.wsgi): calls
answered by the selectors and by the result cache both reach the database, written by the
recorder's background thread within its flush interval, and the caller never waits for it."""

from __future__ import annotations

import http.client
import json
import time
import uuid

import pytest

from tests.processes import HOST, MCP_PATH, WSGI_SERVER_COMMAND

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def wsgi_site(live_site):
    return live_site.spawn("granian-wsgi-analytics", command=WSGI_SERVER_COMMAND)


def _call(server, slug: str, request_id: int) -> dict:
    body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "get_term", "arguments": {"slug": slug}}}  # fmt: skip
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    try:
        conn.request("POST", MCP_PATH, json.dumps(body), {"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 200
        return json.loads(response.read())
    finally:
        conn.close()


def test_computed_and_cached_calls_are_written_by_the_background_thread(live_site, wsgi_site):
    """Three identical misses (computed twice, then from the result cache) are written within
    the flush interval (ANALYTICS_FLUSH_SECONDS, 5 s by default): three lookups in the count."""
    slug = f"brak-{uuid.uuid4().hex[:10]}"
    for request_id in (1, 2, 3):
        assert _call(wsgi_site, slug, request_id)["result"]["isError"] is True
    script = (
        "from django.db.models import Sum; from analytics.models import Lookup; "
        f"print(Lookup.objects.filter(query={slug!r}, found=False, name='get_term')"
        ".aggregate(n=Sum('count'))['n'] or 0)"
    )
    deadline, count = time.monotonic() + 30, "0"
    while time.monotonic() < deadline:
        count = live_site.manage("shell", "-c", script).strip().splitlines()[-1]
        if count == "3":
            break
        time.sleep(1)
    assert count == "3"
