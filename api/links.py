"""Addresses and HAL links in the subset WordPress uses (`_links`, `_embedded`).

URLs are absolute on the site's canonical address (glossary/site.py), like every other URL the
site hands out (feeds, MCP results), so an answer does not depend on which Host the request
used. Paths come from `reverse()` once per process (`_paths`); building hundreds of links per
list with `reverse()` each time would cost more than the query that read the rows.

Relations (the WordPress ones by their CURIE `wp:`, ours by `webflux:`):
- every object: `self`, `collection`, `about` (its type, /types/<type>);
- a term: `wp:term` (its categories, taxonomy "category"), `related` (IANA: the related
  terms), `webflux:articles` (the articles that use it);
- an article: `webflux:terms` (the glossary terms it uses), `wp:term` (its series, taxonomy
  "series");
- categories and series: `webflux:entries` (their terms or articles).
Collection links are `embeddable`: `_embed` puts what they list into `_embedded` (one list per
link, in `context=embed`), from the same rows the detail read fetched. `version-history`
(an entry's revisions) appears as soon as a route named `api:<type>-revisions-list` exists.
"""

from functools import cache, lru_cache
from html import escape

import orjson
from django.urls import NoReverseMatch, reverse

from glossary.models import path_around_slug
from glossary.site import site_url

CURIES = [
    {"name": "wp", "href": "https://api.w.org/{rel}", "templated": True},
]


# The kinds of entry with a public page (`glossary.models.entry_path`).
PAGES = ("term", "article", "category", "series")


@cache
def _paths() -> dict[str, str]:
    paths = {
        "index": reverse("api:index"),
        "namespace": reverse("api:namespace").rstrip("/"),
    }
    for kind in PAGES:
        paths[f"{kind}_page"] = path_around_slug(kind)
    for kind in ("term", "article"):
        # A number no other part of the path contains ("v1" does contain a 1).
        marker = "987654321"
        try:
            paths[f"{kind}_revisions"] = reverse(
                f"api:{kind}-revisions-list", kwargs={"id": marker}
            ).split(marker, 1)
        except NoReverseMatch:
            paths[f"{kind}_revisions"] = None
    return paths


@lru_cache(maxsize=16)
def _bases(site: str) -> dict:
    """Absolute prefixes for `site` (the canonical address), computed once: a list builds
    several links per object, hundreds per page. What it returns is shared: never mutated."""
    paths = _paths()
    ns = site + paths["namespace"]
    pages = {kind: (site + paths[f"{kind}_page"][0], paths[f"{kind}_page"][1]) for kind in PAGES}
    return {
        "root": site + paths["index"],
        "ns": ns,
        "route": {kind: f"{ns}/{base}" for kind, base in REST_BASE.items()},
        "pages": pages,
        # Our relations are described in the OpenAPI document (`info.description`).
        "curies": [*CURIES, {"name": "webflux", "href": ns + "/openapi#{rel}", "templated": True}],
    }


def api_root() -> str:
    return _bases(site_url())["root"]


def namespace_url() -> str:
    return _bases(site_url())["ns"]


def page(kind: str, slug: str) -> str:
    """The public page of an entry (what `link` holds): the site's address and the path
    `glossary.models.entry_path` gives, whose shape is read once per process (`_paths`)."""
    prefix, suffix = _bases(site_url())["pages"][kind]
    return prefix + slug + suffix


def route(kind: str) -> str:
    return _bases(site_url())["route"][kind]


REST_BASE = {"term": "terms", "article": "articles", "category": "categories", "series": "series"}
TYPES = ("term", "article")


def entry_links(kind: str, pk: int) -> dict:
    bases = _bases(site_url())
    ns = bases["ns"]
    base = bases["route"][kind]
    links = {
        "self": [{"href": f"{base}/{pk}"}],
        "collection": [{"href": base}],
    }
    if kind in TYPES:
        links["about"] = [{"href": f"{ns}/types/{kind}"}]
        revisions = _paths()[f"{kind}_revisions"]
        if revisions is not None:
            links["version-history"] = [
                {"href": site_url() + revisions[0] + str(pk) + revisions[1]}
            ]
    if kind == "term":
        links["wp:term"] = [
            {"taxonomy": "category", "embeddable": True, "href": f"{ns}/categories?term={pk}"}
        ]
        links["related"] = [{"embeddable": True, "href": f"{base}?related={pk}"}]
        links["webflux:articles"] = [{"embeddable": True, "href": f"{ns}/articles?terms={pk}"}]
    elif kind == "article":
        links["webflux:terms"] = [{"embeddable": True, "href": f"{ns}/terms?article={pk}"}]
        links["wp:term"] = [
            {"taxonomy": "series", "embeddable": True, "href": f"{ns}/series?article={pk}"}
        ]
    elif kind == "category":
        links["about"] = [{"href": f"{ns}/types/term"}]
        links["webflux:entries"] = [{"href": f"{ns}/terms?categories={pk}"}]
    elif kind == "series":
        links["about"] = [{"href": f"{ns}/types/article"}]
        links["webflux:entries"] = [{"href": f"{ns}/articles?series={pk}"}]
    links["curies"] = bases["curies"]
    return links


ID_MARK = "987654321987"  # an id no other part of a link contains


SLUG_MARK = "\x1eslug\x1e"  # where a slug goes in `templates`' page address


def templates(kind: str) -> tuple[str, str, str]:
    """What a statement that writes objects itself (api/rowjson.py) needs of the site as it
    is now for an entry of `kind`: its page address (`page`) with `SLUG_MARK` where the slug
    goes, its own `_links` (`entry_links`) and its `_links` when embedded
    (`represent.embed_link`), both as JSON text with `ID_MARK` where the id goes."""
    return _templates(site_url(), kind)


@lru_cache(maxsize=16)
def _templates(site: str, kind: str) -> tuple[str, str, str]:
    bases = _bases(site)
    base = bases["route"][kind]
    embedded = {"self": [{"href": f"{base}/{ID_MARK}"}], "collection": [{"href": base}]}
    return (
        page(kind, SLUG_MARK),
        orjson.dumps(entry_links(kind, int(ID_MARK))).decode(),
        orjson.dumps(embedded).decode(),
    )


def revision_link(kind: str, pk: int, version_id) -> str:
    """The address of one revision of an entry: /<type>s/<id>/revisions/<revision id>."""
    prefix, suffix = _paths()[f"{kind}_revisions"]
    return f"{site_url()}{prefix}{pk}{suffix.rstrip('/')}/{version_id}"


def revision_links(kind: str, pk: int, version_id) -> dict:
    """A revision's HAL links: itself, the entry's revisions, and the entry (`parent`)."""
    prefix, suffix = _paths()[f"{kind}_revisions"]
    collection = f"{site_url()}{prefix}{pk}{suffix.rstrip('/')}"
    return {
        "self": [{"href": f"{collection}/{version_id}"}],
        "collection": [{"href": collection}],
        "parent": [{"href": f"{route(kind)}/{pk}"}],
    }


def excerpt_html(text: str) -> str:
    return f"<p>{escape(text, quote=False)}</p>\n" if text else ""
