"""Shared fixtures. The suite runs twice in `make test`: on a throwaway PostgreSQL cluster
(the real database) and on SQLite (the embedded default); `@pytest.mark.postgres` tests are
skipped on the latter."""

import pytest
from django.db import connection
from django.test import override_settings


def pytest_collection_modifyitems(config, items):
    if connection.vendor != "postgresql":
        skip = pytest.mark.skip(reason="needs PostgreSQL (run under scripts/with-postgres)")
        for item in items:
            if "postgres" in item.keywords:
                item.add_marker(skip)


def pytest_report_header(config):
    return f"database: {connection.vendor} ({connection.settings_dict['NAME']})"


@pytest.fixture(scope="session", autouse=True)
def fast_password_hasher():
    """Passwords hashed once with MD5 instead of PBKDF2's hundreds of thousands of rounds:
    the tests that log editors in are about permissions and pages, not about hashing, and
    PBKDF2 made them several times slower (Django's testing docs suggest the same)."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session")
def anyio_backend():
    """Async tests run on asyncio, the event loop of the peers they drive (the SDK client,
    uvicorn). trio is installed only as a Selenium dependency; with it anyio's plugin would
    run every async test a second time on trio, which tests the SDK, not this server."""
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def store_watcher(django_db_setup):
    """In-process streams (tests/mcp/test_eventstore.py) start the live-update watcher
    (glossary/eventstream.py), which holds a connection to the test database: stopped before
    pytest-django drops that database."""
    yield
    from glossary.eventstream import StoreWatcher

    StoreWatcher.shutdown()


# --- Live server for tests with real peers (SDK client, conformance suite, curl exchanges) ----
LIVE_SERVER_KEY = pytest.StashKey()


@pytest.fixture(scope="session")
def live_site(request):
    """One real Słownik server process for the whole run (see tests/processes.py), on its own
    database filled with the demo content; stopped and its database dropped at the end."""
    from .processes import LiveServer

    server = LiveServer()
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    request.session.stash[LIVE_SERVER_KEY] = server
    yield server
    server.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing live test shows what the server said on stderr (tracebacks are logged there)."""
    report = yield
    server = item.session.stash.get(LIVE_SERVER_KEY, None)
    if report.failed and server is not None and "live" in item.keywords:
        report.sections.append(("live server stderr", server.stderr_tail()))
    return report


# --- A real browser (Debian's Chromium through Selenium; see tests/browser.py) -------------
@pytest.fixture(scope="session")
def chromium(live_server):
    """One headless Chromium for the whole run; each test gets a clean state from `browser`.

    It depends on pytest-django's live server so that it quits first: the keep-alive
    connections it holds to that server close while the server still shares the in-memory
    SQLite connection with its request threads (closing them after the server stopped raised
    in each of those threads, a warning per connection at the end of every SQLite run)."""
    from .browser import start_chromium

    driver = start_chromium()
    yield driver
    driver.quit()


@pytest.fixture
def browser(chromium, live_server):
    """The session's Chromium pointed at pytest-django's live server, cookies cleared, so a
    test starts as a new visitor. `browser.url(path)` builds an absolute address."""
    from .browser import block_live_streams

    chromium.delete_all_cookies()
    block_live_streams(chromium)
    chromium.url = lambda path="/": live_server.url + path
    yield chromium
    chromium.get("about:blank")


# --- Analytics (analytics/recorder.py) -------------------------------------------------------
@pytest.fixture(autouse=True)
def _analytics_buffer():
    """In-process tests flush analytics by hand: the recorder's background thread would write
    through a connection of its own, outside each test's transaction. Every test starts with
    an empty buffer (tests/analytics/ start a thread of their own where that is the point)."""
    from analytics.recorder import recorder

    recorder.flush_seconds = 0
    recorder.buffer.clear()
    yield
    recorder.buffer.clear()


# --- The MCP result cache (mcp_endpoint/features/cache.py) ------------------------------------
@pytest.fixture(autouse=True)
def _no_call_seen_yet():
    """Every test starts as a fresh process does: no call seen yet. The result cache caches a
    call from its second sight; a call an earlier test made would otherwise count, and a
    test's query counts would depend on the order tests run in."""
    from mcp_endpoint.core.server import _servers

    for server in _servers.values():
        if server.result_cache is not None:
            server.result_cache.seen.clear()


@pytest.fixture(autouse=True)
def _no_content_state_read_yet():
    """Every test starts as a fresh process does: no content state read yet, no REST list
    total or walked ids kept. They are keyed by the content state, whose version rolls back
    with each test's transaction: a later test reaches the same version with other content,
    and would otherwise be answered from an earlier test's lists."""
    from api import queries
    from glossary import selectors

    selectors.state._last_state = None
    queries._COUNTS.clear()
    queries._WALKED.clear()


# --- The canonical site address (glossary/site.py) -----------------------------------------
@pytest.fixture(scope="session")
def _site_address_read(django_db_setup, django_db_blocker):
    """The site's address is read from the database once per process (glossary/site.py), so
    it is read here, before any test: otherwise whichever test came first would count that
    one query in its assertNumQueries. Gives the Site row (for `_site_cache_warm`)."""
    from django.conf import settings
    from django.contrib.sites.models import Site

    from glossary import site

    with django_db_blocker.unblock():
        site.forget()
        site.site_url()
        return Site.objects.get(pk=settings.SITE_ID)


DB_FIXTURES = {"_django_db_helper", "db", "transactional_db", "live_server"}


@pytest.fixture(autouse=True)
def _site_cache_warm(request, _django_clear_site_cache):
    """pytest-django empties Django's Site cache before every test; a running process keeps
    it (one query per process, then none), so every view that asks `get_current_site` (the
    sitemap, the feed, the admin) would count a query no production request makes. Refilled
    here from the row read once, without a query."""
    from django.conf import settings
    from django.contrib.sites.models import SITE_CACHE

    if DB_FIXTURES.isdisjoint(request.fixturenames):
        return  # no database in this test (and perhaps none set up in this run)
    SITE_CACHE[settings.SITE_ID] = request.getfixturevalue("_site_address_read")


@pytest.fixture
def site_address(db, settings):
    """`site_address("https://slownik.example")` makes that the canonical address for one
    test (the Site row, as `manage.py site_url` would, and SITE_URL alike); afterwards the
    process remembers the original one again, without a query."""
    from django.contrib.sites.models import SITE_CACHE, Site

    from glossary import site

    original = Site.objects.get(pk=settings.SITE_ID)

    def change(url: str) -> None:
        domain = site.domain_for(url)
        Site.objects.filter(pk=settings.SITE_ID).update(domain=domain)
        settings.SITE_URL = url
        site.forget()
        site.seen(domain)
        SITE_CACHE[settings.SITE_ID] = Site.objects.get(pk=settings.SITE_ID)

    yield change
    site.forget()
    site.seen(original.domain)
    # Django's own per-process Site cache (get_current_site: the sitemap view, the admin),
    # which saving a Site clears: back to the original row, without a query.
    SITE_CACHE[settings.SITE_ID] = original
