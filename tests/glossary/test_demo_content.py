"""Specification of the demo content shipped in glossary/demo/.

The JSON files are the project's import format and the data that `manage.py load_demo`,
the search tests and the MCP examples rely on, so their shape and cross-references are
checked here without touching the database.
"""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from glossary.models import plain_text
from glossary.polish import polish_slugify
from tests.glossary.demo import REQUIRED_TERM_SLUGS

DEMO_DIR = Path(__file__).resolve().parent.parent.parent / "glossary" / "demo"

TERM_KEYS = {
    "name",
    "slug",
    "short_definition",
    "english_name",
    "english_definition",
    "body",
    "synonyms",
    "categories",
    "related",
    "status",
}
ARTICLE_KEYS = {"title", "slug", "lead", "body", "terms", "series", "series_order", "status"}


SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FENCED_CODE_RE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
HTML_TAG_RE = re.compile(r"<\s*/?\s*[A-Za-z!?]")


def _load(name):
    return json.loads((DEMO_DIR / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def terms():
    return _load("terms.json")


@pytest.fixture(scope="module")
def articles():
    return _load("articles.json")


def _prose(markdown: str) -> str:
    """Markdown with code blocks and code spans removed: what a reader sees as text."""
    return INLINE_CODE_RE.sub("", FENCED_CODE_RE.sub("", markdown))


def _word_count(markdown: str) -> int:
    return len(markdown.split())


def test_files_are_json_lists():
    """Both demo files are valid UTF-8 JSON whose top level is a list of objects."""
    for name in ("terms.json", "articles.json"):
        data = _load(name)
        assert isinstance(data, list), name
        assert all(isinstance(item, dict) for item in data), name


def test_term_keys_are_exact(terms):
    """Every term has exactly the keys of the import format, no more and no fewer."""
    for term in terms:
        assert set(term) == TERM_KEYS, term.get("slug")


def test_term_field_types(terms):
    """Term fields have the types the importer expects (strings and lists of strings)."""
    for term in terms:
        for key in ("name", "slug", "short_definition", "body", "status"):
            assert isinstance(term[key], str), (term["slug"], key)
        for key in ("synonyms", "categories", "related"):
            assert isinstance(term[key], list), (term["slug"], key)
            assert all(isinstance(value, str) and value.strip() for value in term[key])


def test_article_keys_are_exact(articles):
    """Every article has exactly the keys of the import format, no more and no fewer."""
    for article in articles:
        assert set(article) == ARTICLE_KEYS, article.get("slug")


def test_enough_published_content(terms, articles):
    """The demo has at least 40 terms and 4 articles, all published."""
    assert len(terms) >= 40
    assert len(articles) >= 4
    assert {item["status"] for item in terms + articles} == {"published"}


def test_required_slugs_present(terms):
    """The slugs other helpers and tests refer to by name all exist."""
    slugs = {term["slug"] for term in terms}
    assert slugs >= REQUIRED_TERM_SLUGS, REQUIRED_TERM_SLUGS - slugs


def test_term_slugs_match_names(terms):
    """A term's slug is the Polish-folded slug of its name, so re-importing is stable."""
    for term in terms:
        assert SLUG_RE.match(term["slug"]), term["slug"]
        assert term["slug"] == polish_slugify(term["name"]), term["name"]


def test_term_slugs_and_names_unique(terms):
    """Slugs are unique and names are unique case-insensitively, like the DB constraint."""
    slugs = Counter(term["slug"] for term in terms)
    names = Counter(term["name"].casefold() for term in terms)
    assert [s for s, n in slugs.items() if n > 1] == []
    assert [s for s, n in names.items() if n > 1] == []


def test_short_definitions(terms):
    """Short definitions are plain text, non-empty, at most 300 characters and distinct."""
    for term in terms:
        text = term["short_definition"]
        assert text.strip(), term["slug"]
        assert len(text) <= 300, (term["slug"], len(text))
        assert not re.search(r"[`*_#\[\]<>]", text), term["slug"]
        assert "\n" not in text, term["slug"]
    definitions = Counter(term["short_definition"] for term in terms)
    assert [d for d, n in definitions.items() if n > 1] == []


def test_english_names_and_definitions(terms):
    """Every term has an English name (at most 200 characters) and a one-sentence English
    short definition: plain text on one line, at most 300 characters, distinct, and already
    clean (the import's `plain_text` leaves it as it is)."""
    for term in terms:
        name, text = term["english_name"], term["english_definition"]
        assert name.strip() and len(name) <= 200, term["slug"]
        assert text.strip() and len(text) <= 300, (term["slug"], len(text))
        assert not re.search(r"[`*_#\[\]<>]", text), term["slug"]
        assert plain_text(name) == name and plain_text(text) == text, term["slug"]
        assert text.endswith(".") and text.count(". ") == 0, term["slug"]
    definitions = Counter(term["english_definition"] for term in terms)
    assert [d for d, n in definitions.items() if n > 1] == []


def test_synonyms(terms):
    """Each term has 2–6 distinct synonyms, none equal to its own name."""
    for term in terms:
        synonyms = [s.casefold() for s in term["synonyms"]]
        assert 2 <= len(synonyms) <= 6, term["slug"]
        assert len(set(synonyms)) == len(synonyms), term["slug"]
        assert term["name"].casefold() not in synonyms, term["slug"]


def test_categories(terms):
    """There are 5–8 categories overall and every term belongs to one or two of them."""
    for term in terms:
        assert 1 <= len(term["categories"]) <= 2, term["slug"]
        assert len(set(term["categories"])) == len(term["categories"]), term["slug"]
    all_categories = {name for term in terms for name in term["categories"]}
    assert 5 <= len(all_categories) <= 8, sorted(all_categories)


def test_related_slugs_exist(terms):
    """Related links point to 2–5 other terms of the file, never to the term itself."""
    slugs = {term["slug"] for term in terms}
    for term in terms:
        related = term["related"]
        assert 2 <= len(related) <= 5, term["slug"]
        assert len(set(related)) == len(related), term["slug"]
        assert term["slug"] not in related, term["slug"]
        assert set(related) <= slugs, (term["slug"], set(related) - slugs)


def test_related_graph_is_connected(terms):
    """Following related links (both ways) reaches every term from any other."""
    neighbours = {term["slug"]: set() for term in terms}
    for term in terms:
        for other in term["related"]:
            neighbours[term["slug"]].add(other)
            neighbours[other].add(term["slug"])
    start = next(iter(neighbours))
    seen, todo = {start}, [start]
    while todo:
        for other in neighbours[todo.pop()] - seen:
            seen.add(other)
            todo.append(other)
    assert seen == set(neighbours), set(neighbours) - seen


def test_term_bodies_length(terms):
    """Term bodies are substantial Markdown articles of roughly 120–350 words of prose."""
    for term in terms:
        assert _word_count(_prose(term["body"])) >= 120, term["slug"]
        assert _word_count(term["body"]) <= 350, term["slug"]


def test_article_slugs_unique_and_valid(articles):
    """Article slugs are unique lowercase slugs; titles are unique."""
    slugs = [article["slug"] for article in articles]
    assert len(set(slugs)) == len(slugs)
    assert all(SLUG_RE.match(slug) for slug in slugs)
    titles = [article["title"].casefold() for article in articles]
    assert len(set(titles)) == len(titles)


def test_article_fields(articles):
    """Articles have a one-paragraph plain-text lead and a 600–1200 word Markdown body."""
    for article in articles:
        assert isinstance(article["title"], str) and article["title"].strip()
        lead = article["lead"]
        assert isinstance(lead, str) and lead.strip(), article["slug"]
        assert "\n" not in lead.strip(), article["slug"]
        assert not re.search(r"[`*#\[\]<>]", lead), article["slug"]
        words = _word_count(article["body"]) + _word_count(lead)
        assert 600 <= words <= 1200, (article["slug"], words)


def test_article_terms_exist(terms, articles):
    """Each article lists 4–12 distinct term slugs that exist in terms.json: every term it
    substantially discusses, so each term page links back to it."""
    slugs = {term["slug"] for term in terms}
    for article in articles:
        listed = article["terms"]
        assert 4 <= len(listed) <= 12, article["slug"]
        assert len(set(listed)) == len(listed), article["slug"]
        assert set(listed) <= slugs, (article["slug"], set(listed) - slugs)


def test_series_orders(articles):
    """Series articles have a positive order unique within their series; others have none."""
    seen = set()
    for article in articles:
        series, order = article["series"], article["series_order"]
        if series is None:
            assert order is None, article["slug"]
            continue
        assert isinstance(series, str) and series.strip(), article["slug"]
        assert isinstance(order, int) and order >= 1, article["slug"]
        assert (series, order) not in seen, article["slug"]
        seen.add((series, order))


def test_no_raw_html_in_markdown(terms, articles):
    """Markdown bodies contain no raw HTML tags outside code blocks and code spans."""
    for item in terms + articles:
        prose = _prose(item["body"])
        assert not HTML_TAG_RE.search(prose), item["slug"]


def test_code_fences_are_closed(terms, articles):
    """Every fenced code block is closed, so the rest of the body is not swallowed."""
    for item in terms + articles:
        fences = re.findall(r"^```", item["body"], flags=re.MULTILINE)
        assert len(fences) % 2 == 0, item["slug"]
