"""How a glossary entry looks to an agent: one structured form (tool `structuredContent`) and
one Markdown form (tool text, `resources/read`, embedded prompt resources), both built from
the selectors' `TermDetail`/`ArticleDetail`, so a tool, a resource and a prompt that show
the same entry show it the same way.

What a model reads must be usable as it stands: every URL is absolute on the site's one
address (glossary/site.py), bodies included (`markdown_for_agents`: site paths made absolute,
raw HTML replaced by what the page shows), and every entry a text names comes with its URL.
"""

from glossary.markdown import markdown_for_agents, markdown_text
from glossary.models import entry_path, path_around_slug
from glossary.selectors import ArticleDetail, TermDetail

TERM_URI = "glossary://terms/"
ARTICLE_URI = "glossary://articles/"
MARKDOWN = "text/markdown"
# A tool answer's budget: an agent pays for every token of it. A longer body is cut (the
# resource, `resources/read`, has all of it), and the terms a text mentions are listed by
# name and address, at most this many (the resource lists them all).
BODY_BUDGET = 20_000
MENTIONS_SHOWN = 20


def term_url(base_url: str, slug: str) -> str:
    """Absolute page URL of a term: `base_url` and the glossary's one address function."""
    return base_url + entry_path("term", slug)


def article_url(base_url: str, slug: str) -> str:
    return base_url + entry_path("article", slug)


def urls_on(base_url: str):
    """`term_url` and `article_url` on `base_url`, as two one-argument functions for the
    many entries of one answer: the request's script prefix and URLconf are read once."""
    term_head, term_tail = path_around_slug("term")
    article_head, article_tail = path_around_slug("article")
    return (
        lambda slug: f"{base_url}{term_head}{slug}{term_tail}",
        lambda slug: f"{base_url}{article_head}{slug}{article_tail}",
    )


def iso(value) -> str | None:
    """An ISO 8601 time to the second: the microseconds tell an agent nothing."""
    return value.replace(microsecond=0).isoformat() if value else None


def _budgeted_body(source: str, base_url: str, full: bool) -> tuple[str, int | None]:
    """The body as an agent reads it, and its full length when it was cut to `BODY_BUDGET`
    (a tool answer; `full` for a resource, which is where the rest is read)."""
    body = markdown_for_agents(source, site=base_url)
    if full or len(body) <= BODY_BUDGET:
        return body, None
    # At the last paragraph (or else line, word) break within the budget: no half a link.
    cut = max(body.rfind("\n\n", 0, BODY_BUDGET), body.rfind("\n", 0, BODY_BUDGET))
    if cut < BODY_BUDGET // 2:
        cut = body.rfind(" ", 0, BODY_BUDGET)
    return body[: cut if cut > 0 else BODY_BUDGET].rstrip(), len(body)


def _budget_fields(uri: str, body_length: int | None, mentions_total: int) -> dict:
    """Where the rest is (`resource`), whether the body was cut (and its full length then),
    how many terms the text mentions in all."""
    fields = {"resource": uri, "bodyTruncated": body_length is not None}
    if body_length is not None:
        fields["bodyLength"] = body_length
    return {**fields, "mentionsTotal": mentions_total}


def _mentions(links, to_term, skip: set, full: bool) -> tuple[list[dict], int]:
    """The glossary terms a text mentions (its auto-links) that the answer does not list
    already (the entry itself, its related or used terms): names and URLs, at most
    `MENTIONS_SHOWN` in a tool answer; and how many there are in all."""
    found = [
        {"slug": t.slug, "name": t.title, "url": to_term(t.slug)}
        for t in links
        if t.slug not in skip
    ]
    return (found if full else found[:MENTIONS_SHOWN]), len(found)


def term_data(detail: TermDetail, base_url: str, *, full: bool = False) -> dict:
    """`full`: the whole body and every mention (the resource); otherwise a tool answer's
    budget (`BODY_BUDGET`, `MENTIONS_SHOWN`), with the resource named for the rest."""
    term = detail.term
    to_term, to_article = urls_on(base_url)
    uri = TERM_URI + term.slug
    body, body_length = _budgeted_body(term.body, base_url, full)
    skip = {term.slug, *(r.slug for r in detail.related)}
    mentions, total = _mentions(detail.mentions, to_term, skip, full)
    # The English name and definition only when an editor gave them; the phrases readers
    # asked by (`asked_as`) are the editors' and never reach an agent.
    english = {
        key: value
        for key, value in (
            ("englishName", term.english_name),
            ("englishDefinition", term.english_definition),
        )
        if value
    }
    return {
        "name": term.name,
        "slug": term.slug,
        "shortDefinition": term.short_definition,
        **english,
        "body": body,
        "synonyms": list(term.synonyms),
        "categories": [{"slug": c.slug, "name": c.title} for c in detail.categories],
        "related": [
            {
                "slug": r.slug,
                "name": r.title,
                "shortDefinition": r.summary,
                "url": to_term(r.slug),
            }
            for r in detail.related
        ],
        "articles": [
            {"slug": a.slug, "title": a.title, "url": to_article(a.slug)} for a in detail.articles
        ],
        "url": to_term(term.slug),
        "updatedAt": iso(term.updated_at),
        "mentions": mentions,
        **_budget_fields(uri, body_length, total),
    }


