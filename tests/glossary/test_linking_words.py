"""Everyday words and auto-linking: the demo links no everyday word to a narrow term, the
admin warns before a new linked name or synonym that is an everyday word or already names
another term, and a synonym can stay searchable without being linked."""

import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from glossary import autolink, services
from glossary.models import Term
from glossary.polish import fold
from tests.factories import make_article, make_term

pytestmark = pytest.mark.django_db

# Words of everyday Polish (and "RPC") that the demo once linked to narrow MCP terms.
EVERYDAY = {"serwer", "serwera", "serwerow", "serwerem", "klient", "klienta", "klientow",
            "rpc", "narzedzie", "narzedzia", "narzedzi", "zasob", "zasoby", "zasobami",
            "zasobow"}  # fmt: skip
NARROW = {"serwer-mcp", "klient-mcp", "json-rpc", "narzedzie", "zasob"}


def test_demo_links_no_everyday_word_to_a_narrow_term():
    """In the demo content no everyday word ("serwer", "klient", "RPC", "narzędzia",
    "zasobami") is a link to Serwer MCP, Klient MCP, JSON-RPC, Narzędzie or Zasób: the SSE,
    HTTP and gRPC pages do not tell readers that a server is an MCP server."""
    call_command("load_demo", verbosity=0)
    call_command("relink_texts", verbosity=0)
    found = []
    for term in Term.objects.all():
        for slug, text in re.findall(
            r'<a[^>]*/slownik/([\w-]+)/"[^>]*>(.*?)</a>', term.linked_html
        ):
            if slug in NARROW and fold(text) in EVERYDAY:
                found.append((term.slug, slug, text))
    assert found == []
    sse = Term.objects.get(slug="sse")
    assert "serwer-mcp" not in {t.slug for t in sse.mentions.all()}


def test_an_unlinked_synonym_is_found_by_search_but_never_linked():
    """A synonym listed among "Synonimy bez linkowania" still finds its term in search, but
    no text links it; the name and the other synonyms still link."""
    from glossary import search

    make_term("Serwer MCP", synonyms=["serwer", "MCP server"], unlinked_synonyms=["serwer"])
    autolink.clear_cache()
    html = autolink.current_linker().link("<p>Każdy serwer i każdy MCP server.</p>").html
    assert ">serwer<" not in html
    assert ">MCP server</a>" in html
    assert search.term_search(query="serwer")[0].title == "Serwer MCP"


def _common(word: str, n: int = 6):
    """`n` published texts that use `word`, so that it is an everyday word of the glossary."""
    for i in range(n):
        make_article(f"Tekst {i}", body=f"Tu jest {word} numer {i}.")


def term_form(**values):
    data = {"name": "", "slug": "", "short_definition": "Definicja.", "body": "",
            "synonyms": "", "unlinked_synonyms": "", "status": "published",
            "published_at_0": "", "published_at_1": "", "autolink": "on", "linkable": "on",
            "_save": "Zapisz"}  # fmt: skip
    return {**data, **values}


def test_admin_warns_before_saving_an_everyday_word_as_a_linked_synonym(admin_client):
    """A new linked synonym found in at least a third of the published texts is an everyday
    word: the admin says so before saving and saves only when the editor confirms (then
    repeats it as a warning) or lists it among the unlinked synonyms."""
    _common("serwer")
    add = reverse("admin:glossary_term_add")
    response = admin_client.post(add, term_form(name="Serwer MCP", synonyms="serwer"))
    assert response.status_code == 200
    assert "zwykłe słowo" in response.content.decode()
    assert not Term.objects.filter(name="Serwer MCP").exists()

    data = term_form(name="Serwer MCP", synonyms="serwer", unlinked_synonyms="serwer")
    response = admin_client.post(add, data, follow=True)
    term = Term.objects.get(name="Serwer MCP")
    assert term.unlinked_synonyms == ["serwer"]
    assert "zwykłe słowo" not in response.content.decode()

    term.delete()
    data = term_form(name="Serwer MCP", synonyms="serwer", confirm_warnings="on")
    response = admin_client.post(add, data, follow=True)
    assert Term.objects.filter(name="Serwer MCP").exists()
    warnings = [str(m) for m in response.context["messages"] if m.level_tag == "warning"]
    assert any("zwykłe słowo" in w for w in warnings)


def test_a_rare_word_needs_no_confirmation(admin_client):
    """A synonym used by few texts saves at once, without a warning."""
    _common("serwer", n=2)
    response = admin_client.post(
        reverse("admin:glossary_term_add"), term_form(name="Serwer MCP", synonyms="serwer")
    )
    assert response.status_code == 302


def test_unlinked_synonyms_must_be_synonyms(admin_client):
    """A synonym kept out of linking must be one of the term's synonyms (the message says so)."""
    response = admin_client.post(
        reverse("admin:glossary_term_add"),
        term_form(name="Serwer MCP", synonyms="MCP server", unlinked_synonyms="serwer"),
    )
    assert response.status_code == 200
    assert "musi być też na liście synonimów" in response.content.decode()


def test_admin_warns_when_a_name_is_another_terms_synonym(admin_client):
    """A new name (or synonym) equal to another term's name or synonym is shown before saving
    and, when the editor confirms, as a warning message."""
    make_term("Server-Sent Events", slug="sse", synonyms=["SSE"])
    add = reverse("admin:glossary_term_add")
    response = admin_client.post(add, term_form(name="SSE", slug="sse-2"))
    assert response.status_code == 200
    assert "„SSE” to już nazwa albo synonim pojęcia „Server-Sent Events”" in (
        response.content.decode()
    )
    response = admin_client.post(
        add, term_form(name="SSE", slug="sse-2", confirm_warnings="on"), follow=True
    )
    warnings = [str(m) for m in response.context["messages"] if m.level_tag == "warning"]
    assert any("Server-Sent Events" in w for w in warnings)


def test_saving_an_existing_term_again_needs_no_confirmation(admin_client):
    """Only new names and synonyms are checked: an unchanged term saves without warnings."""
    _common("serwer")
    term = services.save_term(Term(name="Serwer MCP", slug="serwer-mcp", synonyms=["serwer"],
                                   short_definition="D.", status="published"))  # fmt: skip
    response = admin_client.post(
        reverse("admin:glossary_term_change", args=[term.pk]),
        term_form(name="Serwer MCP", slug="serwer-mcp", synonyms="serwer"),
    )
    assert response.status_code == 302
