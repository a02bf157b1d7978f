"""Public reader pages: thin views over `selectors` and `search`, nothing else touches the ORM.

Staff may open drafts and scheduled entries at their public URL (the admin's "view on site"),
so detail views ask the selectors for drafts only when `request.user.is_staff`; for everyone
else the selectors' `published()` rule applies and a draft is a plain 404. Reading `is_staff`
costs anonymous visitors nothing: without a session cookie Django never queries the session
or user tables.
"""

import logging
import sys
import time

from csp.decorators import csp_replace
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template import loader
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import get_conditional_response, set_response_etag
from django.views.decorators.cache import cache_control
from django.views.decorators.csrf import requires_csrf_token
from django.views.decorators.http import conditional_page, require_safe
from django.views.generic import ListView, TemplateView

from . import llms, search, selectors, signals
from .db.cache import LRU
from .jsonld import article_jsonld, term_jsonld
from .models import entry_path
from .polish import INDEX_LETTERS, OTHER_LETTER
from .search.query import without_controls
from .site import site_url

# The engine truncates too; cutting here keeps megabyte query strings out of every later step.
MAX_QUERY_LENGTH = 200
SEARCH_LIMIT = 20

logger = logging.getLogger("glossary")


def _absolute(path: str) -> str:
    return site_url() + path


def _letter_anchor(letter: str) -> str:
    return "litera-inne" if letter == OTHER_LETTER else f"litera-{letter}"


class HomeView(TemplateView):
    """The front page: a search box, the newest articles and recently updated terms."""

    template_name = "glossary/home.html"

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            latest_articles=list(selectors.latest_articles(limit=5)),
            recent_terms=list(selectors.recently_updated_terms(limit=8)),
            canonical_url=_absolute(reverse("glossary:home")),
            # Agents learn of the MCP endpoint from the front page too.
            mcp_url=_absolute(reverse("mcp_endpoint:mcp")),
            **kwargs,
        )


class IndexView(TemplateView):
    """The A–Z index: one query for every published term, grouped by letter in Python, so the
    navigation can show which letters are empty without a second query."""

    template_name = "glossary/index.html"

    def render_to_response(self, context, **kwargs):
        if context["letter_error"] == "invalid":
            kwargs["status"] = 404
        return super().render_to_response(context, **kwargs)

    def get_context_data(self, **kwargs):
        rows = list(selectors.term_index())
        letters = selectors.index_letters(rows)
        groups: dict[str, list[dict]] = {}
        for row in rows:
            groups.setdefault(row["letter"], []).append(row)
        # `?litera=` names one section; a letter without terms or something that is no
        # letter of the index says so (the latter with 404) instead of showing everything.
        raw = self.request.GET.get("litera", "").strip()
        selected = raw.upper() if raw else None
        valid = {letter for letter, _present in letters} | set(INDEX_LETTERS)
        letter_error = None
        if selected is not None and selected not in valid:
            letter_error, selected = "invalid", None
            self.letter_shown = clean_query(raw)[:20]
        elif selected is not None and selected not in groups:
            letter_error = "empty"
        nav = [
            {"letter": letter, "present": present, "anchor": _letter_anchor(letter)}
            for letter, present in letters
        ]
        sections = [
            {**item, "terms": groups[item["letter"]]}
            for item in nav
            if item["present"] and selected in (None, item["letter"])
        ]
        if letter_error:
            sections = []
        return super().get_context_data(
            nav=nav,
            sections=sections,
            selected=selected,
            letter_error=letter_error,
            letter_shown=getattr(self, "letter_shown", selected),
            term_count=len(rows),
            canonical_url=_absolute(reverse("glossary:index")),
            **kwargs,
        )


# Rendered term and article pages as everyone but staff sees them, keyed by (content state,
# slug).
TERM_PAGES = LRU(1000)
ARTICLE_PAGES = LRU(1000)


