"""The analytics report in the admin (analytics/admin.py, analytics/reports.py) and retention
(`manage.py cleanup_analytics`)."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import CommandError, call_command
from django.utils import timezone

from analytics.models import Lookup, Source
from analytics.recorder import recorder
from glossary.search import normalize_query
from tests.factories import make_term

pytestmark = pytest.mark.django_db

REPORT = "/admin/analytics/lookup/raport/"
MCP_URL = "/wp-json/webflux/v1/mcp"


def lookup(query, *, found=False, source=Source.MCP, days_ago=0, **kw):
    at = timezone.now() - timedelta(days=days_ago)
    return Lookup.objects.create(
        at=at, source=source, name=kw.pop("name", "search_term"), query=query,
        normalized=normalize_query(query), found=found, results=int(found), **kw,
    )  # fmt: skip


def get_term(client, slug):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_term", "arguments": {"slug": slug}}}  # fmt: skip
    return client.post(MCP_URL, data=json.dumps(body), content_type="application/json")


def test_an_agents_miss_is_shown_with_a_create_this_term_link(client, admin_client):
    """A get_term miss by an agent appears in the report, counted, with a link that opens the
    term form with the name (and its slug) filled in."""
    make_term("SSE")
    for _ in range(3):
        get_term(client, "agent-memory")
    get_term(client, "sse")
    recorder.flush()
    html = admin_client.get(REPORT).content.decode()
    assert "Szukali i nie znaleźli" in html
    row = html[html.index("<td>agent-memory</td>") :]
    assert '<td class="num">3</td>' in row[:200]
    link = "/admin/glossary/term/add/?name=agent-memory&amp;slug=agent-memory"
    assert link in html
    form = admin_client.get(link.replace("&amp;", "&")).content.decode()
    assert 'name="name" value="agent-memory"' in form
    assert 'name="slug" value="agent-memory"' in form


def test_misses_group_case_and_spacing_and_say_when_the_term_exists(admin_client):
    """Queries that fold to the same text are one row; a miss whose term an editor has
    created since links to it instead of offering to create it."""
    lookup("Agent  Memory")
    lookup("agent memory")
    lookup("Serwer MCP")
    term = make_term("Serwer MCP", slug="serwer-mcp")
    html = admin_client.get(REPORT).content.decode()
    assert html.count("Agent  Memory</td>") + html.count("agent memory</td>") == 1
    assert '<td class="num">2</td>' in html
    assert f"/admin/glossary/term/{term.pk}/change/" in html and "już jest: Serwer MCP" in html


def test_report_sections_count_terms_clients_and_days(admin_client):
    """Most requested terms (by name), calls per client and version, calls per day."""
    term = make_term("JSON-RPC", slug="json-rpc")
    for _ in range(4):
        lookup("json-rpc", found=True, top_result="json-rpc", top_kind="term",
               client_name="claude-code", client_version="2.0")  # fmt: skip
    lookup("x", client_name="cursor", client_version="1.0", days_ago=1)
    report = admin_client.get(REPORT).context["report"]
    assert [(t["top_result"], t["times"], t["term"]["pk"]) for t in report.top_terms] == [
        ("json-rpc", 4, term.pk)
    ]
    clients = [
        (c["client_name"], c["client_version"], c["times"], c["misses"]) for c in report.clients
    ]
    assert clients == [("claude-code", "2.0", 4, 0), ("cursor", "1.0", 1, 1)]
    assert [d["times"] for d in report.per_day] == [4, 1]
    assert (report.total, report.misses_total) == (5, 1)


def test_the_site_search_has_the_same_report(client, admin_client):
    """?zrodlo=site reports the search box: a reader's miss shows there, not in the agents'."""
    client.get("/szukaj/", {"q": "zupa pomidorowa"})
    recorder.flush()
    site = admin_client.get(REPORT, {"zrodlo": "site"}).content.decode()
    agents = admin_client.get(REPORT).content.decode()
    assert "<td>zupa pomidorowa</td>" in site
    assert "zupa pomidorowa" not in agents


def test_the_period_limits_the_report(admin_client):
    """?dni=7 leaves out older lookups; unknown values fall back to 30 days."""
    lookup("stare", days_ago=20)
    assert "stare" not in admin_client.get(REPORT, {"dni": 7}).content.decode()
    assert "stare" in admin_client.get(REPORT, {"dni": "abc"}).content.decode()


def test_report_query_count_is_constant(admin_client, django_assert_max_num_queries):
    """The report costs the same number of queries with 3 or 300 rows of each kind."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def seed(n):
        for i in range(n):
            lookup(f"brak {i}", client_name=f"c{i % 7}")
            lookup(f"t{i}", found=True, top_result=f"t{i}", top_kind="term")

    seed(3)
    with CaptureQueriesContext(connection) as few:
        admin_client.get(REPORT)
    seed(100)
    with django_assert_max_num_queries(len(few)):
        admin_client.get(REPORT)


