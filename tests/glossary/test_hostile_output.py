"""Editor text in the machine-read contexts — the Atom feed, the sitemap, JSON-LD and the meta
tags — is escaped for its context, whatever an editor typed (issue 13, item 6). Each test
puts markup, quotes and closing tags into every text the context carries, parses the output
with a real parser, and checks that the text comes back as text, equal to what was typed,
and that no element or attribute was injected."""

import json
import re
import xml.etree.ElementTree as ET
from html import unescape
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from glossary.models import Series
from tests.factories import make_article, make_category, make_term

pytestmark = pytest.mark.django_db

SITE_URL = "https://slownik.example"
ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
LEAD = "<img src=x onerror=alert(1)> & <b>pogrubienie</b> ]]>"
TITLE = 'Tytuł </title><script>alert(2)</script> "cudzysłów" & <!--'
NAME = 'Ewa </name><script>alert(3)</script> "N"'
TERM = 'SSE </script><script>alert(4)</script><!-- "x" & y'
SERIES = 'Seria </script>"><img src=x onerror=alert(5)>'


@pytest.fixture(autouse=True)
def _site_url(site_address):
    """The canonical address lives in the Site row (glossary/site.py)."""
    site_address(SITE_URL)


@pytest.fixture
def hostile(django_user_model):
    author = django_user_model.objects.create_user("ewa", first_name=NAME)
    term = make_term(TERM, slug="sse", short_definition=LEAD, synonyms=[TITLE])
    term.categories.add(make_category(TITLE, slug="kat", description=LEAD))
    series = Series.objects.create(name=SERIES, slug="seria", description=LEAD)
    article = make_article(TITLE, slug="atak", lead=LEAD, author=author, terms=[term],
                           series=series, series_order=1)  # fmt: skip
    return {"term": term, "article": article, "series": series}


class _Elements(HTMLParser):
    """Every start tag and its attributes, as a browser's tokenizer sees them."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _tags(html: str) -> list[tuple[str, dict]]:
    parser = _Elements()
    parser.feed(html)
    return parser.tags


def _page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


# --- Atom feed -------------------------------------------------------------------------------
def test_atom_summary_is_text_not_html(client, hostile):
    """The plain-text lead is a text construct (RFC 4287 §3.1.1): `type="text"`, equal to the
    lead once XML-parsed, so a feed reader shows the markup instead of running it."""
    response = client.get(reverse("glossary:feed"))
    assert response.status_code == 200
    root = ET.fromstring(response.content)  # noqa: S314 (our own output, under test)
    [entry] = root.findall(f"{ATOM}entry")
    summary = entry.find(f"{ATOM}summary")
    assert summary.get("type") == "text" and summary.text == LEAD
    assert b'type="html"' not in response.content
    # Titles and author names are text constructs too (no type: text), and come back intact.
    title = entry.find(f"{ATOM}title")
    assert title.get("type") in (None, "text") and title.text == TITLE
    assert entry.find(f"{ATOM}author/{ATOM}name").text == NAME
    # Nothing the editor typed became an element of the feed.
    assert not root.findall(f".//{ATOM}script") and not root.findall(".//script")
    assert {el.tag.removeprefix(ATOM) for el in root.iter()} <= {
        "feed", "title", "link", "id", "updated", "subtitle", "author", "name", "entry",
        "published", "summary",
    }  # fmt: skip


# --- sitemap ---------------------------------------------------------------------------------
def test_sitemap_is_well_formed_with_only_absolute_site_urls(client, hostile):
    """The sitemap parses as XML and every <loc> is an absolute URL on SITE_URL, whatever
    the names of the entries it lists."""
    response = client.get(reverse("glossary:sitemap"))
    assert response.status_code == 200
    root = ET.fromstring(response.content)  # noqa: S314 (our own output, under test)
    locs = [loc.text for loc in root.iter(f"{SITEMAP}loc")]
    assert SITE_URL + hostile["article"].get_absolute_url() in locs
    assert SITE_URL + hostile["term"].get_absolute_url() in locs
    assert all(re.fullmatch(re.escape(SITE_URL) + r"/[A-Za-z0-9/%._~-]*", loc) for loc in locs)
    assert b"<script" not in response.content and b"alert(" not in response.content


# --- JSON-LD ---------------------------------------------------------------------------------
def _jsonld(html: str) -> list[dict]:
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    return [json.loads(block) for block in blocks]


def test_article_jsonld_keeps_every_text_inside_its_string(client, hostile):
    """Headline, description, author, series and the terms it is about: each parses back to
    what was typed, and the JSON-LD block is the page's only inline script."""
    html = _page(client, hostile["article"].get_absolute_url())
    [data] = _jsonld(html)
    assert data["headline"] == TITLE and data["description"] == LEAD
    assert data["author"]["name"] == NAME
    assert data["isPartOf"]["name"] == SERIES
    assert [about["name"] for about in data["about"]] == [TERM]
    assert [tag for tag, attrs in _tags(html) if tag == "script" and "src" not in attrs] == [
        "script"
    ]
    assert not any(tag == "img" and "onerror" in attrs for tag, attrs in _tags(html))


def test_term_jsonld_keeps_every_text_inside_its_string(client, hostile):
    """A term's name, definition and other names parse back from its JSON-LD."""
    html = _page(client, hostile["term"].get_absolute_url())
    [data] = _jsonld(html)
    assert data["name"] == TERM and data["description"] == LEAD
    assert TITLE in data.get("alternateName", [])


# --- meta tags -------------------------------------------------------------------------------
def _head_meta(html: str) -> dict[str, str]:
    head = html.split("</head>")[0]
    found = {}
    for tag, attrs in _tags(head):
        if tag == "meta" and "content" in attrs:
            found[attrs.get("property") or attrs.get("name")] = attrs["content"]
    return found


@pytest.mark.parametrize("which", ["article", "term", "series"])
def test_meta_tags_carry_the_texts_as_attribute_values(client, hostile, which):
    """Every meta tag's content is one attribute value: quotes and tags in titles, leads,
    definitions and author names neither end the attribute nor add an element to <head>."""
    html = _page(client, hostile[which].get_absolute_url())
    head = html.split("</head>")[0]
    tags = _tags(head)
    assert not any(tag in ("img", "b") for tag, _attrs in tags)
    assert [tag for tag, attrs in tags if tag == "script" and "src" not in attrs] in (
        [],
        ["script"],  # the JSON-LD block
    )
    assert not any("onerror" in attrs or "onmouseover" in attrs for _tag, attrs in tags)
    values = _head_meta(html)
    assert values["og:description"].startswith(unescape(LEAD)[:40])
    if which == "article":
        assert values["og:title"] == TITLE and values["twitter:title"] == TITLE
        assert values["article:author"] == NAME and values["author"] == NAME
        assert values["description"] == LEAD
    if which == "term":
        assert values["og:title"] == TERM and values["description"] == LEAD