def _reader_page(request, pages: LRU, slug: str, render_page):
    """A reader's page from `pages` when the content has not changed since it was rendered
    (1 query: the content state), else rendered by `render_page` and kept; a conditional GET
    whose ETag matches is a 304 with no rendering. The ETag is a hash of the page itself (as
    `conditional_page` makes it), so a deploy that changes templates changes it too."""
    state = selectors.content_state()
    key = None if state is None else (state, slug)
    page = pages.get(key) if key else None
    if page is not None:
        etag, content = page
        response = HttpResponse(content)
        response["ETag"] = etag
    else:
        response = render_page(request, slug)
        if response.status_code != 200:
            return response
        set_response_etag(response)
        if key:
            pages.put(key, (response["ETag"], response.content))
    return get_conditional_response(request, etag=response["ETag"], response=response)


def term_view(request, slug: str):
    """A term page: readers get it through `_reader_page` (1 query when cached, 1 + 1 when
    rendered). Staff, who may see drafts, always get a fresh render."""
    if request.user.is_staff:
        return _staff_term_view(request, slug)
    return _reader_page(request, TERM_PAGES, slug, _term_page)


@conditional_page  # ETag from the rendered page: also changes when related entries change
def _staff_term_view(request, slug: str):
    return _term_page(request, slug)


def _term_page(request, slug: str):
    """A term with its links and schema.org `DefinedTerm` JSON-LD (1 query)."""
    detail = selectors.term_detail(slug=slug, include_drafts=request.user.is_staff)
    if detail is None:
        return _entry_not_found(request, "term", slug)
    term = detail.term
    return render(
        request,
        "glossary/term.html",
        {
            "detail": detail,
            "term": term,
            "canonical_url": _absolute(term.get_absolute_url()),
            "jsonld": term_jsonld(detail),
            "is_draft": not term.is_public,
            "og": {"title": term.name, "description": term.short_definition, "type": "article"},
        },
    )


class ArticleListView(ListView):
    """Published articles, newest first, 10 per page (`?strona=`)."""

    template_name = "glossary/article_list.html"
    context_object_name = "articles"
    paginate_by = 10
    page_kwarg = "strona"

    def get_queryset(self):
        return selectors.article_list()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        path = reverse("glossary:articles")
        page = context["page_obj"].number
        context["canonical_url"] = _absolute(path if page == 1 else f"{path}?strona={page}")
        return context


def article_view(request, slug: str):
    """An article page: readers get it through `_reader_page` (1 query when cached, 1 + 1
    when rendered; a 304 renders nothing). Staff always get a fresh render."""
    if request.user.is_staff:
        return _staff_article_view(request, slug)
    return _reader_page(request, ARTICLE_PAGES, slug, _article_page)


@conditional_page
def _staff_article_view(request, slug: str):
    return _article_page(request, slug)


def _article_page(request, slug: str):
    """An article with its glossary terms, series neighbours and schema.org JSON-LD (1 query)."""
    detail = selectors.article_detail(slug=slug, include_drafts=request.user.is_staff)
    if detail is None:
        return _entry_not_found(request, "article", slug)
    article = detail.article
    author = article.author_name
    return render(
        request,
        "glossary/article.html",
        {
            "detail": detail,
            "article": article,
            "author": author,
            "canonical_url": _absolute(article.get_absolute_url()),
            "jsonld": article_jsonld(detail),
            "is_draft": not article.is_public,
            "og": {
                "title": article.title,
                "description": article.lead,
                "type": "article",
                "published": article.published_at,
                "author": author,
            },
        },
    )


def category_view(request, slug: str):
    """A category with its published terms in Polish alphabetical order (2 queries)."""
    found = selectors.category_detail(slug=slug)
    if found is None:
        raise Http404("Nie ma takiej kategorii.")
    category, terms = found
    return render(
        request,
        "glossary/category.html",
        {
            "category": category,
            "terms": terms,
            "canonical_url": _absolute(category.get_absolute_url()),
            "og": {"title": f"Kategoria: {category.name}", "description": category.description},
        },
    )


def series_view(request, slug: str):
    """A series with its published articles in reading order (2 queries)."""
    found = selectors.series_detail(slug=slug)
    if found is None:
        raise Http404("Nie ma takiej serii.")
    series, articles = found
    return render(
        request,
        "glossary/series.html",
        {
            "series": series,
            "articles": articles,
            "canonical_url": _absolute(series.get_absolute_url()),
            "og": {"title": f"Seria: {series.name}", "description": series.description},
        },
    )


