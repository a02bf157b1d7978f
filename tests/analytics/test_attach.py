"""Learning from misses: an editor attaches a query that found nothing to the term it was
about, in one click from the analytics report (analytics/admin.py), through the glossary's
service layer (glossary.services.attach_asked_as: a revision, change events, the content
version); from then on the query finds its term first on every surface, and the attached
phrase is never auto-linked nor shown to readers."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils import timezone
from reversion.models import Version

from analytics.models import Lookup, Source
from glossary import services
from glossary.events import entry_channel
from glossary.models import Article, Status, Term
from glossary.search import normalize_query, term_search
from glossary.selectors import content_state
from tests.factories import make_term
from tests.mcp.helpers import call_tool

pytestmark = pytest.mark.django_db

REPORT = "/admin/analytics/lookup/raport/"
ATTACH = "/admin/analytics/lookup/raport/dolacz/"
API = "/wp-json/webflux/v1"
# A reader's words for the context window: none of them is in its name or definition, and
# "pamięć" names another term, which the query finds instead.
QUERY = "Pamięć rozmowy z czatem"


@pytest.fixture
def terms():
    return {
        "okno": make_term(
            "Okno kontekstowe",
            short_definition="Największa liczba tokenów, którą model przetwarza naraz.",
        ),
        "pamiec": make_term(
            "Pamięć agenta", short_definition="To, co agent zachowuje między zadaniami."
        ),
        "token": make_term("Token", short_definition="Kawałek tekstu, który model czyta."),
        "szkic": make_term("Ukryty szkic", status=Status.DRAFT, short_definition=""),
    }


def missed(query, *, source=Source.MCP, times=1):
    for _ in range(times):
        Lookup.objects.create(
            at=timezone.now() - timedelta(hours=1), source=source, name="search_term",
            query=query, normalized=normalize_query(query),
        )  # fmt: skip


def attach(client, term, query=QUERY, **extra):
    data = {"term": getattr(term, "pk", term), "query": query, "zrodlo": "mcp", "dni": "30"}
    return client.post(ATTACH, {**data, **extra})


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def row_of(html: str, query: str) -> str:
    start = html.index(f"<td>{query}</td>")
    return html[start : html.index("</tr>", start)]


def form_fields(row: str) -> dict:
    """The hidden inputs of a report row's attach form, as the browser would send them."""
    inputs = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', row)
    return {name: unescape(value) for name, value in inputs}


# --- The report's control -------------------------------------------------------------------


def test_one_click_from_the_report_attaches_the_query_and_says_so(admin_client, terms):
    """Each missed query in the report has a term picker (the admin's autocomplete over every
    term, drafts included) and a "Dołącz do pojęcia" button; sending that row's form attaches
    the query to the chosen term and brings the editor back to the same report with a Polish
    message naming the term, where the row now says it is attached instead of offering the
    control again."""
    missed(QUERY, source=Source.SITE, times=3)
    missed("websocket", source=Source.SITE)
    page = admin_client.get(REPORT, {"zrodlo": "site", "dni": 7}).content.decode()
    row = row_of(page, QUERY)
    assert 'class="admin-autocomplete"' in row and 'data-model-name="term"' in row
    assert "Dołącz do pojęcia" in row and 'name="csrfmiddlewaretoken"' in row
    fields = form_fields(row)
    assert fields["query"] == QUERY and (fields["zrodlo"], fields["dni"]) == ("site", "7")
    for typed, term in (("okno", terms["okno"]), ("ukryty", terms["szkic"])):
        params = {"app_label": "glossary", "model_name": "term", "field_name": "related"}
        found = admin_client.get("/admin/autocomplete/", {**params, "term": typed}).json()
        assert found["results"][0]["id"] == str(term.pk)

    response = admin_client.post(ATTACH, {**fields, "term": terms["okno"].pk})
    assert response.status_code == 302
    assert response["Location"] == f"{REPORT}?zrodlo=site&dni=7"
    back = admin_client.get(response["Location"])
    assert messages_of(back) == [
        f"Dołączono zapytanie „{QUERY}” do pojęcia „Okno kontekstowe” (pytano też jako)."
    ]
    row = row_of(back.content.decode(), QUERY)
    assert "✓ dołączone do:" in row and "Okno kontekstowe" in row
    assert f"/admin/glossary/term/{terms['okno'].pk}/change/" in row
    assert "Dołącz do pojęcia" not in row and "Utwórz to pojęcie" not in row
    assert "Dołącz do pojęcia" in row_of(back.content.decode(), "websocket")
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == [QUERY]


def test_a_draft_term_takes_an_attached_query(admin_client, terms):
    """The picker offers drafts too (an editor may be writing the term the query was about);
    attaching to a draft works the same way."""
    assert attach(admin_client, terms["szkic"]).status_code == 302
    assert Term.objects.get(pk=terms["szkic"].pk).asked_as == [QUERY]


