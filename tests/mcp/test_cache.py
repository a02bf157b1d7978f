"""The MCP result cache (mcp_endpoint/features/cache.py) and the content version it keys on
(glossary/migrations/0004): every way content can change reaches the next call, and a
cached call costs exactly one query."""

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from glossary.db.cache import LRU
from glossary.importexport import parse_json
from glossary.importing import import_terms
from glossary.models import Term
from glossary.selectors import content_state
from tests.factories import make_term
from tests.mcp.helpers import call_tool, legacy, result_of


def _definition(client, slug="mcp", era="legacy") -> str:
    return call_tool(client, "get_term", {"slug": slug}, era=era)["structuredContent"][
        "shortDefinition"
    ]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_repeated_call_costs_one_query(client, content, django_assert_num_queries, era):
    """A call seen for the first time costs the selectors' queries alone (no content-state
    read: nothing is looked up or stored for it); its second sight, a miss, costs the state
    read plus those queries and is stored; from then on the answer costs one query (the
    content state) and is the same answer as computing it."""
    with django_assert_num_queries(1):
        first = call_tool(client, "get_term", {"slug": "mcp"}, era=era)
    with django_assert_num_queries(1 + 1):
        assert call_tool(client, "get_term", {"slug": "mcp"}, era=era) == first
    with django_assert_num_queries(1):
        again = call_tool(client, "get_term", {"slug": "mcp"}, era=era)
    assert again == first
    call_tool(client, "search_term", {"query": "mcp"}, era=era)
    call_tool(client, "search_term", {"query": "mcp"}, era=era)
    with django_assert_num_queries(1):
        call_tool(client, "search_term", {"query": "mcp"}, era=era)


def test_a_call_seen_once_is_cached_from_its_second_sight(content, django_assert_num_queries):
    """`ContentResultCache.admits`: a first call leaves no entry (a distinct-key stream pays
    no state read and fills no memory with answers nobody asks for again), and the calls it
    remembers as seen are bounded like the entries (`SEEN_PER_ENTRY` per entry), each by its
    hash alone."""
    from mcp_endpoint.features.cache import SEEN_PER_ENTRY, ContentResultCache

    cache = ContentResultCache(2)
    assert cache.seen.size == 2 * SEEN_PER_ENTRY

    class Ctx:  # what the key reads of a request context
        era, protocol_version = "legacy", "2025-03-26"

    with django_assert_num_queries(0):
        assert cache.key("tools/call", {"name": "get_term", "arguments": {}}, Ctx) is None
    with django_assert_num_queries(1):  # seen before: the state is read, the key built
        key = cache.key("tools/call", {"name": "get_term", "arguments": {}}, Ctx)
    assert key is not None and key[1:4] == ("legacy", "2025-03-26", "tools/call")
    for n in range(2 * SEEN_PER_ENTRY):
        cache.admits(("other", n, b"x" * 100_000))
    assert not cache.admits(("legacy", "2025-03-26", "tools/call", key[4]))  # forgotten
    # What is remembered is a hash, never the request: distinct large requests cannot fill
    # memory.
    assert all(isinstance(digest, int) for digest in cache.seen._data)


def test_an_orm_edit_reaches_the_next_call(client, content):
    """Saving a term through the ORM (admin, services) invalidates its cached answer."""
    _definition(client)
    content.mcp.short_definition = "Nowa definicja z panelu."
    content.mcp.save()
    assert _definition(client) == "Nowa definicja z panelu."


def test_an_edit_of_a_linked_entry_reaches_the_next_call(client, content):
    """Renaming a related term changes the cached answer of the term that links to it."""
    call_tool(client, "get_term", {"slug": "mcp"})
    Term.objects.filter(pk=content.rpc.pk).update(name="JSON-RPC 2.0")  # no signals sent
    related = call_tool(client, "get_term", {"slug": "mcp"})["structuredContent"]["related"]
    assert related[0]["name"] == "JSON-RPC 2.0"


def test_a_bulk_import_reaches_the_next_call(client, content):
    """The bulk import (bulk_create/bulk_update, no model signals) invalidates answers."""
    assert call_tool(client, "get_term", {"slug": "nowe-pojecie"})["isError"] is True
    row = {
        "name": "Nowe pojęcie",
        "slug": "nowe-pojecie",
        "short_definition": "Z importu.",
        "status": "published",
    }
    import_terms(parse_json(json.dumps([row])))
    assert _definition(client, "nowe-pojecie") == "Z importu."


def test_a_raw_sql_update_reaches_the_next_call(client, content):
    """A raw SQL UPDATE, which no Python code sees, still invalidates: database triggers."""
    _definition(client)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE glossary_term SET short_definition = %s WHERE slug = %s",
            ["Zmienione w SQL.", "mcp"],
        )
    assert _definition(client) == "Zmienione w SQL."


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_scheduled_publication_reaches_the_next_call(client, content, monkeypatch, era):
    """A term scheduled for later appears once its time passes, though nothing was written:
    the next publication time is part of the cache key."""
    slug = content.future.slug
    assert call_tool(client, "get_term", {"slug": slug}, era=era)["isError"] is True
    later = timezone.now() + timedelta(days=8)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert call_tool(client, "get_term", {"slug": slug}, era=era)["isError"] is False


def test_the_version_changes_on_every_write_and_is_not_reused_after_rollback(db):
    """Each write gives a new version; a rolled-back one is never handed out again (a cache
    entry made inside the rolled-back transaction must not match later content)."""
    from django.db import transaction

    before = content_state()
    with pytest.raises(RuntimeError), transaction.atomic():
        make_term("Wycofane")
        rolled_back = content_state()
        raise RuntimeError
    assert content_state() == before
    make_term("Zapisane")
    after = content_state()
    assert len({before, rolled_back, after}) == 3


def test_resources_and_prompts_are_cached_and_invalidated(
    client, content, django_assert_num_queries
):
    """resources/read answers from the cache too, and sees an edit on the next call."""
    params = {"uri": "glossary://terms/mcp"}
    for _ in range(2):  # first sight, then the call that stores the answer
        result_of(legacy(client, "resources/read", params))
    with django_assert_num_queries(1):
        result_of(legacy(client, "resources/read", params))
    Term.objects.filter(slug="mcp").update(short_definition="Po zmianie.")
    text = result_of(legacy(client, "resources/read", params))["contents"][0]["text"]
    assert "Po zmianie." in text


def test_static_lists_need_no_query(client, content, django_assert_num_queries):
    """tools/list and prompts/list come from declarations: not cached, no query at all."""
    with django_assert_num_queries(0):
        result_of(legacy(client, "tools/list"))
        result_of(legacy(client, "prompts/list"))


def test_the_cache_can_be_turned_off(client, content, settings, django_assert_num_queries):
    """MCP_RESULT_CACHE_SIZE=0 runs every call in full (no content-state query)."""
    settings.MCP_RESULT_CACHE_SIZE = 0
    for _ in range(2):
        with django_assert_num_queries(1):
            call_tool(client, "get_term", {"slug": "mcp"})


def test_the_cache_is_bounded():
    """The LRU forgets the least recently used entry beyond its size."""
    lru = LRU(2)
    lru.put("a", b"1")
    lru.put("b", b"2")
    lru.get("a")
    lru.put("c", b"3")
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == (b"1", None, b"3")