def test_report_needs_the_view_permission(client, db):
    """Staff without the permission to view lookups get 403; with it, the report."""
    user = User.objects.create_user("redaktor", password="x", is_staff=True)
    client.force_login(user)
    assert client.get(REPORT).status_code == 403
    user.user_permissions.add(Permission.objects.get(codename="view_lookup"))
    assert client.get(REPORT).status_code == 200


def test_create_term_action_opens_the_prefilled_form(admin_client):
    """The changelist action on one selected lookup redirects to the filled-in term form."""
    row = lookup("Okno kontekstowe")
    response = admin_client.post(
        "/admin/analytics/lookup/",
        {"action": "create_term", "_selected_action": [row.pk]},
    )
    assert response.status_code == 302
    assert response["Location"] == (
        "/admin/glossary/term/add/?name=Okno+kontekstowe&slug=okno-kontekstowe"
    )


def test_lookups_are_read_only_in_the_admin(admin_client):
    """Nobody adds or edits recorded lookups."""
    row = lookup("x")
    assert admin_client.get("/admin/analytics/lookup/add/").status_code == 403
    page = admin_client.get(f"/admin/analytics/lookup/{row.pk}/change/").content.decode()
    assert 'type="submit" value="Zapisz"' not in page


def test_cleanup_deletes_what_is_older_than_the_retention(settings):
    """cleanup_analytics deletes rows older than ANALYTICS_RETENTION_DAYS (or --days)."""
    settings.ANALYTICS_RETENTION_DAYS = 30
    lookup("nowe", days_ago=1)
    lookup("stare", days_ago=31)
    out = StringIO()
    call_command("cleanup_analytics", stdout=out)
    assert list(Lookup.objects.values_list("query", flat=True)) == ["nowe"]
    assert "Deleted 1 lookup(s) older than 30 day(s)." in out.getvalue()
    call_command("cleanup_analytics", "--days", "1", stdout=StringIO())
    assert not Lookup.objects.exists()


def test_cleanup_refuses_zero_days():
    """--days 0 would delete everything: refused."""
    with pytest.raises(CommandError):
        call_command("cleanup_analytics", "--days", "0")


def test_the_report_speaks_proper_polish_about_days_and_empty_misses(admin_client):
    """The period reads "1 dzień" / "ostatnia doba" (never "1 dni"), and misses without a
    query (calls refused before searching) are counted apart, so the total matches the list
    plus them."""
    lookup("agent memory")
    lookup("")
    lookup("", count=2)
    html = admin_client.get(REPORT, {"dni": 1}).content.decode()
    assert "1 dni" not in html and ">1 dzień</a>" in html and ">7 dni</a>" in html
    assert "ostatnia doba" in html
    assert "bez wyniku: <strong>4</strong>" in html
    assert "w tym puste, z wywołań odrzuconych przed wyszukaniem: <strong>3</strong>" in html