def _term_line(term: dict) -> str:
    """A term another entry names: its name linked to its page, slug, short definition."""
    return (
        f"- [{markdown_text(term['name'])}]({term['url']}) (`{term['slug']}`): "
        f"{markdown_text(term['shortDefinition'])}"
    )


def _mentions_markdown(data: dict) -> list[str]:
    """The mentioned terms on one line of links; how to get the rest when some are left out."""
    if not data["mentions"]:
        return []
    links = ", ".join(f"[{markdown_text(t['name'])}]({t['url']})" for t in data["mentions"])
    lines = ["## Pojęcia wspomniane w treści", "", links, ""]
    left = data["mentionsTotal"] - len(data["mentions"])
    if left > 0:
        lines += [f"Oraz {left} innych: pełna lista w zasobie {data['resource']}.", ""]
    return lines


def _count(number: int) -> str:
    return f"{number:,}".replace(",", "\u00a0")


def _body_markdown(data: dict) -> list[str]:
    if not data["body"].strip():
        return []
    lines = [data["body"].strip(), ""]
    if data["bodyTruncated"]:
        shown, length = _count(len(data["body"])), _count(data["bodyLength"])
        lines += [
            f"(Treść skrócona do {shown} z {length} znaków; całość: zasób {data['resource']}, "
            "resources/read.)",
            "",
        ]
    return lines


def term_markdown(data: dict) -> str:
    lines = [f"# {markdown_text(data['name'])}", "", markdown_text(data["shortDefinition"]), ""]
    if "englishName" in data:
        lines += [f"**Nazwa angielska:** {markdown_text(data['englishName'])}", ""]
    if "englishDefinition" in data:
        lines += [f"**Po angielsku:** {markdown_text(data['englishDefinition'])}", ""]
    if data["synonyms"]:
        synonyms = ", ".join(markdown_text(s) for s in data["synonyms"])
        lines += [f"**Synonimy:** {synonyms}", ""]
    if data["categories"]:
        names = ", ".join(markdown_text(c["name"]) for c in data["categories"])
        lines += [f"**Kategorie:** {names}", ""]
    lines += _body_markdown(data)
    if data["related"]:
        lines += ["## Pojęcia powiązane", ""]
        lines += [_term_line(r) for r in data["related"]]
        lines.append("")
    lines += _mentions_markdown(data)
    if data["articles"]:
        lines += ["## Artykuły", ""]
        lines += [f"- [{markdown_text(a['title'])}]({a['url']})" for a in data["articles"]]
        lines.append("")
    lines.append(f"Źródło: {data['url']} (zaktualizowano {data['updatedAt']})")
    return "\n".join(lines)


def _article_link(link, to_article) -> dict | None:
    if link is None:
        return None
    return {"slug": link.slug, "title": link.title, "url": to_article(link.slug)}


def article_data(detail: ArticleDetail, base_url: str, *, full: bool = False) -> dict:
    """`full` as in `term_data`."""
    article = detail.article
    series = article.series
    to_term, to_article = urls_on(base_url)
    uri = ARTICLE_URI + article.slug
    body, body_length = _budgeted_body(article.body, base_url, full)
    skip = {t.slug for t in detail.terms}
    mentions, total = _mentions(detail.mentions, to_term, skip, full)
    return {
        "title": article.title,
        "slug": article.slug,
        "lead": article.lead,
        "body": body,
        "url": to_article(article.slug),
        "publishedAt": iso(article.published_at),
        "updatedAt": iso(article.updated_at),
        "series": {"name": series.name, "slug": series.slug} if series else None,
        "terms": [
            {
                "slug": t.slug,
                "name": t.title,
                "shortDefinition": t.summary,
                "url": to_term(t.slug),
            }
            for t in detail.terms
        ],
        "previous": _article_link(detail.previous, to_article),
        "next": _article_link(detail.next, to_article),
        "mentions": mentions,
        **_budget_fields(uri, body_length, total),
    }


def article_markdown(data: dict) -> str:
    lines = [f"# {markdown_text(data['title'])}", ""]
    if data["lead"].strip():
        lines += [f"*{markdown_text(data['lead'])}*", ""]
    if data["series"]:
        lines += [f"**Seria:** {markdown_text(data['series']['name'])}", ""]
    lines += _body_markdown(data)
    if data["terms"]:
        lines += ["## Pojęcia ze słownika", ""]
        lines += [_term_line(t) for t in data["terms"]]
        lines.append("")
    lines += _mentions_markdown(data)
    for label, key in (("Poprzedni w serii", "previous"), ("Następny w serii", "next")):
        if data[key]:
            title = markdown_text(data[key]["title"])
            lines.append(f"{label}: [{title}]({data[key]['url']})")
    lines.append(f"Źródło: {data['url']} (opublikowano {data['publishedAt']})")
    return "\n".join(lines)