def clean_query(raw: str) -> str:
    """A query safe to hand to any engine: no control characters (PostgreSQL rejects NUL),
    collapsed whitespace, bounded length."""
    return " ".join(without_controls(raw[: MAX_QUERY_LENGTH * 4]).split())[:MAX_QUERY_LENGTH]


def search_view(request):
    """Results from the one search engine. A term named exactly like the query is shown first
    as a card leading to it, with everything else the query found below (no redirect: a
    reader looking for the articles about MCP still sees them). The engine's reading is
    shown too: "Czy chodziło o" with the corrected query, and a note and a label on each
    hit when the terms are guesses (`SearchResults.weak`, `Hit.weak`)."""
    started = time.perf_counter()
    query = clean_query(request.GET.get("q", ""))
    results = search.search(query=query, limit=SEARCH_LIMIT) if query else None
    if results is not None:
        seconds = time.perf_counter() - started
        signals.site_searched.send(
            sender=search_view, query=query, results=results, seconds=seconds
        )
    others = results.terms if results else []
    if results is not None and results.exact is not None:
        others = [hit for hit in results.terms if hit.id != results.exact.id]
    return render(
        request, "glossary/search.html", {"query": query, "results": results, "others": others}
    )


SUGGEST_LIMIT = 8
# Short: an edit shows up in the box within half a minute (the page itself is not cached).
SUGGEST_MAX_AGE = 30


@cache_control(public=True, max_age=SUGGEST_MAX_AGE)
def search_suggestions(request):
    """Suggestions for the search box as the reader types (`static/js/suggest.js`): at most 8
    published terms as `[{name, slug, url, definition, match}]`, exactly as the engine ranks
    them for the search page (fuzzy, diacritic-free and definition matches included)."""
    query = clean_query(request.GET.get("q", ""))
    hits = search.term_search(query=query, limit=SUGGEST_LIMIT) if query else []
    data = [
        {
            "name": hit.title,
            "slug": hit.slug,
            "url": entry_path("term", hit.slug),
            "definition": hit.summary,
            "match": hit.match,
        }
        for hit in hits
    ]
    return JsonResponse(data, safe=False, json_dumps_params={"ensure_ascii": False})


def page_not_found(request, exception=None):
    """The 404 page (`handler404`): the closest published terms to the last segment of the
    address ("did you mean", glossary.search.suggest_terms: 1 query), and the search box
    filled with it."""
    segment = next((part for part in reversed(request.path.split("/")) if part), "")
    guess = clean_query(segment.replace("-", " "))
    suggestions = search.suggest_terms(text=guess, limit=5) if guess else []
    return render(request, "404.html", {"guess": guess, "suggestions": suggestions}, status=404)


def _entry_not_found(request, kind: str, slug: str):
    """The 404 page for a term or article address whose slug names nothing public, with the
    entries the slug most likely meant (a typo such as "mpc" finds MCP: 1–2 queries).
    Returned rather than raised, so `make run` (DEBUG on, where Django's technical 404 takes
    over `Http404`) shows the same page as production."""
    closest = search.closest_articles if kind == "article" else search.closest_terms
    guess = clean_query(slug.replace("-", " "))
    context = {"guess": guess, "kind": kind, "suggestions": closest(text=slug, limit=5)}
    return render(request, "404.html", context, status=404)


# The 500/503 pages are self-contained on purpose (no request context, database or static
# files), so their one inline <style> cannot carry a nonce; they hold no editor content, so
# these pages alone may use inline styles.
@csp_replace({"style-src": ["'unsafe-inline'"]})
@requires_csrf_token
def server_error(request):
    """The 500 page (`handler500`), and the 503 page when the failure was the database being
    unreachable (a restart, a failover): a reader is told to come back in a moment and a
    crawler or proxy gets `Retry-After`. Both templates are self-contained and rendered
    without the request's context: nothing here may touch the database that just failed."""
    exc = sys.exc_info()[1]
    if isinstance(exc, (OperationalError, InterfaceError)):
        logger.warning("Database unavailable while serving %s: %s", request.path, exc)
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = str(settings.DATABASE_RETRY_AFTER)
        return response
    return HttpResponse(loader.render_to_string("500.html"), status=500)


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request):
    """Browsers ask for /favicon.ico whatever the page says: point them to the icon."""
    return redirect(static("img/favicon-32.png"), permanent=True)