def test_the_report_marks_every_spelling_of_an_attached_query(admin_client, terms):
    """Misses are grouped by the folded query, and so is the attached mark: a spelling that
    differs in case or Polish letters is attached too; a miss equal to a term's synonym but
    attached nowhere keeps its control."""
    terms["token"].synonyms = ["żeton"]
    terms["token"].save()
    missed("PAMIEC rozmowy z czatem")
    missed("żeton")
    attach(admin_client, terms["okno"])
    html = admin_client.get(REPORT).content.decode()
    assert "✓ dołączone do:" in row_of(html, "PAMIEC rozmowy z czatem")
    assert "Dołącz do pojęcia" in row_of(html, "żeton")


# --- Who may ----------------------------------------------------------------------------------


def test_attaching_needs_the_permission_to_change_terms(client, terms):
    """Staff who may read the report but not change terms see no attach control and get 403
    when they post one; with glossary.change_term they attach."""
    missed(QUERY)
    user = User.objects.create_user("analityk", password="x", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_lookup"))
    client.force_login(user)
    assert "Dołącz do pojęcia" not in client.get(REPORT).content.decode()
    assert attach(client, terms["okno"]).status_code == 403
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == []

    user.user_permissions.add(Permission.objects.get(codename="change_term"))
    user = User.objects.get(pk=user.pk)  # permissions are cached on the instance
    client.force_login(user)
    assert "Dołącz do pojęcia" in client.get(REPORT).content.decode()
    assert attach(client, terms["okno"]).status_code == 302
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == [QUERY]


def test_anonymous_visitors_are_sent_to_log_in(client, terms):
    """Without a staff session the attach address is the admin's login, and nothing changes."""
    response = attach(client, terms["okno"])
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == []


def test_attaching_is_csrf_protected_and_post_only(terms):
    """A POST without the report form's CSRF token is refused (403) and changes nothing; the
    token the report page carries lets it through. GET is 405."""
    missed(QUERY)
    editor = User.objects.create_superuser("redaktorka", "r@example.com", "x")
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    assert attach(client, terms["okno"]).status_code == 403
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == []
    fields = form_fields(row_of(client.get(REPORT).content.decode(), QUERY))
    assert fields["csrfmiddlewaretoken"]
    assert client.post(ATTACH, {**fields, "term": terms["okno"].pk}).status_code == 302
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == [QUERY]
    assert client.get(ATTACH).status_code == 405


# --- What is written ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_attaching_is_a_revision_by_the_editor_with_events_and_a_new_content_version(
    admin_client, admin_user, terms
):
    """The attach is saved like an admin edit: one revision attributed to the editor whose
    comment names the query, a change event for the term's page, and a new content version
    (every cache keyed by it sees the change)."""
    from django_eventstream.models import Event

    before = content_state()
    attach(admin_client, terms["okno"])
    version = Version.objects.get_for_object(terms["okno"]).first()
    assert version.revision.comment == f"Dołączono zapytanie „{QUERY}” (pytano też jako)."
    assert version.revision.user == admin_user
    assert version.field_dict["asked_as"] == [QUERY]
    assert Term.objects.get(pk=terms["okno"].pk).last_editor == admin_user
    channel = entry_channel("term", terms["okno"].slug)
    assert Event.objects.filter(channel=channel, type="updated").exists()
    assert content_state() != before


def test_the_query_is_stored_as_typed_trimmed_and_once(admin_client, terms):
    """The phrase keeps its letters and case, loses outer and doubled whitespace; the same
    query again (in any case, with or without Polish letters), or one equal to the term's
    name, is a no-op with a message and no new revision."""
    admin_client.get(
        attach(admin_client, terms["okno"], query="  Pamięć   ROZMOWY z czatem \t")["Location"]
    )
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == ["Pamięć ROZMOWY z czatem"]
    revisions = Version.objects.get_for_object(terms["okno"]).count()
    for again in ("pamięć rozmowy z czatem", "PAMIEC rozmowy z  czatem", "OKNO KONTEKSTOWE"):
        response = attach(admin_client, terms["okno"], query=again)
        assert messages_of(admin_client.get(response["Location"])) == [
            f"Pojęcie „Okno kontekstowe” już zna zapytanie „{' '.join(again.split())}” (jako "
            "nazwę, synonim albo „pytano też jako”); nic nie zmieniono."
        ]
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == ["Pamięć ROZMOWY z czatem"]
    assert Version.objects.get_for_object(terms["okno"]).count() == revisions
    attach(admin_client, terms["okno"], query="limit kontekstu")
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == [
        "Pamięć ROZMOWY z czatem",
        "limit kontekstu",
    ]


@pytest.mark.parametrize(
    "term, query, message",
    [
        (999_999, QUERY, "Nie ma takiego pojęcia (może zostało usunięte)."),
        ("abc", QUERY, "Nie ma takiego pojęcia (może zostało usunięte)."),
        ("1\x00", QUERY, "Nie ma takiego pojęcia (może zostało usunięte)."),
        ("", QUERY, "Wybierz pojęcie, do którego dołączyć zapytanie."),
        ("okno", "", "Zapytanie jest puste."),
        ("okno", " \t\n ", "Zapytanie jest puste."),
        ("okno", "x" * 201, "Zapytanie ma 201 znaków, a dołączyć można najwyżej 200."),
        ("okno", "okno\x00kontekstu", "Zapytanie zawiera znaki sterujące."),
        ("okno", "okno\x1bkontekstu", "Zapytanie zawiera znaki sterujące."),
    ],
)
def test_bad_input_is_a_message_on_the_report_never_an_error_page(
    admin_client, terms, term, query, message
):
    """An unknown or malformed term id, an empty query, one longer than 200 characters or one
    holding NUL or other control characters: back to the report with a clear Polish message,
    nothing written."""
    term = terms[term].pk if term == "okno" else term
    response = attach(admin_client, term, query=query, zrodlo="\x00", dni="\x00")
    assert response.status_code == 302
    assert response["Location"] == f"{REPORT}?zrodlo=mcp&dni=30"
    assert messages_of(admin_client.get(response["Location"])) == [message]
    assert not Term.objects.exclude(asked_as=[]).exists()


def test_a_query_of_exactly_200_characters_is_accepted(admin_client, terms):
    """200 characters (after trimming) is the limit, inclusive."""
    query = "ą" * 200
    attach(admin_client, terms["okno"], query=f"  {query}  ")
    assert Term.objects.get(pk=terms["okno"].pk).asked_as == [query]


# --- The promise: found first from then on, everywhere ------------------------------------------


def first_hits(client) -> dict[str, str | None]:
    """The first term each surface answers QUERY with (None: no term at all)."""
    engine = term_search(query=QUERY, limit=10)
    mcp = call_tool(client, "search_term", {"query": QUERY})["structuredContent"]["results"]
    rest = client.get(f"{API}/terms", {"search": QUERY}).json()
    page = client.get("/szukaj/", {"q": QUERY}).context["results"]
    return {
        "engine": engine[0].slug if engine else None,
        "mcp": mcp[0]["slug"] if mcp else None,
        "rest": rest[0]["slug"] if rest else None,
        "page": page.terms[0].slug if page.terms else None,
    }


def all_hits(client) -> set[str]:
    engine = {hit.slug for hit in term_search(query=QUERY, limit=50)}
    mcp = call_tool(client, "search_term", {"query": QUERY, "limit": 50})["structuredContent"]
    rest = client.get(f"{API}/terms", {"search": QUERY, "per_page": 50}).json()
    page = client.get("/szukaj/", {"q": QUERY}).context["results"]
    return (
        engine
        | {hit["slug"] for hit in mcp["results"]}
        | {term["slug"] for term in rest}
        | {hit.slug for hit in page.terms}
    )


def test_an_attached_query_finds_its_term_first_on_every_surface(client, admin_client, terms):
    """A query that did not find the term at all (another term came first) finds it first
    once an editor has attached it: in glossary.search.term_search, the MCP tool search_term
    (through the endpoint), the REST API's `?search=` on terms and the search page, which
    shows it as the card for an exact match. The answers given before the attach (cached
    per content version) do not outlive it."""
    okno = terms["okno"].slug
    before = first_hits(client)
    assert set(before.values()) == {"pamiec-agenta"}
    assert okno not in all_hits(client)

    attach(admin_client, terms["okno"])

    assert first_hits(client) == {"engine": okno, "mcp": okno, "rest": okno, "page": okno}
    page = client.get("/szukaj/", {"q": QUERY})
    assert page.context["results"].exact.slug == okno
    # Folded, as every query is: case and Polish letters do not matter.
    assert term_search(query="PAMIEC rozmowy  z CZATEM")[0].slug == okno


# --- What readers never see ----------------------------------------------------------------------


def test_an_attached_phrase_is_never_auto_linked(admin_client, terms):
    """Texts that contain an attached phrase get no link to its term — neither those written
    before the attach (relinked by it) nor those saved after — while the terms they name
    are linked as usual."""
    body = "Kończy się pamięć rozmowy z czatem, bo każdy token się liczy."
    earlier = services.save_term(Term(name="Długa rozmowa", short_definition="R.", body=body))
    attach(admin_client, terms["okno"])
    later = services.save_article(Article(title="Agenci", body=body, status=Status.PUBLISHED))
    okno, token = terms["okno"].get_absolute_url(), terms["token"].get_absolute_url()
    earlier.refresh_from_db()
    for text in (earlier, later):
        assert "pamięć rozmowy z czatem" in text.display_html
        assert f'href="{token}"' in text.display_html
        assert okno not in text.display_html
        assert terms["okno"] not in text.mentions.all()


def test_an_attached_phrase_is_not_shown_on_the_public_term_page(client, admin_client, terms):
    """The term's page, its Markdown alternate and the MCP get_term answer do not show the
    phrases attached to it (they are what people asked, not names of the concept)."""
    attach(admin_client, terms["okno"])
    slug = terms["okno"].slug
    page = client.get(f"/slownik/{slug}/")
    markdown = client.get(f"/slownik/{slug}.md")
    agent = call_tool(client, "get_term", {"slug": slug})
    assert page.status_code == markdown.status_code == 200
    for text in (page.content.decode(), markdown.content.decode(), str(agent)):
        assert "Okno kontekstowe" in text
        assert "rozmowy z czatem" not in text.lower()