@require_safe
@cache_control(max_age=86400, public=True)
def web_manifest(request):
    """The web app manifest: name, colours and icons for "add to home screen"."""
    icons = [
        {"src": static(f"img/icon-{size}.png"), "sizes": f"{size}x{size}", "type": "image/png"}
        for size in (192, 512)
    ]
    icons.append({"src": static("img/favicon.svg"), "sizes": "any", "type": "image/svg+xml"})
    data = {
        "name": settings.SITE_NAME,
        "short_name": settings.SITE_NAME,
        "lang": "pl",
        "start_url": "/",
        "display": "standalone",
        "background_color": "#fbfaf7",
        "theme_color": "#8a2d12",
        "icons": icons,
    }
    return JsonResponse(
        data, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False}
    )


@require_safe
@cache_control(max_age=86400, public=True)
def robots_txt(request):
    """Crawlers and agents may read everything public; the admin is not for them, and the
    sitemap lists every published entry. AI crawlers named in `SLOWNIK_AI_CRAWLERS` get a
    group of their own: "allow" (the public site, as everyone) or "deny" (nothing). A named
    group replaces the `*` group for that crawler (RFC 9309 §2.2.1), so an allowed one
    repeats the admin rule."""
    lines = ["User-agent: *", "Disallow: /admin/", "Allow: /", ""]
    for agent, rule in settings.SLOWNIK_AI_CRAWLERS.items():
        lines.append(f"User-agent: {agent}")
        lines += ["Disallow: /"] if rule == "deny" else ["Disallow: /admin/", "Allow: /"]
        lines.append("")
    lines += [f"Sitemap: {_absolute(reverse('glossary:sitemap'))}", ""]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")


# --- The site as agents read it (glossary/llms.py) -----------------------------------------
# Markdown alternates and the llms files, keyed by (content state, what): the conversion from
# HTML costs milliseconds, the content state one query.
AGENT_TEXTS = LRU(1000)


def _agent_text(key, build) -> HttpResponse:
    state = selectors.content_state()
    full_key = None if state is None else (state, _absolute(""), *key)
    content = AGENT_TEXTS.get(full_key) if full_key else None
    if content is None:
        content = build()
        if content is None:
            raise Http404("Nie ma takiego wpisu.")
        if full_key:
            AGENT_TEXTS.put(full_key, content)
    return HttpResponse(content, content_type=llms.MARKDOWN_TYPE)


def _site() -> llms.Site:
    return llms.Site(_absolute)


@require_safe
def term_markdown(request, slug: str):
    """The Markdown alternate of a published term page (3 queries, 1 when cached); drafts
    are 404 for everyone, staff included: agents' texts show published entries only."""

    def build():
        detail = selectors.term_detail(slug=slug)
        return None if detail is None else llms.term_markdown(detail, _site())

    return _agent_text(("term", slug), build)


@require_safe
def article_markdown(request, slug: str):
    """The Markdown alternate of a published article page (3 queries, 1 when cached)."""

    def build():
        detail = selectors.article_detail(slug=slug)
        return None if detail is None else llms.article_markdown(detail, _site())

    return _agent_text(("article", slug), build)


@require_safe
def markdown_index_html(request, route: str, slug: str):
    """The llms.txt proposal's name for the Markdown of a path ending in `/`
    (`/slownik/mcp/index.html.md`): a permanent redirect to ours (`/slownik/mcp.md`)."""
    return redirect(llms.markdown_url(entry_path(route, slug)), permanent=True)


@require_safe
def llms_txt(request):
    """/llms.txt: the site, the MCP endpoint, and every published term and article with a
    link to its Markdown (3 queries, 1 when cached)."""
    return _agent_text(
        ("llms.txt",),
        lambda: llms.llms_txt(
            list(selectors.term_index()), list(selectors.article_list()), _site()
        ),
    )


@require_safe
def llms_full_txt(request):
    """/llms-full.txt: the same header and the text of every published entry (3 queries, 1
    when cached)."""
    return _agent_text(
        ("llms-full.txt",),
        lambda: llms.llms_full_txt(
            list(selectors.term_texts()), list(selectors.article_texts()), _site()
        ),
    )
